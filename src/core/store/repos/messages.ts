// SQL for captured messages. Lists never read the raw source or bodies.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { likePattern, type Cursor } from '../../pagination.ts';
import { messageDocument } from '../../search/document.ts';
import type { SearchFilter } from '../../search/query.ts';
import { setReadFlag } from './readFlag.ts';
import type { Database, MessageRow, NewMessageRow } from '../schema.ts';
import {
  capturedForContains,
  MESSAGE_SEARCH_TEXT,
  messageSearchWords,
  searchTextApplies,
  searchWordsAreShortPrefixes,
  searchWordsQuery,
} from '../searchIndexes.ts';
import {
  insertIfSandboxLive,
  isSandboxDeletedMeanwhile,
  type LiveRow,
  type TypedColumn,
} from './insertIfLive.ts';
import { candidateRowsFor, listSource, newestFirst } from './newestFirst.ts';
import { searchMatch } from './searchMatch.ts';
import { preparedLookup, preparedRows } from './prepared.ts';

export const SUMMARY_COLUMNS = [
  'id',
  'sandbox_id',
  'received_at',
  'from_header',
  'to_addrs',
  'captured_for',
  'subject',
  'preview',
  'attachment_count',
  'size_bytes',
  'is_read',
  'traceparent',
] as const;

export type MessageSummaryRow = Pick<MessageRow, (typeof SUMMARY_COLUMNS)[number]>;
export type MessageDetailRow = Pick<MessageRow, (typeof DETAIL_COLUMNS)[number]>;

export interface MessageFilter {
  q?: string | undefined;
  subjectContains?: string | undefined;
  fromContains?: string | undefined;
  /** Only this message (a wait checking one arrival). */
  id?: string | undefined;
  capturedFor?: string | undefined;
  since?: Date | undefined;
  isRead?: boolean | undefined;
  /** Only messages after this one in list order (a wait's mark, migration 021). */
  newerThan?: { at: Date; id: string } | undefined;
  /** A parsed `search=` (src/core/search): undefined when it has no terms. */
  search?: SearchFilter | undefined;
}

/**
 * Every field of MessageFilter (the type makes a new one be listed): callers may pass more (a parsed query
 * string), which filter nothing.
 */
const FILTER_FIELDS = Object.keys({
  q: true,
  subjectContains: true,
  fromContains: true,
  id: true,
  capturedFor: true,
  since: true,
  isRead: true,
  newerThan: true,
  search: true,
} satisfies Record<keyof MessageFilter, true>) as Array<keyof MessageFilter>;

/** A row as inserted: with its search words and document, which the store derives (migrations 013, 028). */
type MessageInsert = NewMessageRow & LiveRow & { search_words: string; search_doc: string };

const MESSAGE_COLUMNS: ReadonlyArray<TypedColumn<MessageInsert>> = [
  ['id', 'uuid'],
  ['sandbox_id', 'uuid'],
  ['received_at', 'timestamptz'],
  ['envelope_from', 'text'],
  ['from_header', 'text'],
  ['to_addrs', 'jsonb'],
  ['captured_for', 'jsonb'],
  ['subject', 'text'],
  ['preview', 'text'],
  ['text_body', 'text'],
  ['html_body', 'text'],
  ['headers', 'jsonb'],
  ['attachments', 'jsonb'],
  ['attachment_count', 'integer'],
  ['size_bytes', 'bigint'],
  ['raw', 'bytea'],
  ['parse_error', 'text'],
  ['search_words', 'tsvector'],
  ['traceparent', 'text'],
  ['search_doc', 'tsvector'],
];

/** Rows per statement: 20 parameters each stays far below PostgreSQL's 65,535 bind parameters. */
const INSERT_CHUNK = 1000;

/**
 * Stores the message rows whose sandbox is still live, all or none (one statement, or one transaction when
 * there are more rows than one statement takes); returns the ids stored. A sandbox deleted while this ran
 * is excluded by trying again.
 */
export async function insertMessagesIfLive(
  db: Kysely<Database>,
  messages: Array<NewMessageRow & LiveRow>,
): Promise<Set<string>> {
  const rows: MessageInsert[] = messages.map((row) => ({
    ...row,
    search_words: messageSearchWords(row),
    search_doc: messageDocument(row),
  }));
  for (let attempt = 0; ; attempt++) {
    try {
      if (rows.length <= INSERT_CHUNK)
        return await insertIfSandboxLive(db, 'messages', MESSAGE_COLUMNS, rows);
      return await db.transaction().execute(async (trx) => {
        const stored = new Set<string>();
        for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
          const chunk = rows.slice(i, i + INSERT_CHUNK);
          for (const id of await insertIfSandboxLive(trx, 'messages', MESSAGE_COLUMNS, chunk)) stored.add(id);
        }
        return stored;
      });
    } catch (err) {
      if (!isSandboxDeletedMeanwhile(err) || attempt >= 2) throw err;
    }
  }
}

