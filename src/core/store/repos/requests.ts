// SQL for captured HTTP requests. Lists never read bodies.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { likePattern, type Cursor } from '../../pagination.ts';
import { setReadFlag } from './readFlag.ts';
import type { Database, NewRequestRow, RequestRow } from '../schema.ts';
import { requestDocument } from '../../search/document.ts';
import type { SearchFilter } from '../../search/query.ts';
import { REQUEST_SEARCH_TEXT } from '../searchIndexes.ts';
import { insertIfSandboxLive, isSandboxDeletedMeanwhile, type TypedColumn } from './insertIfLive.ts';
import { listSource, newestFirst } from './newestFirst.ts';
import { searchMatch } from './searchMatch.ts';
import { preparedLookup, preparedRows } from './prepared.ts';

/** Shorter q's have no trigram to look up: the index cannot narrow them. */
const TRIGRAM_CHARS = 3;

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
  'is_read',
  'traceparent',
] as const;

export type RequestSummaryRow = Pick<RequestRow, (typeof REQUEST_SUMMARY_COLUMNS)[number]>;

export interface RequestToStore {
  row: NewRequestRow & { id: string; sandbox_id: string; received_at: Date };
  /** The sandbox version whose mock rules chose the reply; the row is stored only if it is still current. */
  sandboxVersion: number;
}

/** A row as inserted: with its search document, which the store derives (migration 029). */
type RequestInsert = NewRequestRow & { search_doc: string };

const REQUEST_COLUMNS: ReadonlyArray<TypedColumn<RequestInsert>> = [
  ['id', 'uuid'],
  ['sandbox_id', 'uuid'],
  ['received_at', 'timestamptz'],
  ['method', 'text'],
  ['target', 'text'],
  ['http_version', 'text'],
  ['path', 'text'],
  ['query', 'text'],
  ['headers', 'jsonb'],
  ['body', 'bytea'],
  ['size_bytes', 'bigint'],
  ['source_ip', 'text'],
  ['mock_status_code', 'integer'],
  ['mock_name', 'text'],
  ['redacted_cookies', 'jsonb'],
  ['response_headers', 'jsonb'],
  ['response_body', 'bytea'],
  ['response_size_bytes', 'integer'],
  ['response_note', 'text'],
  ['traceparent', 'text'],
  ['search_doc', 'tsvector'],
];

/** Every column a request is read with: all but the store's derived ones (its search document). */
const REQUEST_ROW_COLUMNS = [
  'id',
  'sandbox_id',
  'received_at',
  'method',
  'target',
  'http_version',
  'path',
  'query',
  'headers',
  'body',
  'size_bytes',
  'source_ip',
  'mock_status_code',
  'mock_name',
  'redacted_cookies',
  'response_headers',
  'response_body',
  'response_size_bytes',
  'response_note',
  'traceparent',
  'is_read',
] as const satisfies ReadonlyArray<keyof RequestRow>;

/**
 * Stores the requests whose sandbox is still live at the version whose rules chose their replies, in one
 * statement (one commit); returns the ids stored.
 */
export async function insertRequestsIfCurrent(
  db: Kysely<Database>,
  items: RequestToStore[],
): Promise<Set<string>> {
  try {
    return await insertIfSandboxLive(
      db,
      'requests',
      REQUEST_COLUMNS,
      items.map((i) => ({ ...i.row, search_doc: requestDocument(i.row) })),
      { versions: items.map((i) => i.sandboxVersion) },
    );
  } catch (err) {
    // Alone, a request whose sandbox was deleted meanwhile is simply not stored; in a batch, the caller
    // retries each request alone to find which.
    if (isSandboxDeletedMeanwhile(err) && items.length === 1) return new Set();
    throw err;
  }
}

export interface RequestListFilter {
  q?: string | undefined;
  isRead?: boolean | undefined;
  /** A parsed `search=` (src/core/search): undefined when it has no terms. */
  search?: SearchFilter | undefined;
}

export async function listRequests(
  db: Kysely<Database>,
  sandboxId: string,
  { q, isRead, search }: RequestListFilter,
  limit: number,
  cursor: Cursor | undefined,
): Promise<RequestSummaryRow[]> {
  // A q the trigram index can serve, or search words the GIN index can, may send the planner there instead
  // of newest-first (newestFirst.ts).
  const match =
    search?.match === undefined
      ? undefined
      : await searchMatch(db, 'requests', search.match, search.required);
  const run = (probeRows: number | undefined) =>
    requestList(db, sandboxId, { q, isRead, search }, limit, cursor, probeRows, match?.conditions).execute();
  // Words the index finds in few rows: read those rows, no try of the newest first (searchMatch.ts).
  if (match?.fewRows === true) return run(undefined);
  if ((q !== undefined && q.length >= TRIGRAM_CHARS) || search?.match !== undefined)
    return newestFirst(limit, run);
  // The page without filters (a stream as it arrives: the dashboard, list tools) has one best plan.
  if (q === undefined && isRead === undefined && search === undefined)
    return preparedRows(
      db,
      cursor === undefined ? 'request_page' : 'request_page_after',
      requestList(db, sandboxId, {}, limit, cursor, undefined),
    );
  return run(undefined);
}

