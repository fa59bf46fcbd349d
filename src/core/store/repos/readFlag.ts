// The read flag of a captured item (mail or request), shared by both streams: PATCH sets it, waits claim with it.
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

/**
 * Sets the read flag; with `onlyIf`, only while the flag still has that value, so of two claims of one item
 * exactly one changes it. True when a row changed (or, without `onlyIf`, exists).
 */
export async function setReadFlag(
  db: Kysely<Database>,
  table: 'messages' | 'requests',
  sandboxId: string,
  id: string,
  isRead: boolean,
  onlyIf?: boolean,
): Promise<boolean> {
  let q = db
    .updateTable(table)
    .set({ is_read: isRead })
    .where('sandbox_id', '=', sandboxId)
    .where('id', '=', id);
  if (onlyIf !== undefined) q = q.where('is_read', '=', onlyIf);
  const res = await q.executeTakeFirst();
  return res.numUpdatedRows > 0n;
}
