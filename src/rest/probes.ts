// Probes for supervisors and Kubernetes: /healthz (the process is up and serving, as before), /livez (the
// process answers at all) and /readyz (store reachable, migrations done, every listener accepting). On the API
// port each is rate-limited per address and closes its connection after the reply; PROBE_PORT serves the same
// answers on a listener of its own (src/cli/probeListener.ts).
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import type { Core } from '../core/core.ts';

/** One part /readyz checks besides the store: a listener, or the start itself. */
export interface ReadinessPart {
  part: string;
  ok: boolean;
}

export interface ProbeState {
  core: Core;
  /** Every listener bound and start-up done (migrations ran before the store opened). */
  isReady: () => boolean;
  /** The listeners, named, and whether each accepts connections now. */
  listeners: () => ReadinessPart[];
}

export interface ProbeOptions extends ProbeState {
  onRequest: onRequestHookHandler[];
}

export const PROBE_PATHS = ['/healthz', '/livez', '/readyz'] as const;
export type ProbePath = (typeof PROBE_PATHS)[number];

export interface ProbeAnswer {
  status: 200 | 503;
  body: Record<string, unknown>;
}

/** The answer of one probe: the same on the API port and on PROBE_PORT. */
export async function answerProbe(
  path: ProbePath,
  { core, isReady, listeners }: ProbeState,
): Promise<ProbeAnswer> {
  if (path === '/livez') return { status: 200, body: { status: 'ok' } };
  if (path === '/healthz') {
    return isReady()
      ? { status: 200, body: { status: 'ok' } }
      : { status: 503, body: { status: 'starting' } };
  }
  const checks: Array<ReadinessPart & { reason?: string }> = [
    { part: 'start', ok: isReady(), ...(isReady() ? {} : { reason: 'starting or stopping' }) },
  ];
  const store = await core.probeStore();
  checks.push(store.ok ? { part: 'store', ok: true } : { part: 'store', ok: false, reason: store.reason });
  for (const l of listeners()) checks.push(l.ok ? l : { ...l, reason: 'not accepting connections' });
  const failing = checks.filter((c) => !c.ok);
  return {
    status: failing.length === 0 ? 200 : 503,
    body: {
      status: failing.length === 0 ? 'ready' : 'not ready',
      ...(failing.length === 0 ? {} : { failing: failing.map((c) => `${c.part}: ${c.reason}`) }),
      checks: Object.fromEntries(checks.map((c) => [c.part, c.ok ? 'ok' : c.reason])),
    },
  };
}

export function probeRoutes(app: FastifyInstance, { onRequest, ...state }: ProbeOptions): void {
  const opts = { logLevel: 'warn' as const, onRequest };
  for (const path of PROBE_PATHS) {
    app.get(path, opts, async (_request, reply) => {
      const { status, body } = await answerProbe(path, state);
      return reply.code(status).send(body);
    });
  }
}