function requestList(
  db: Kysely<Database>,
  sandboxId: string,
  { q, isRead, search }: RequestListFilter,
  limit: number,
  cursor: Cursor | undefined,
  probeRows: number | undefined,
  /** `search.match` as searchMatch gives it (which words the index reads). */
  match?: Array<RawBuilder<boolean>>,
) {
  let query = listSource(db, 'requests', sandboxId, cursor, probeRows)
    .select(REQUEST_SUMMARY_COLUMNS)
    .where('sandbox_id', '=', sandboxId);
  if (isRead !== undefined) query = query.where('is_read', '=', isRead);
  if (q !== undefined) {
    const like = likePattern(q);
    // Implied by the fields' match below; lets the trigram index find the candidates.
    if (q.length >= TRIGRAM_CHARS) query = query.where(REQUEST_SEARCH_TEXT, 'ilike', like);
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
  if (search !== undefined) {
    // The meaning of each is in src/core/search/query.ts; has:attachment is refused for requests.
    if (search.nothing === true) query = query.where(sql<boolean>`false`);
    if (search.match !== undefined)
      for (const condition of match ?? [sql<boolean>`requests.search_doc @@ ${search.match}::tsquery`])
        query = query.where(condition);
    if (search.isRead !== undefined) query = query.where('is_read', '=', search.isRead);
    if (search.receivedFrom !== undefined) query = query.where('received_at', '>=', search.receivedFrom);
    if (search.receivedBefore !== undefined) query = query.where('received_at', '<', search.receivedBefore);
  }
  if (cursor !== undefined) {
    query = query.where((eb) => eb(eb.refTuple('received_at', 'id'), '<', eb.tuple(cursor.at, cursor.id)));
  }
  return query.orderBy('received_at', 'desc').orderBy('id', 'desc').limit(limit);
}

export async function findRequest(
  db: Kysely<Database>,
  sandboxId: string,
  id: string,
): Promise<RequestRow | undefined> {
  return preparedLookup(
    db,
    'request',
    db
      .selectFrom('requests')
      .select(REQUEST_ROW_COLUMNS)
      .where('sandbox_id', '=', sandboxId)
      .where('id', '=', id),
  );
}

/** The read flag of one request; see setReadFlag. */
export const setRequestRead = (
  db: Kysely<Database>,
  sandboxId: string,
  id: string,
  isRead: boolean,
  onlyIf?: boolean,
): Promise<boolean> => setReadFlag(db, 'requests', sandboxId, id, isRead, onlyIf);

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
  isRead?: boolean | undefined;
  id?: string | undefined;
  /** Only requests after this one in list order (a wait's mark, migration 021). */
  newerThan?: { at: Date; id: string } | undefined;
}

/** A sandbox's requests narrowed by a wait's filter (method exact, path substring), newest first. */
function matchingRequests(db: Kysely<Database>, sandboxId: string, filter: RequestWaitFilter) {
  let q = db.selectFrom('requests').where('sandbox_id', '=', sandboxId);
  if (filter.method !== undefined) q = q.where('method', '=', filter.method);
  if (filter.pathContains !== undefined) q = q.where('path', 'like', likePattern(filter.pathContains));
  if (filter.since !== undefined) q = q.where('received_at', '>=', filter.since);
  if (filter.isRead !== undefined) q = q.where('is_read', '=', filter.isRead);
  if (filter.id !== undefined) q = q.where('id', '=', filter.id);
  const mark = filter.newerThan;
  if (mark !== undefined) {
    q = q.where((eb) => eb(eb.refTuple('received_at', 'id'), '>', eb.tuple(mark.at, mark.id)));
  }
  return q.orderBy('received_at', 'desc').orderBy('id', 'desc');
}

/** The newest request matching a wait's filter (method exact, path substring), body included. */
export async function findNewestMatchingRequest(
  db: Kysely<Database>,
  sandboxId: string,
  filter: RequestWaitFilter,
): Promise<RequestRow | undefined> {
  return matchingRequests(db, sandboxId, filter).select(REQUEST_ROW_COLUMNS).limit(1).executeTakeFirst();
}

/** The newest `limit` requests matching a wait's filter, without bodies (expectations count them). */
export async function listMatchingRequests(
  db: Kysely<Database>,
  sandboxId: string,
  filter: RequestWaitFilter,
  limit: number,
): Promise<RequestSummaryRow[]> {
  return matchingRequests(db, sandboxId, filter).select(REQUEST_SUMMARY_COLUMNS).limit(limit).execute();
}

/** A page of a sandbox's requests for export, oldest first after `after`, bodies included. */
export async function requestsForExport(
  db: Kysely<Database>,
  sandboxId: string,
  limit: number,
  after: Cursor | undefined,
): Promise<RequestRow[]> {
  let q = db.selectFrom('requests').select(REQUEST_ROW_COLUMNS).where('sandbox_id', '=', sandboxId);
  if (after !== undefined) {
    q = q.where((eb) => eb(eb.refTuple('received_at', 'id'), '>', eb.tuple(after.at, after.id)));
  }
  return q.orderBy('received_at', 'asc').orderBy('id', 'asc').limit(limit).execute();
}