/**
 * How a list is read, by the kind of filter (store map: src/core/store/README.md):
 * - `page`: no filter, the stream as it arrives (dashboard, list tools): one best plan, prepared.
 * - `newest`: a filter the planner may answer from a search index instead of newest-first (a recipient, a `q`
 *   on the trigram index): the sandbox's newest rows are tried first (newestFirst.ts), since stale statistics
 *   after a burst make the planner read every match of a common word.
 * - `candidates`: a `q` whose words are short identifier prefixes ("Order #123"): its newest word-index
 *   candidates are matched first (candidateRowsFor).
 * - `planned`: everything else (one message by id, a long identifier, subject/from filters): the planner's plan.
 *   Identifiers are rare by design, and a try of the newest rows only doubled their cost (bench/list.ts).
 */
type ListStrategy = 'page' | 'newest' | 'candidates' | 'planned';

export function messageListStrategy(filter: MessageFilter): ListStrategy {
  if (FILTER_FIELDS.every((field) => filter[field] === undefined)) return 'page';
  if (filter.id !== undefined) return 'planned';
  // A word may be in most mail ("order") or in none: its GIN candidates are read only when the newest rows
  // do not fill the page.
  if (filter.search?.match !== undefined) return 'newest';
  const q = filter.q;
  const trigramQ = q !== undefined && searchTextApplies(q) && searchWordsQuery(q) === undefined;
  if (filter.capturedFor !== undefined || trigramQ) return 'newest';
  if (q !== undefined && searchWordsAreShortPrefixes(q)) return 'candidates';
  return 'planned';
}

export async function listMessages(
  db: Kysely<Database>,
  sandboxId: string,
  filter: MessageFilter,
  limit: number,
  cursor: Cursor | undefined,
): Promise<MessageSummaryRow[]> {
  const match =
    filter.search?.match === undefined
      ? undefined
      : await searchMatch(db, 'messages', filter.search.match, filter.search.required);
  const run = (probeRows: number | undefined, candidates?: RawBuilder<boolean>) =>
    messageList(db, sandboxId, filter, limit, cursor, probeRows, candidates, match?.conditions).execute();
  // Words the index finds in few rows: read those rows, no try of the newest first (searchMatch.ts).
  if (match?.fewRows === true) return run(undefined);
  switch (messageListStrategy(filter)) {
    case 'page':
      return preparedRows(
        db,
        cursor === undefined ? 'message_page' : 'message_page_after',
        messageList(db, sandboxId, filter, limit, cursor, undefined),
      );
    case 'newest':
      return newestFirst(limit, run);
    case 'candidates': {
      const candidates = sql<boolean>`messages.search_words @@ ${searchWordsQuery(filter.q as string)}::tsquery`;
      return newestFirst(limit, (probeRows) => run(probeRows, candidates), candidateRowsFor(limit));
    }
    case 'planned':
      return run(undefined);
  }
}

