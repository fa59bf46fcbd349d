// What list search indexes: the expressions of migration 004, shared with the queries (PostgreSQL uses an
// expression index only when the query repeats the indexed expression exactly), and the words the writer stores
// for the word index (migrations 013 and 014). Changing one needs a new migration that rebuilds its index or its words.
// Why it exists and when it goes: the store map, src/core/store/README.md.
import { sql, type RawBuilder } from 'kysely';
import { lexeme } from '../search/tokens.ts';

/** Every field `q` searches in a message, in one text (JSON arrays as their jsonb text). */
export const MESSAGE_SEARCH_TEXT = sql<string>`(coalesce(messages.subject, '') || ' ' || messages.from_header
  || ' ' || coalesce(messages.preview, '') || ' ' || messages.to_addrs::text || ' ' || messages.captured_for::text)`;

/** Word index entries are cut to this many characters, so no entry is too long for a tsvector. */
const WORD_CHARS = 64;
/** A search text longer than this is indexed as this one word, so its tsvector stays far below 1 MB. */
const LONG_TEXT = 100_000;
const LONG_WORD = '~long';

/**
 * The words of a message's search text, as a tsvector, in the database's own terms: its lower-cased runs of a-z
 * and 0-9 (everything else separates), each cut to 64 characters; a text too long to index word by word is the
 * one word `~long`, which every word query also accepts. Migration 005 indexed this expression, whose two
 * regexps cost ~35 µs a row in PGlite and about a tenth of PostgreSQL's CPU per message; since migration 013
 * the words are a column (messageSearchWords).
 */
export const MESSAGE_SEARCH_WORDS_SQL = sql<unknown>`(case when length(${MESSAGE_SEARCH_TEXT}) > ${sql.lit(LONG_TEXT)}
  then ${sql.lit(LONG_WORD)}::tsvector
  else array_to_tsvector(array_remove(regexp_split_to_array(regexp_replace(lower(${MESSAGE_SEARCH_TEXT}),
    ${sql.lit(`([a-z0-9]{${WORD_CHARS}})[a-z0-9]+`)}, ${sql.lit('\\1')}, 'g'), '[^a-z0-9]+'), '')) end)`;

/**
 * messages.search_words computed by the database, for rows written by SQL (migration 014's backfill, bulk
 * loads): each word of MESSAGE_SEARCH_WORDS_SQL's that holds a digit, after the character before it
 * (messageSearchWords).
 */
export const MESSAGE_SEARCH_DIGIT_WORDS_SQL = sql<unknown>`(case when length(${MESSAGE_SEARCH_TEXT}) > ${sql.lit(LONG_TEXT)}
  then ${sql.lit(LONG_WORD)}::tsvector
  else coalesce((select array_to_tsvector(array_agg(w[1] || left(w[2], ${sql.lit(WORD_CHARS)})))
    from regexp_matches(lower(${MESSAGE_SEARCH_TEXT}), '([^a-z0-9])([a-z0-9]+)', 'g') as w where w[2] ~ '[0-9]'),
    ''::tsvector) end)`;

/** The fields of a message row its search text is made of, as the writer holds them (JSON arrays as text). */
export interface MessageSearchFields {
  subject?: string | null;
  from_header: string;
  preview?: string | null;
  to_addrs: unknown;
  captured_for: unknown;
}

const jsonText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
const WORD = /[a-z0-9]+/g;
const HAS_DIGIT = /[0-9]/;

/**
 * messages.search_words for a row, as tsvector input: each word of its search text that holds a digit, after
 * the character before it ("#123456", " 123456"). searchWordsQuery only ever asks for words with a digit
 * (numbers and codes, which the trigram index finds slowly), so the others, most words of most mail, would only
 * make the column, the index and each insert larger. With the character before it a word is found by what
 * precedes it in q: "Order #123" asks for '#123':*, not the sign-in codes and sender numbers starting with 123
 * (at 1,000,000 messages, 1,111 rows instead of 4,105 on 3,020 heap pages). A word at the very start of the
 * text has no character before it and is left out: q asks only for a word after a separator in q.
 *
 * The words may differ from MESSAGE_SEARCH_DIGIT_WORDS_SQL's only where this cannot miss a match: a row whose search
 * text contains `q` (ilike, the database's lower case) holds every word searchWordsQuery makes of `q`. Those
 * words are ASCII runs after an ASCII separator, and the only characters a database lower-cases to ASCII letters
 * besides A-Z are the Kelvin sign (k here too) and the dotted capital I, which the database maps to i and
 * JavaScript to i plus a combining dot (a separator): it becomes i first. The JSON arrays' separators (", " in
 * jsonb text, "," here) differ only before a quote, and JSON escapes a quote or a backslash by one before it,
 * so the character before a word is the same in both and in the field itself.
 */
