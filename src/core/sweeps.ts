// Lifecycle sweeps: remove ephemeral sandboxes past their TTL (their captures go with them) and purge
// captures older than RETENTION_DAYS, then announce the removed sandboxes. Expiry is also checked on every
// use, so a sweep's delay is never visible.
import type { Kysely } from 'kysely';
import type { Clock } from './clock.ts';
import type { EventBus } from './events.ts';
import { sweepExpired } from './store/repos/sweeps.ts';
import type { Database } from './store/schema.ts';

export interface SweepResult {
  /** False when another process held the lock and this run did nothing. */
  ran: boolean;
  expiredSandboxes: number;
  purgedMessages: number;
  purgedRequests: number;
}

export function createSweeper(
  db: Kysely<Database>,
  clock: Clock,
  bus: EventBus,
  options: { retentionDays: number; useAdvisoryLock: boolean },
) {
  return async function sweep(): Promise<SweepResult> {
    const now = clock.now();
    const cutoff = new Date(now.getTime() - options.retentionDays * 86_400_000);
    const swept = await sweepExpired(db, now, cutoff, options.useAdvisoryLock);
    if (swept === undefined) return { ran: false, expiredSandboxes: 0, purgedMessages: 0, purgedRequests: 0 };
    for (const sandboxId of swept.expiredSandboxIds) {
      bus.publish({ kind: 'sandbox_deleted', sandboxId });
      // Live streams read the journaled sandbox.deleted on every process.
      bus.publish({ kind: 'changed', sandboxId, id: sandboxId });
    }
    return {
      ran: true,
      expiredSandboxes: swept.expiredSandboxIds.length,
      purgedMessages: swept.purgedMessages,
      purgedRequests: swept.purgedRequests,
    };
  };
}
