// The expressions that migration 004 indexes for list search, shared with the queries: PostgreSQL uses an
// expression index only when the query repeats the indexed expression exactly. Changing one needs a new
// migration that rebuilds its index.
import { sql, type RawBuilder } from 'kysely';

/** Every field `q` searches in a message, in one text (JSON arrays as their jsonb text). */
export const MESSAGE_SEARCH_TEXT = sql<string>`(coalesce(messages.subject, '') || ' ' || messages.from_header
  || ' ' || coalesce(messages.preview, '') || ' ' || messages.to_addrs::text || ' ' || messages.captured_for::text)`;

/** Every field `q` searches in a request, in one text. */
export const REQUEST_SEARCH_TEXT = sql<string>`(requests.method || ' ' || requests.path || ' '
  || coalesce(requests.query, '') || ' ' || requests.mock_status_code::text || ' '
  || coalesce(requests.mock_name, ''))`;

/** The envelope recipients of a message, lower-cased, as a jsonb array (for `@>`). */
export const MESSAGE_CAPTURED_FOR_LOWER = sql<unknown>`(lower(messages.captured_for::text)::jsonb)`;

/**
 * Whether "search text ILIKE %q%" is implied by the per-field match, so it can be added to let the trigram
 * index narrow the rows: jsonb text escapes quotes, backslashes and control characters, and trigrams need
 * three characters.
 */
export function searchTextApplies(q: string): boolean {
  return q.length >= 3 && !/["\\\u0000-\u001f]/.test(q);
}

export function capturedForContains(address: string): RawBuilder<boolean> {
  return sql<boolean>`${MESSAGE_CAPTURED_FOR_LOWER} @> jsonb_build_array(lower(${address}))`;
}