export function messageSearchWords(row: MessageSearchFields): string {
  const text = `${row.subject ?? ''} ${row.from_header} ${row.preview ?? ''} ${jsonText(row.to_addrs)} ${jsonText(row.captured_for)}`;
  // UTF-16 units, at least its characters: a text the database would still split may be `~long` here, which
  // every word query also accepts.
  if (text.length > LONG_TEXT) return LONG_WORD;
  const words = new Set<string>();
  const lower = text.replaceAll('\u0130', 'i').toLowerCase();
  // A word at the very start has no character before it (index 0).
  for (const { 0: word, index } of lower.matchAll(WORD))
    if (index > 0 && HAS_DIGIT.test(word))
      words.add(characterBefore(lower, index) + word.slice(0, WORD_CHARS));
  return Array.from(words, lexeme).join(' ');
}

/** The character before text[at], both halves of a surrogate pair as the database has it (one character). */
function characterBefore(text: string, at: number): string {
  const pair = at > 1 && isLowSurrogate(text.charCodeAt(at - 1)) && isHighSurrogate(text.charCodeAt(at - 2));
  return text.slice(pair ? at - 2 : at - 1, at);
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

type CharKind = 'word' | 'separator' | 'unknown';

/**
 * How `q`'s characters fall in the lower-cased text the database splits into words. Outside ASCII, and for
 * `I` (dotless ı in Turkish collations), the database's lower() may differ from ours, so those are unknown.
 */
function charKind(c: string): CharKind {
  if (/[a-zA-HJ-Z0-9]/.test(c)) return 'word';
  return c.charCodeAt(0) < 0x80 && c !== 'I' ? 'separator' : 'unknown';
}

/**
 * A tsquery over MESSAGE_SEARCH_WORDS that every message matching `q` (case-insensitive substring of one
 * field) satisfies, or undefined when none would narrow the rows better than the trigram index.
 *
 * A match of `q` holds each run of word characters of `q`: a run after a separator in `q` starts a word of
 * the message, and one with a separator after it too is that whole word. Only runs that look like
 * identifiers (a digit, 5 or more characters) are used, and the start of a number being typed (3 or 4
 * characters with a digit, at the end of `q`: "Order #123"): trigrams of digits are shared by most rows (there
 * are only 1,000 of them), which makes the trigram index slow for order numbers and codes, while words like
 * these are rare. Short whole words (years, "utf8") and common words are left to the trigram index, whose
 * estimate the planner would otherwise pair with this one; for a common short word the planner would scan
 * newest-first through every row when nothing matches. jsonb text escapes control characters into word
 * characters (`\n`), so `q` with one gets none.
 */
export function searchWordsQuery(q: string): string | undefined {
  const terms = searchWordTerms(q).map(
    ({ before, word, whole }) => `${lexeme(before + word)}${whole ? '' : ':*'}`,
  );
  if (terms.length === 0) return undefined;
  return `(${terms.join(' & ')}) | '${LONG_WORD}'`;
}

/** An identifier is 5 characters or more; a shorter word with a digit is one only at the end of q. */
const IDENTIFIER_CHARS = 5;

/**
 * Whether `q`'s word query asks only for a word of 3 or 4 characters (with a digit, at the end of q), as a
 * prefix: in a large sandbox that finds many words besides the ones `q` means ("123" starts codes, other order
 * numbers, addresses). A longer word in the query finds few.
 */
export function searchWordsAreShortPrefixes(q: string): boolean {
  const terms = searchWordTerms(q);
  return terms.length > 0 && terms.every(({ word }) => word.length < IDENTIFIER_CHARS);
}

/** The words of searchWordsQuery, each after the separator before it in q: whole, or a prefix. */
function searchWordTerms(q: string): Array<{ before: string; word: string; whole: boolean }> {
  if (/[\u0000-\u001f]/.test(q)) return [];
  const terms: Array<{ before: string; word: string; whole: boolean }> = [];
  const kinds = Array.from(q, charKind);
  const chars = Array.from(q);
  for (let start = 0; start < chars.length;) {
    if (kinds[start] !== 'word') {
      start++;
      continue;
    }
    let end = start;
    while (end < chars.length && kinds[end] === 'word') end++;
    const word = chars.slice(start, end).join('').toLowerCase();
    // After a separator the run starts a word; with one after it too, it is the whole word.
    const leftBound = start > 0 && kinds[start - 1] === 'separator';
    const whole = end < chars.length && kinds[end] === 'separator' && word.length < WORD_CHARS;
    const identifier = word.length >= IDENTIFIER_CHARS || (word.length >= 3 && end === chars.length);
    if (leftBound && identifier && /[0-9]/.test(word))
      terms.push({ before: chars[start - 1] as string, word: word.slice(0, WORD_CHARS), whole });
    start = end;
  }
  return terms;
}

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
