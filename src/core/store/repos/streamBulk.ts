// SQL for acting on many captured items of one stream at once (dashboard bulk actions) and for a sandbox's
// activity counts; both streams share it, as they share the read flag.
import { sql, type Kysely } from 'kysely';
import type { Cursor } from '../../pagination.ts';
import type { Database } from '../schema.ts';

export type StreamTable = 'messages' | 'requests';

/** Which items of a stream a bulk action takes: the ids given, or those up to a position, or both (AND). */
export interface BulkSelection {
  ids?: readonly string[] | undefined;
  /** Items at or before this position in list order (received_at, id). */
  upTo?: Cursor | undefined;
}

/** The list position of one item, or undefined when it is not in this sandbox's stream. */
export async function itemPosition(
  db: Kysely<Database>,
  table: StreamTable,
  sandboxId: string,
  id: string,
): Promise<Cursor | undefined> {
  const row = await db
    .selectFrom(table)
    .select(['received_at', 'id'])
    .where('sandbox_id', '=', sandboxId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row === undefined ? undefined : { at: row.received_at, id: row.id };
}

/** Sets the read flag of the selected items whose flag differs; returns the ids changed. */
export async function setReadMany(
  db: Kysely<Database>,
  table: StreamTable,
  sandboxId: string,
  selection: BulkSelection,
  isRead: boolean,
): Promise<string[]> {
  let q = db
    .updateTable(table)
    .set({ is_read: isRead })
    .where('sandbox_id', '=', sandboxId)
    .where('is_read', '=', !isRead);
  if (selection.ids !== undefined) q = q.where('id', 'in', [...selection.ids]);
  const upTo = selection.upTo;
  if (upTo !== undefined) {
    q = q.where((eb) => eb(eb.refTuple('received_at', 'id'), '<=', eb.tuple(upTo.at, upTo.id)));
  }
  const rows = await q.returning('id').execute();
  return rows.map((r) => r.id);
}

/** Deletes the selected items; returns the ids deleted. */
export async function deleteMany(
  db: Kysely<Database>,
  table: StreamTable,
  sandboxId: string,
  selection: BulkSelection,
): Promise<string[]> {
  let q = db.deleteFrom(table).where('sandbox_id', '=', sandboxId);
  if (selection.ids !== undefined) q = q.where('id', 'in', [...selection.ids]);
  const upTo = selection.upTo;
  if (upTo !== undefined) {
    q = q.where((eb) => eb(eb.refTuple('received_at', 'id'), '<=', eb.tuple(upTo.at, upTo.id)));
  }
  const rows = await q.returning('id').execute();
  return rows.map((r) => r.id);
}

/** Whether the stream still holds any item of the sandbox. */
export async function streamHasItems(
  db: Kysely<Database>,
  table: StreamTable,
  sandboxId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom(table)
    .select(sql<number>`1`.as('one'))
    .where('sandbox_id', '=', sandboxId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export interface StreamCounts {
  /** Counted up to the cap given: a count equal to the cap means "at least". */
  total: number;
  unread: number;
  lastReceivedAt: Date | null;
}

/**
 * A sandbox's counts in both streams, each count stopping at `cap` so a sandbox of a million captures costs
 * the same as one of `cap` (the unread count reads the partial `*_unread` indexes).
 */
export async function streamCounts(
  db: Kysely<Database>,
  sandboxId: string,
  cap: number,
): Promise<Record<StreamTable, StreamCounts>> {
  const result = await sql<{
    m_total: string;
    m_unread: string;
    m_last: Date | null;
    r_total: string;
    r_unread: string;
    r_last: Date | null;
  }>`
    select
      (select count(*) from (select 1 from messages where sandbox_id = ${sandboxId} limit ${cap}) a)::text as m_total,
      (select count(*) from (select 1 from messages where sandbox_id = ${sandboxId} and is_read = false limit ${cap}) b)::text as m_unread,
      (select received_at from messages where sandbox_id = ${sandboxId} order by received_at desc, id desc limit 1) as m_last,
      (select count(*) from (select 1 from requests where sandbox_id = ${sandboxId} limit ${cap}) c)::text as r_total,
      (select count(*) from (select 1 from requests where sandbox_id = ${sandboxId} and is_read = false limit ${cap}) d)::text as r_unread,
      (select received_at from requests where sandbox_id = ${sandboxId} order by received_at desc, id desc limit 1) as r_last
  `.execute(db);
  const r = result.rows[0];
  if (r === undefined) throw new Error('the counts query returned no row');
  const at = (v: Date | string | null) => (v === null ? null : new Date(v));
  return {
    messages: { total: Number(r.m_total), unread: Number(r.m_unread), lastReceivedAt: at(r.m_last) },
    requests: { total: Number(r.r_total), unread: Number(r.r_unread), lastReceivedAt: at(r.r_last) },
  };
}
