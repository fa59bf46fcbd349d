// SQL for sandbox tombstones (migration 021): an expired or deleted sandbox is remembered for a day, so reads
// and waits can say what happened to it.
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

export const TOMBSTONE_DAYS = 1;

export interface Tombstone {
  reason: 'expired' | 'deleted';
  endedAt: Date;
}

export async function insertTombstones(
  db: Kysely<Database>,
  rows: ReadonlyArray<{ id: string; workspaceId: string; reason: Tombstone['reason']; endedAt: Date }>,
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('sandbox_tombstones')
    .values(
      rows.map((r) => ({ id: r.id, workspace_id: r.workspaceId, reason: r.reason, ended_at: r.endedAt })),
    )
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

export async function findTombstone(
  db: Kysely<Database>,
  workspaceId: string,
  id: string,
): Promise<Tombstone | undefined> {
  const row = await db
    .selectFrom('sandbox_tombstones')
    .select(['reason', 'ended_at'])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row === undefined ? undefined : { reason: row.reason, endedAt: row.ended_at };
}

/** Tombstones older than a day go (called by the sweep). */
export async function pruneTombstones(db: Kysely<Database>, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - TOMBSTONE_DAYS * 86_400_000);
  const res = await db.deleteFrom('sandbox_tombstones').where('ended_at', '<', cutoff).executeTakeFirst();
  return Number(res.numDeletedRows);
}