function messageList(
  db: Kysely<Database>,
  sandboxId: string,
  filter: MessageFilter,
  limit: number,
  cursor: Cursor | undefined,
  probeRows: number | undefined,
  candidates?: RawBuilder<boolean>,
  /** `filter.search.match` as searchMatch gives it (which words the index reads). */
  match?: Array<RawBuilder<boolean>>,
) {
  let q = listSource(db, 'messages', sandboxId, cursor, probeRows, candidates)
    .select(SUMMARY_COLUMNS)
    .where('sandbox_id', '=', sandboxId);
  if (filter.q !== undefined) {
    const like = likePattern(filter.q);
    // Implied by the fields' match below; lets the word or the trigram index find the candidates (one of
    // them: the planner's estimates for both are rough and it would read both).
    const words = searchWordsQuery(filter.q);
    if (words !== undefined) q = q.where(sql<boolean>`messages.search_words @@ ${words}::tsquery`);
    else if (searchTextApplies(filter.q)) q = q.where(MESSAGE_SEARCH_TEXT, 'ilike', like);
    q = q.where((eb) =>
      eb.or([
        eb('subject', 'ilike', like),
        eb('from_header', 'ilike', like),
        eb('preview', 'ilike', like),
        eb.exists(
          sql`(select 1 from jsonb_array_elements_text(messages.to_addrs) as t(v) where t.v ilike ${like})`,
        ),
        eb.exists(
          sql`(select 1 from jsonb_array_elements_text(messages.captured_for) as c(v) where c.v ilike ${like})`,
        ),
      ]),
    );
  }
  if (filter.capturedFor !== undefined) {
    const address = filter.capturedFor;
    q = q.where(capturedForContains(address));
    q = q.where(({ exists }) =>
      exists(
        sql`(select 1 from jsonb_array_elements_text(messages.captured_for) as a(v) where lower(a.v) = lower(${address}))`,
      ),
    );
  }
  if (filter.subjectContains !== undefined)
    q = q.where('subject', 'ilike', likePattern(filter.subjectContains));
  if (filter.fromContains !== undefined)
    q = q.where('from_header', 'ilike', likePattern(filter.fromContains));
  if (filter.id !== undefined) q = q.where('id', '=', filter.id);
  const search = filter.search;
  if (search !== undefined) {
    // The meaning of each is in src/core/search/query.ts.
    if (search.nothing === true) q = q.where(sql<boolean>`false`);
    if (search.match !== undefined)
      for (const condition of match ?? [sql<boolean>`messages.search_doc @@ ${search.match}::tsquery`])
        q = q.where(condition);
    if (search.hasAttachment !== undefined)
      q = q.where('attachment_count', search.hasAttachment ? '>' : '=', 0);
    if (search.isRead !== undefined) q = q.where('is_read', '=', search.isRead);
    if (search.receivedFrom !== undefined) q = q.where('received_at', '>=', search.receivedFrom);
    if (search.receivedBefore !== undefined) q = q.where('received_at', '<', search.receivedBefore);
  }
  if (filter.since !== undefined) q = q.where('received_at', '>=', filter.since);
  if (filter.isRead !== undefined) q = q.where('is_read', '=', filter.isRead);
  const mark = filter.newerThan;
  if (mark !== undefined) {
    q = q.where((eb) => eb(eb.refTuple('received_at', 'id'), '>', eb.tuple(mark.at, mark.id)));
  }
  if (cursor !== undefined) {
    q = q.where((eb) => eb(eb.refTuple('received_at', 'id'), '<', eb.tuple(cursor.at, cursor.id)));
  }
  return q.orderBy('received_at', 'desc').orderBy('id', 'desc').limit(limit);
}

const DETAIL_COLUMNS = [
  ...SUMMARY_COLUMNS,
  'envelope_from',
  'text_body',
  'html_body',
  'headers',
  'attachments',
  'parse_error',
] as const;

export async function findMessage(
  db: Kysely<Database>,
  sandboxId: string,
  id: string,
): Promise<MessageDetailRow | undefined> {
  return preparedLookup(
    db,
    'message',
    db.selectFrom('messages').select(DETAIL_COLUMNS).where('sandbox_id', '=', sandboxId).where('id', '=', id),
  );
}

export async function findMessageRaw(
  db: Kysely<Database>,
  sandboxId: string,
  id: string,
): Promise<Uint8Array | undefined> {
  const row = await db
    .selectFrom('messages')
    .select('raw')
    .where('sandbox_id', '=', sandboxId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.raw;
}

/** The read flag of one message; see setReadFlag. */
export const setMessageRead = (
  db: Kysely<Database>,
  sandboxId: string,
  id: string,
  isRead: boolean,
  onlyIf?: boolean,
): Promise<boolean> => setReadFlag(db, 'messages', sandboxId, id, isRead, onlyIf);

export async function deleteMessage(db: Kysely<Database>, sandboxId: string, id: string): Promise<boolean> {
  const res = await db
    .deleteFrom('messages')
    .where('sandbox_id', '=', sandboxId)
    .where('id', '=', id)
    .executeTakeFirst();
  return res.numDeletedRows > 0n;
}

export async function clearMessages(db: Kysely<Database>, sandboxId: string): Promise<number> {
  const res = await db.deleteFrom('messages').where('sandbox_id', '=', sandboxId).executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** A page of a sandbox's messages for export, oldest first after `after`, raw source included. */
export async function messagesForExport(
  db: Kysely<Database>,
  sandboxId: string,
  limit: number,
  after: Cursor | undefined,
): Promise<
  Array<
    Pick<MessageRow, 'id' | 'received_at' | 'envelope_from' | 'captured_for' | 'subject' | 'is_read' | 'raw'>
  >
> {
  let q = db
    .selectFrom('messages')
    .select(['id', 'received_at', 'envelope_from', 'captured_for', 'subject', 'is_read', 'raw'])
    .where('sandbox_id', '=', sandboxId);
  if (after !== undefined) {
    q = q.where((eb) => eb(eb.refTuple('received_at', 'id'), '>', eb.tuple(after.at, after.id)));
  }
  return q.orderBy('received_at', 'asc').orderBy('id', 'asc').limit(limit).execute();
}
