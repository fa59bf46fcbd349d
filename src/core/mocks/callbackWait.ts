// Long-poll wait for a rule's callback to reach an outcome (delivered, failed for good, or any attempt), so a
// test or agent can say "the payment webhook reached my app" without polling: the newest matching callback
// that already has the outcome answers at once, else the wait looks again whenever a callback of the sandbox is
// attempted (on any process: the bus carries it), and at the timeout answers nothing.
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Clock } from '../clock.ts';
import type { EventBus } from '../events.ts';
import type { SandboxService } from '../sandboxes.ts';
import { textMax, uuid } from '../schemas.ts';
import { findCallbackWithOutcome, type CallbackOutcome } from '../store/repos/webhooks.ts';
import type { Database, WebhookOutboxRow } from '../store/schema.ts';
import { parseInput } from '../validation.ts';

/** A notification lost with a process's listening connection is caught by looking this often anyway. */
const RECHECK_MS = 2_000;

export const callbackWaitQuery = z.object({
  ruleId: textMax(64).optional(),
  requestId: uuid.optional(),
  outcome: z.enum(['delivered', 'failed', 'attempted']).default('delivered'),
  timeoutSeconds: z.coerce.number().int().min(0).max(300).default(30),
});

export interface CallbackWaitOptions {
  signal?: AbortSignal | undefined;
  /** Counts against this key's open waits (one cap with message and request waits). */
  keyId?: string | undefined;
}

export function createCallbackWaits<T>(
  db: Kysely<Database>,
  bus: EventBus,
  clock: Clock,
  sandboxes: SandboxService,
  /** The callback as callers see it, with its attempts. */
  present: (row: WebhookOutboxRow) => Promise<T>,
  /** Counts the wait against its key's open waits (waits.ts): one cap for every kind of wait. */
  acquire: (keyId: string | undefined) => () => void,
) {
  /** The callback once it has the outcome; undefined at the timeout. Not found once the sandbox is gone. */
  async function wait(
    workspaceId: string,
    id: string,
    query: unknown,
    options: CallbackWaitOptions = {},
  ): Promise<T | undefined> {
    const q = parseInput(callbackWaitQuery, query, 'query string');
    const sandbox = await sandboxes.get(workspaceId, id);
    const release = acquire(options.keyId);
    const outcome: CallbackOutcome = q.outcome;
    const filter = { ruleId: q.ruleId, requestId: q.requestId };
    let wake: () => void = () => {};
    let woken = false;
    // Subscribed before the first look, so no attempt falls in between.
    const unsubscribe = [
      bus.subscribeAll((e) => {
        if ((e.kind === 'callback' || e.kind === 'sandbox_deleted') && e.sandboxId === sandbox.id) {
          woken = true;
          wake();
        }
      }),
      bus.subscribeResync(() => {
        woken = true;
        wake();
      }),
    ];
    const deadline = clock.now().getTime() + q.timeoutSeconds * 1000;
    try {
      for (;;) {
        woken = false;
        // Ends with the sandbox's 404 (deleted or expired) like every sandbox route.
        await sandboxes.get(workspaceId, sandbox.id);
        const row = await findCallbackWithOutcome(db, sandbox.id, filter, outcome);
        if (row !== undefined) return await present(row);
        const left = deadline - clock.now().getTime();
        if (left <= 0 || options.signal?.aborted === true) return undefined;
        if (woken) continue;
        const expiresIn =
          sandbox.expiresAt === null ? Infinity : sandbox.expiresAt.getTime() - clock.now().getTime();
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, Math.max(0, Math.min(left, RECHECK_MS, expiresIn)));
          function done(): void {
            clearTimeout(timer);
            options.signal?.removeEventListener('abort', done);
            wake = () => {};
            resolve();
          }
          wake = done;
          options.signal?.addEventListener('abort', done);
        });
      }
    } finally {
      for (const off of unsubscribe) off();
      release();
    }
  }

  return { wait };
}
