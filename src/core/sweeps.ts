// Lifecycle sweeps: remove ephemeral sandboxes past their TTL (their captures go with them) and purge
// captures older than RETENTION_DAYS. On PostgreSQL a transaction-scoped advisory lock lets one process
// sweep at a time; expiry is also checked on every use, so a sweep's delay is never visible.
import { sql, type Kysely } from 'kysely';
import type { Clock } from './clock.ts';
import type { EventBus } from './events.ts';
import type { Database } from './store/schema.ts';

/** Arbitrary constant naming sandtrap's sweep lock among other users of advisory locks. */
const SWEEP_LOCK_KEY = 0x5a7d_7a9;

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
    const result = await db.transaction().execute(async (trx) => {
      if (options.useAdvisoryLock) {
        const lock = await sql<{
          ok: boolean;
        }>`select pg_try_advisory_xact_lock(${SWEEP_LOCK_KEY}) as ok`.execute(trx);
        if (lock.rows[0]?.ok !== true) return undefined;
      }
      const expired = await trx
        .deleteFrom('sandboxes')
        .where('expires_at', 'is not', null)
        .where('expires_at', '<=', now)
        .returning('id')
        .execute();
      const messages = await trx.deleteFrom('messages').where('received_at', '<', cutoff).executeTakeFirst();
      const requests = await trx.deleteFrom('requests').where('received_at', '<', cutoff).executeTakeFirst();
      return {
        ids: expired.map((r) => r.id),
        purgedMessages: Number(messages.numDeletedRows),
        purgedRequests: Number(requests.numDeletedRows),
      };
    });
    if (result === undefined)
      return { ran: false, expiredSandboxes: 0, purgedMessages: 0, purgedRequests: 0 };
    for (const sandboxId of result.ids) bus.publish({ kind: 'sandbox_deleted', sandboxId });
    return {
      ran: true,
      expiredSandboxes: result.ids.length,
      purgedMessages: result.purgedMessages,
      purgedRequests: result.purgedRequests,
    };
  };
}
