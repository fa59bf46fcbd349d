// The items an expectation counts, read from the store with the wait filters, and how each condition judges one.
import type { Kysely } from 'kysely';
import { listMessages, type MessageSummaryRow } from '../store/repos/messages.ts';
import { listMatchingRequests, type RequestSummaryRow } from '../store/repos/requests.ts';
import type { Database } from '../store/schema.ts';
import {
  failedMessageFilters,
  failedRequestFilters,
  type MessageFacts,
  type MessageFilterName,
  type RequestFacts,
  type RequestFilterName,
} from '../waitMisses.ts';
import type { ExpectationInput } from '../schemas.ts';

export type Condition = ExpectationInput['conditions'][number];
export type Stream = Condition['stream'];

export type ExpectedItem = ({ stream: 'messages' } & MessageFacts) | ({ stream: 'requests' } & RequestFacts);

const messageItem = (r: MessageSummaryRow): ExpectedItem => ({
  stream: 'messages',
  id: r.id,
  subject: r.subject,
  from: r.from_header,
  capturedFor: r.captured_for,
  isRead: r.is_read,
  receivedAt: r.received_at,
});

const requestItem = (r: RequestSummaryRow): ExpectedItem => ({
  stream: 'requests',
  id: r.id,
  method: r.method,
  path: r.path,
  isRead: r.is_read,
  receivedAt: r.received_at,
});

/** The newest `limit` items of the condition's stream that match it from `since` on. */
export async function matchesOf(
  db: Kysely<Database>,
  sandboxId: string,
  c: Condition,
  since: Date,
  limit: number,
): Promise<ExpectedItem[]> {
  if (c.stream === 'messages') {
    return (await listMessages(db, sandboxId, { ...c.filter, since }, limit, undefined)).map(messageItem);
  }
  return (await listMatchingRequests(db, sandboxId, { ...c.filter, since }, limit)).map(requestItem);
}

/** One item by id (an arrival), or undefined when it is gone already. */
export async function itemOf(
  db: Kysely<Database>,
  sandboxId: string,
  stream: Stream,
  id: string,
): Promise<ExpectedItem | undefined> {
  const [item] =
    stream === 'messages'
      ? (await listMessages(db, sandboxId, { id }, 1, undefined)).map(messageItem)
      : (await listMatchingRequests(db, sandboxId, { id }, 1)).map(requestItem);
  return item;
}

/** The newest `limit` items of a stream, whatever they are: where the closest misses are looked for. */
export async function newestOf(
  db: Kysely<Database>,
  sandboxId: string,
  stream: Stream,
  limit: number,
): Promise<ExpectedItem[]> {
  return stream === 'messages'
    ? (await listMessages(db, sandboxId, {}, limit, undefined)).map(messageItem)
    : (await listMatchingRequests(db, sandboxId, {}, limit)).map(requestItem);
}

/**
 * The filters of `c` (and `since`) that `item` fails, as the waits name them: empty when it matches, undefined
 * when it is of the other stream (no filter of `c` applies to it).
 */
export function failedFilters(
  c: Condition,
  item: ExpectedItem,
  since: Date,
): Array<MessageFilterName | RequestFilterName> | undefined {
  if (c.stream !== item.stream) return undefined;
  return item.stream === 'messages'
    ? failedMessageFilters(item, { ...(c.stream === 'messages' ? c.filter : {}), since })
    : failedRequestFilters(item, { ...(c.stream === 'requests' ? c.filter : {}), since });
}
