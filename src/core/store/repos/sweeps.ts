// The SQL of one lifecycle sweep, in one transaction: expired ephemeral sandboxes (their captures cascade) and
// captures past retention. On PostgreSQL a transaction-scoped advisory lock lets one process sweep at a time.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { insertChangeEvent } from './liveEvents.ts';
import { insertTombstones, pruneTombstones } from './tombstones.ts';

/** Arbitrary constant naming sandtrap's sweep lock among other users of advisory locks. */
const SWEEP_LOCK_KEY = 0x5a7d_7a9;

export interface SweptRows {
  expiredSandboxIds: string[];
  purgedMessages: number;
  purgedRequests: number;
}

/**
 * Runs `work` in one transaction holding the sweep lock (on PostgreSQL), so one process at a time does a sweep's
 * share; undefined when another process holds it (nothing was done).
 */
export async function withSweepLock<T>(
  db: Kysely<Database>,
  useAdvisoryLock: boolean,
  work: (trx: Kysely<Database>) => Promise<T>,
): Promise<T | undefined> {
  return db.transaction().execute(async (trx) => {
    if (useAdvisoryLock) {
      const lock = await sql<{
        ok: boolean;
      }>`select pg_try_advisory_xact_lock(${SWEEP_LOCK_KEY}) as ok`.execute(trx);
      if (lock.rows[0]?.ok !== true) return undefined;
    }
    return work(trx);
  });
}

/** undefined when another process holds the sweep lock (nothing was done). */
export async function sweepExpired(
  db: Kysely<Database>,
  now: Date,
  retentionCutoff: Date,
  useAdvisoryLock: boolean,
): Promise<SweptRows | undefined> {
  return withSweepLock(db, useAdvisoryLock, async (trx) => {
    const expired = await trx
      .deleteFrom('sandboxes')
      .where('expires_at', 'is not', null)
      .where('expires_at', '<=', now)
      .returning(['id', 'workspace_id', 'expires_at'])
      .execute();
    // Remembered for a day, so a read or a wait can say the sandbox expired rather than that it never was.
    await insertTombstones(
      trx,
      expired.map((r) => ({
        id: r.id,
        workspaceId: r.workspace_id,
        reason: 'expired',
        endedAt: r.expires_at ?? now,
      })),
    );
    await pruneTombstones(trx, now);
    // An expiry is a deletion for the live streams too, journaled in the same transaction as a DELETE call's.
    for (const { id, workspace_id } of expired) {
      await insertChangeEvent(trx, {
        sandboxId: id,
        workspaceId: workspace_id,
        kind: 'sandbox.deleted',
        data: { id, sandboxId: id },
      });
    }
    const messages = await trx
      .deleteFrom('messages')
      .where('received_at', '<', retentionCutoff)
      .executeTakeFirst();
    const requests = await trx
      .deleteFrom('requests')
      .where('received_at', '<', retentionCutoff)
      .executeTakeFirst();
    return {
      expiredSandboxIds: expired.map((r) => r.id),
      purgedMessages: Number(messages.numDeletedRows),
      purgedRequests: Number(requests.numDeletedRows),
    };
  });
}
