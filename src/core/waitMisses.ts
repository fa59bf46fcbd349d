// Why a wait did not return an item: for each item a wait looked at and passed over, the filters that turned
// it away. Pure: the wait service decides which items to show; this only judges and bounds them.

export const MAX_MISSES = 5;
/** Subjects, senders and paths are cut here so a report fits in a response header (Sandtrap-Wait-Misses). */
export const MISS_TEXT_MAX = 100;

/** Filter names as REST's query names them; `onlyNewer` is the wait's mark (`newerThan` in the filter). */
export type MessageFilterName =
  'subjectContains' | 'fromContains' | 'capturedFor' | 'isRead' | 'since' | 'onlyNewer';
export type RequestFilterName = 'method' | 'pathContains' | 'isRead' | 'since' | 'onlyNewer';

/** A point in list order, (receivedAt, id): a wait's mark (migration 021). */
export interface ItemMark {
  at: Date;
  id: string;
}

export interface MessageWaitCriteria {
  subjectContains?: string | undefined;
  fromContains?: string | undefined;
  capturedFor?: string | undefined;
  isRead?: boolean | undefined;
  since?: Date | undefined;
  newerThan?: ItemMark | undefined;
}

export interface RequestWaitCriteria {
  method?: string | undefined;
  pathContains?: string | undefined;
  isRead?: boolean | undefined;
  since?: Date | undefined;
  newerThan?: ItemMark | undefined;
}

/** What a message wait needs of an item to judge it. */
export interface MessageFacts {
  id: string;
  subject: string | null;
  from: string;
  capturedFor: string[];
  isRead: boolean;
  receivedAt: Date;
}

export interface RequestFacts {
  id: string;
  method: string;
  path: string;
  isRead: boolean;
  receivedAt: Date;
}

export interface MessageMiss {
  id: string;
  subject: string | null;
  from: string;
  receivedAt: Date;
  failedFilters: MessageFilterName[];
}

export interface RequestMiss {
  id: string;
  method: string;
  path: string;
  receivedAt: Date;
  failedFilters: RequestFilterName[];
}

const contains = (text: string | null, part: string | undefined) =>
  part === undefined || (text ?? '').toLowerCase().includes(part.toLowerCase());

const since = (at: Date, from: Date | undefined) => from === undefined || at.getTime() >= from.getTime();

/** After the mark in list order (received_at, then id), as the store compares them. */
const newer = (item: { receivedAt: Date; id: string }, mark: ItemMark | undefined) =>
  mark === undefined ||
  item.receivedAt.getTime() > mark.at.getTime() ||
  (item.receivedAt.getTime() === mark.at.getTime() && item.id.toLowerCase() > mark.id.toLowerCase());

/** The filters of a message wait that `m` fails, in a fixed order; empty when it matches. */
export function failedMessageFilters(m: MessageFacts, f: MessageWaitCriteria): MessageFilterName[] {
  const failed: MessageFilterName[] = [];
  if (!contains(m.subject, f.subjectContains)) failed.push('subjectContains');
  if (!contains(m.from, f.fromContains)) failed.push('fromContains');
  if (
    f.capturedFor !== undefined &&
    !m.capturedFor.some((a) => a.toLowerCase() === f.capturedFor?.toLowerCase())
  ) {
    failed.push('capturedFor');
  }
  if (f.isRead !== undefined && m.isRead !== f.isRead) failed.push('isRead');
  if (!since(m.receivedAt, f.since)) failed.push('since');
  if (!newer(m, f.newerThan)) failed.push('onlyNewer');
  return failed;
}

/** The filters of a request wait (method exact, path substring with case) that `r` fails. */
export function failedRequestFilters(r: RequestFacts, f: RequestWaitCriteria): RequestFilterName[] {
  const failed: RequestFilterName[] = [];
  if (f.method !== undefined && r.method !== f.method) failed.push('method');
  if (f.pathContains !== undefined && !r.path.includes(f.pathContains)) failed.push('pathContains');
  if (f.isRead !== undefined && r.isRead !== f.isRead) failed.push('isRead');
  if (!since(r.receivedAt, f.since)) failed.push('since');
  if (!newer(r, f.newerThan)) failed.push('onlyNewer');
  return failed;
}

function cut(text: string): string {
  return text.length <= MISS_TEXT_MAX ? text : `${text.slice(0, MISS_TEXT_MAX - 1)}…`;
}

/**
 * Up to five items that did not match, each once: `arrivals` first (as judged when they arrived, newest
 * first), then `unread` items already in the sandbox (newest first). Items that match, and `exclude` (the
 * item the wait returned), are left out.
 */
function collect<I extends { id: string; receivedAt: Date }, M>(
  arrivals: ReadonlyArray<{ item: I; failed: string[] }>,
  unread: readonly I[],
  judge: (item: I) => string[],
  exclude: string | undefined,
  toMiss: (item: I, failed: string[]) => M,
): M[] {
  const seen = new Set<string>(exclude === undefined ? [] : [exclude]);
  const out: M[] = [];
  const newestFirst = [...arrivals].sort((a, b) => b.item.receivedAt.getTime() - a.item.receivedAt.getTime());
  const candidates = [...newestFirst, ...unread.map((item) => ({ item, failed: judge(item) }))];
  for (const { item, failed } of candidates) {
    if (out.length >= MAX_MISSES) break;
    if (seen.has(item.id) || failed.length === 0) continue;
    seen.add(item.id);
    out.push(toMiss(item, failed));
  }
  return out;
}

export function messageMisses(
  filter: MessageWaitCriteria,
  arrivals: ReadonlyArray<{ item: MessageFacts; failed: MessageFilterName[] }>,
  unread: readonly MessageFacts[],
  exclude?: string,
): MessageMiss[] {
  return collect(
    arrivals,
    unread,
    (m) => failedMessageFilters(m, filter),
    exclude,
    (m, failed) => ({
      id: m.id,
      subject: m.subject === null ? null : cut(m.subject),
      from: cut(m.from),
      receivedAt: m.receivedAt,
      failedFilters: failed as MessageFilterName[],
    }),
  );
}

export function requestMisses(
  filter: RequestWaitCriteria,
  arrivals: ReadonlyArray<{ item: RequestFacts; failed: RequestFilterName[] }>,
  unread: readonly RequestFacts[],
  exclude?: string,
): RequestMiss[] {
  return collect(
    arrivals,
    unread,
    (r) => failedRequestFilters(r, filter),
    exclude,
    (r, failed) => ({
      id: r.id,
      method: cut(r.method),
      path: cut(r.path),
      receivedAt: r.receivedAt,
      failedFilters: failed as RequestFilterName[],
    }),
  );
}
