// Search lists that stay fast when the planner's statistics are stale: the newest rows are tried first
// (store map: src/core/store/README.md).
import type { Kysely, RawBuilder, SelectQueryBuilder } from 'kysely';
import type { Cursor } from '../../pagination.ts';
import type { Database } from '../schema.ts';

type ListTable = 'messages' | 'requests';

/**
 * The newest rows tried before the indexed query: enough to fill a page when a term is in a fifth of the
 * rows or more, few enough that a rare term pays about a millisecond for the try.
 */
export function probeRowsFor(limit: number): number {
  return Math.max(250, limit * 5);
}

/**
 * The newest candidates an index condition finds, tried before all of them: a prefix of an identifier ("order
 * 123") finds every word after the same separator that starts with it, and the per-field match is the costly
 * part of the query, so a page is matched from its newest candidates first. Enough for a page when one candidate
 * in twenty matches. Figures: the 3-digit prefix rows of bench/list.ts (store map: src/core/store/README.md).
 */
export function candidateRowsFor(limit: number): number {
  return Math.max(1000, limit * 20);
}

/**
 * Rows of `table` to filter: the table, or (probe) only its `probeRows` newest rows of the sandbox after the
 * cursor (of those that meet `candidates`, when given), under the table's own name so that filters read the same.
 */
export function listSource<T extends ListTable>(
  db: Kysely<Database>,
  table: T,
  sandboxId: string,
  cursor: Cursor | undefined,
  probeRows: number | undefined,
  /** Only the newest `probeRows` rows that meet this (an index's condition): see `candidateRowsFor`. */
  candidates?: RawBuilder<boolean>,
): SelectQueryBuilder<Database, T, object> {
  // kysely: selectFrom's result type for a type parameter T stays an unresolved conditional, so it is restated.
  const whole = db.selectFrom(table as ListTable) as unknown as SelectQueryBuilder<Database, T, object>;
  if (probeRows === undefined) return whole;
  let newest = db
    .selectFrom(table as ListTable)
    .selectAll()
    .where('sandbox_id', '=', sandboxId);
  if (cursor !== undefined)
    newest = newest.where((eb) => eb(eb.refTuple('received_at', 'id'), '<', eb.tuple(cursor.at, cursor.id)));
  if (candidates !== undefined) newest = newest.where(candidates);
  // The derived table has exactly the table's columns (postgres drops the ones the list does not read); the
  // cast is kysely's, as above.
  return db.selectFrom(
    newest
      .orderBy('received_at', 'desc')
      .orderBy('id', 'desc')
      .limit(probeRows)
      .as(table as ListTable),
  ) as unknown as SelectQueryBuilder<Database, T, object>;
}

/**
 * A search that could match most rows of a sandbox is answered from its newest rows when they fill the page;
 * only a rarer one runs the indexed query. The planner picks between the search indexes and a newest-first
 * scan by its statistics, and right after a sandbox fills (before autovacuum's next analyze on PostgreSQL) it
 * takes a common word for a rare one and reads every match: 160-180 ms at 100,000 messages against 2-8 ms. The
 * first `limit` matches among the newest rows are the page's rows whatever the rest holds, so either way the
 * answer is the same.
 */
export async function newestFirst<R>(
  limit: number,
  run: (probeRows: number | undefined) => Promise<R[]>,
  probeRows = probeRowsFor(limit),
): Promise<R[]> {
  const newest = await run(probeRows);
  return newest.length >= limit ? newest : run(undefined);
}
