// Page size rules and opaque keyset cursors (created time + id) shared by every list.
import { invalidInput } from './errors.ts';
import { UUID_PATTERN } from './random.ts';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export interface Cursor {
  at: Date;
  id: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.at.getTime()}:${c.id}`).toString('base64url');
}

export function decodeCursor(raw: string): Cursor {
  const bad = invalidInput('The cursor is not one this API issued.', [
    { path: 'cursor', message: 'pass back nextCursor from the previous page unchanged, or omit it' },
  ]);
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(raw)) throw bad;
  const text = Buffer.from(raw, 'base64url').toString('utf8');
  const match = /^(\d{1,15}):(.+)$/.exec(text);
  if (match === null || !UUID_PATTERN.test(match[2] ?? '')) throw bad;
  return { at: new Date(Number(match[1])), id: match[2] as string };
}

/** Rows are fetched with limit + 1 so the presence of a next page costs no extra query. */
export function toPage<R, T>(
  rows: R[],
  limit: number,
  keyOf: (row: R) => Cursor,
  map: (row: R) => T,
): Page<T> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    items: pageRows.map(map),
    nextCursor: hasMore && last !== undefined ? encodeCursor(keyOf(last)) : null,
  };
}

/** Escapes LIKE wildcards so a user's `q` is matched literally. */
export function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
