// SQL for the wait marks (migration 021): per sandbox and stream, the newest item a claiming wait handed out.
// Items are ordered as every list orders them, by (received_at, id), so two items of one millisecond still
// have an order.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.ts';

export type WaitStream = 'message' | 'request';

export interface WaitMark {
  at: Date;
  id: string;
}

export async function findWaitMark(
  db: Kysely<Database>,
  sandboxId: string,
  stream: WaitStream,
): Promise<WaitMark | undefined> {
  const row = await db
    .selectFrom('wait_marks')
    .select(['received_at', 'item_id'])
    .where('sandbox_id', '=', sandboxId)
    .where('stream', '=', stream)
    .executeTakeFirst();
  return row === undefined ? undefined : { at: row.received_at, id: row.item_id };
}

/** Moves the mark to `item` unless it already stands at or past it (two processes may race: the newer wins). */
export async function advanceWaitMark(
  db: Kysely<Database>,
  sandboxId: string,
  stream: WaitStream,
  item: WaitMark,
): Promise<void> {
  await db
    .insertInto('wait_marks')
    .values({ sandbox_id: sandboxId, stream, received_at: item.at, item_id: item.id })
    .onConflict((oc) =>
      oc
        .columns(['sandbox_id', 'stream'])
        .doUpdateSet({
          received_at: (eb) => eb.ref('excluded.received_at'),
          item_id: (eb) => eb.ref('excluded.item_id'),
        })
        .where(
          sql<boolean>`(wait_marks.received_at, wait_marks.item_id) < (excluded.received_at, excluded.item_id)`,
        ),
    )
    .execute();
}
