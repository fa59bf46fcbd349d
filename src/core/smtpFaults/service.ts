// SMTP fault scripts per sandbox (issue 40): saving and reading a script, the session log, and what the SMTP
// listeners ask at each stage: "does a step of this sandbox's script apply here?". Scripts are kept in memory per
// process (dropped when any process saves one, on the bus); counted steps spend their count in the store.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import { notFound } from '../errors.ts';
import type { EventBus } from '../events.ts';
import { decodeCursor, DEFAULT_PAGE_SIZE, toPage, type Page } from '../pagination.ts';
import { newId } from '../random.ts';
import { findSandbox } from '../store/repos/sandboxes.ts';
import {
  appendSmtpSessionEvents,
  claimFaultStep,
  insertSmtpSession,
  listFaultSteps,
  listSmtpSessions,
  replaceFaultSteps,
  trimSmtpSessions,
} from '../store/repos/smtpFaults.ts';
import type { Database, SmtpFaultStepRow, SmtpSessionRow } from '../store/schema.ts';
import { candidates, parseSmtpFaults } from './script.ts';
import {
  actionOf,
  type SmtpFaultAction,
  type SmtpFaultStage,
  type SmtpFaultStep,
  type SmtpFaultStepView,
  type SmtpSession,
  type SmtpSessionEvent,
} from './types.ts';

/** Sessions kept per sandbox: the log is for asserting what a test's client just did, not an archive. */
export const SMTP_SESSIONS_KEPT = 200;
const MAX_CACHED_SCRIPTS = 10_000;

/** A sandbox's script as one process holds it. */
export interface SmtpFaultScript {
  sandboxId: string;
  generation: string;
  steps: readonly SmtpFaultStep[];
  /** Counted steps this process found spent: never asked about again until the list is replaced. */
  spent: Set<number>;
}

export interface SmtpFaultDecision {
  index: number;
  step: SmtpFaultStep;
  action: SmtpFaultAction;
}

/** Writes one session's log in order; a failed write is reported, never thrown at the mail it describes. */
export interface SmtpSessionLog {
  record(events: SmtpSessionEvent[], endedAt?: Date): Promise<void>;
}

const view = (row: SmtpFaultStepRow): SmtpFaultStepView => ({ ...row.step, remaining: row.remaining });

const toSession = (r: SmtpSessionRow): SmtpSession => ({
  id: r.id,
  listener: r.listener,
  remoteAddress: r.remote_address,
  startedAt: r.started_at,
  endedAt: r.ended_at,
  events: r.events,
});

export function createSmtpFaultService(
  db: Kysely<Database>,
  clock: Clock,
  bus: EventBus,
  random: () => number = Math.random,
) {
  const scripts = new Map<string, Promise<SmtpFaultScript | undefined>>();
  bus.subscribeAll((e) => {
    if (e.kind === 'smtp_faults' || e.kind === 'sandbox_deleted') scripts.delete(e.sandboxId);
  });
  // Another process's save may have gone unannounced: read every script again.
  bus.subscribeResync(() => scripts.clear());

  async function load(sandboxId: string): Promise<SmtpFaultScript | undefined> {
    const rows = await listFaultSteps(db, sandboxId);
    const first = rows[0];
    if (first === undefined) return undefined;
    const spent = new Set(
      rows.filter((r) => r.remaining !== null && r.remaining <= 0).map((r) => r.position),
    );
    return { sandboxId, generation: first.generation, steps: rows.map((r) => r.step), spent };
  }

  const owned = async (workspaceId: string, sandboxId: string) => {
    if ((await findSandbox(db, workspaceId, sandboxId, clock.now())) === undefined) throw notFound('Sandbox');
  };

  return {
    async get(workspaceId: string, sandboxId: string): Promise<SmtpFaultStepView[]> {
      await owned(workspaceId, sandboxId);
      return (await listFaultSteps(db, sandboxId)).map(view);
    },

    /** Replaces the script (`{ faults: [] }` clears it); counters start again. */
    async set(workspaceId: string, sandboxId: string, body: unknown): Promise<SmtpFaultStepView[]> {
      const steps = parseSmtpFaults(body);
      await owned(workspaceId, sandboxId);
      const rows = await replaceFaultSteps(db, sandboxId, newId(), steps);
      scripts.delete(sandboxId);
      bus.publish({ kind: 'smtp_faults', sandboxId });
      return rows.map(view);
    },

    async sessions(
      workspaceId: string,
      sandboxId: string,
      page: { limit?: number; cursor?: string },
    ): Promise<Page<SmtpSession>> {
      await owned(workspaceId, sandboxId);
      const limit = page.limit ?? DEFAULT_PAGE_SIZE;
      const cursor = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
      const rows = await listSmtpSessions(db, sandboxId, limit + 1, cursor);
      return toPage(rows, limit, (r) => ({ at: r.started_at, id: r.id }), toSession);
    },

    /** The sandbox's script, or undefined when it has none (the common case: one map read, no store). */
    script(sandboxId: string): Promise<SmtpFaultScript | undefined> {
      let cached = scripts.get(sandboxId);
      if (cached === undefined) {
        if (scripts.size >= MAX_CACHED_SCRIPTS) scripts.clear();
        cached = load(sandboxId);
        scripts.set(sandboxId, cached);
        // A failed read is not remembered: the next session asks the store again.
        cached.catch(() => scripts.delete(sandboxId));
      }
      return cached;
    },

    /**
     * The step that applies at `stage` (to `address` at rcpt): the first in list order that matches, passes its
     * probability and, if counted, still has a match to spend. Undefined when none does.
     */
    async decide(
      script: SmtpFaultScript,
      stage: SmtpFaultStage,
      address?: string,
    ): Promise<SmtpFaultDecision | undefined> {
      for (const index of candidates(script.steps, stage, address)) {
        const step = script.steps[index] as SmtpFaultStep;
        if (script.spent.has(index)) continue;
        if (step.probability !== undefined && random() >= step.probability) continue;
        if (
          step.times !== undefined &&
          !(await claimFaultStep(db, script.sandboxId, index, script.generation))
        ) {
          script.spent.add(index);
          continue;
        }
        return { index, step, action: actionOf(step) };
      }
      return undefined;
    },

    /** Starts a session's log for a sandbox with a script; older sessions past the newest 200 go. */
    openLog(
      sandboxId: string,
      meta: { listener: 'submission' | 'inbound'; remoteAddress: string | null; startedAt: Date },
      onError: (err: unknown) => void,
    ): SmtpSessionLog {
      const id = newId();
      let chain: Promise<unknown> = insertSmtpSession(db, {
        id,
        sandbox_id: sandboxId,
        listener: meta.listener,
        remote_address: meta.remoteAddress,
        started_at: meta.startedAt,
      }).then(() => trimSmtpSessions(db, sandboxId, SMTP_SESSIONS_KEPT));
      chain = chain.catch(onError);
      return {
        record(events, endedAt) {
          chain = chain.then(() => appendSmtpSessionEvents(db, id, events, endedAt)).catch(onError);
          return chain.then(() => undefined);
        },
      };
    },
  };
}
