// SQL for captured HTTP requests. Lists never read bodies.
import { sql, type Kysely } from 'kysely';
import { likePattern, type Cursor } from '../../pagination.ts';
import type { Database, NewRequestRow, RequestRow } from '../schema.ts';

export const REQUEST_SUMMARY_COLUMNS = [
  'id',
  'received_at',
  'method',
  'path',
  'query',
  'mock_status_code',
  'mock_name',
  'source_ip',
  'size_bytes',
] as const;

export type RequestSummaryRow = Pick<RequestRow, (typeof REQUEST_SUMMARY_COLUMNS)[number]>;

export async function insertRequest(db: Kysely<Database>, row: NewRequestRow): Promise<boolean> {
  try {
    await db.insertInto('requests').values(row).execute();
    return true;
  } catch (err) {
    // The sandbox was deleted between admission and commit.
    if ((err as { code?: string }).code === '23503') return false;
    throw err;
  }
}

export async function listRequests(
  db: Kysely<Database>,
  sandboxId: string,
  q: string | undefined,
  limit: number,
  cursor: Cursor | undefined,
): Promise<RequestSummaryRow[]> {
  let query = db.selectFrom('requests').select(REQUEST_SUMMARY_COLUMNS).where('sandbox_id', '=', sandboxId);
  if (q !== undefined) {
    const like = likePattern(q);
    query = query.where((eb) =>
      eb.or([
        eb('method', 'ilike', like),
        eb('path', 'ilike', like),
        eb('query', 'ilike', like),
        eb(sql<string>`mock_status_code::text`, 'ilike', like),
        eb('mock_name', 'ilike', like),
      ]),
    );
  }
  if (cursor !== undefined) {
    query = query.where((eb) => eb(eb.refTuple('received_at', 'id'), '<', eb.tuple(cursor.at, cursor.id)));
  }
  return query.orderBy('received_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function findRequest(
  db: Kysely<Database>,
  sandboxId: string,
  id: string,
): Promise<RequestRow | undefined> {
  return db
    .selectFrom('requests')
    .selectAll()
    .where('sandbox_id', '=', sandboxId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function deleteRequest(db: Kysely<Database>, sandboxId: string, id: string): Promise<boolean> {
  const res = await db
    .deleteFrom('requests')
    .where('sandbox_id', '=', sandboxId)
    .where('id', '=', id)
    .executeTakeFirst();
  return res.numDeletedRows > 0n;
}

export async function clearRequests(db: Kysely<Database>, sandboxId: string): Promise<void> {
  await db.deleteFrom('requests').where('sandbox_id', '=', sandboxId).execute();
}

export interface RequestWaitFilter {
  method?: string | undefined;
  pathContains?: string | undefined;
  since?: Date | undefined;
  id?: string | undefined;
}

/** The newest request matching a wait's filter (method exact, path substring), body included. */
export async function findNewestMatchingRequest(
  db: Kysely<Database>,
  sandboxId: string,
  filter: RequestWaitFilter,
): Promise<RequestRow | undefined> {
  let q = db.selectFrom('requests').selectAll().where('sandbox_id', '=', sandboxId);
  if (filter.method !== undefined) q = q.where('method', '=', filter.method);
  if (filter.pathContains !== undefined) q = q.where('path', 'like', likePattern(filter.pathContains));
  if (filter.since !== undefined) q = q.where('received_at', '>=', filter.since);
  if (filter.id !== undefined) q = q.where('id', '=', filter.id);
  return q.orderBy('received_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
}
