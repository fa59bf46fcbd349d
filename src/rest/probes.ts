// Probes for supervisors and Kubernetes: /healthz (the process is up and serving, as before), /livez (the
// process answers at all) and /readyz (store reachable, migrations done, every listener accepting), each
// rate-limited per address and closing its connection after the reply.
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import type { Core } from '../core/core.ts';

/** One part /readyz checks besides the store: a listener, or the start itself. */
export interface ReadinessPart {
  part: string;
  ok: boolean;
}

export interface ProbeOptions {
  core: Core;
  /** Every listener bound and start-up done (migrations ran before the store opened). */
  isReady: () => boolean;
  /** The listeners, named, and whether each accepts connections now. */
  listeners: () => ReadinessPart[];
  onRequest: onRequestHookHandler[];
}

export function probeRoutes(
  app: FastifyInstance,
  { core, isReady, listeners, onRequest }: ProbeOptions,
): void {
  const opts = { logLevel: 'warn' as const, onRequest };
  app.get('/healthz', opts, async (_request, reply) =>
    isReady() ? { status: 'ok' } : reply.code(503).send({ status: 'starting' }),
  );
  app.get('/livez', opts, async () => ({ status: 'ok' }));
  app.get('/readyz', opts, async (_request, reply) => {
    const checks: Array<ReadinessPart & { reason?: string }> = [
      { part: 'start', ok: isReady(), ...(isReady() ? {} : { reason: 'starting or stopping' }) },
    ];
    const store = await core.probeStore();
    checks.push(store.ok ? { part: 'store', ok: true } : { part: 'store', ok: false, reason: store.reason });
    for (const l of listeners()) checks.push(l.ok ? l : { ...l, reason: 'not accepting connections' });
    const failing = checks.filter((c) => !c.ok);
    const body = {
      status: failing.length === 0 ? 'ready' : 'not ready',
      ...(failing.length === 0 ? {} : { failing: failing.map((c) => `${c.part}: ${c.reason}`) }),
      checks: Object.fromEntries(checks.map((c) => [c.part, c.ok ? 'ok' : c.reason])),
    };
    return reply.code(failing.length === 0 ? 200 : 503).send(body);
  });
}
