// Which words of a `search=` the word index is asked for. GIN finds a word prefix by collecting every row that
// has it before intersecting with the other words, so a prefix in every row ('carrier':* in a million messages)
// costs tens of milliseconds however rare the other words are. The table's statistics (pg_stats, the most common
// elements of search_doc) name such words: the index is asked only for the others, and the whole query is
// checked on the rows they find. The answer is the same either way.
// Why it exists and when it goes: the store map, src/core/store/README.md ("Common search words").
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { RequiredWord } from '../../search/query.ts';
import { lexeme } from '../../search/tokens.ts';
import type { Database } from '../schema.ts';

type SearchTable = 'messages' | 'requests';

/** A word in at least this share of the table's rows is left to the check on the rows, not the index. */
const COMMON = 0.05;
/** A prefix this short may stand for many words the statistics do not list: always left to the check. */
const SHORT_PREFIX = 2;
/** Statistics change only when the table is analyzed (maintenance.ts, autovacuum): read them this often. */
const STATS_TTL_MS = 60_000;
/** A table not analyzed yet (a new store filling up) is asked again sooner. */
const NO_STATS_TTL_MS = 5_000;

interface Cached {
  at: number;
  frequencies: Promise<Map<string, number>>;
  /** Set once read: how many words the statistics list. */
  size?: number;
}
const cache = new WeakMap<Kysely<Database>, Map<SearchTable, Cached>>();

/** The table's most common search words with the share of rows that have each; empty before an analyze. */
async function readFrequencies(db: Kysely<Database>, table: SearchTable): Promise<Map<string, number>> {
  // most_common_elem_freqs has three more entries than most_common_elems (min, max, nulls): unnest pairs them
  // with null words, which are dropped.
  const { rows } = await sql<{ word: string; share: number }>`
    select u.word, u.share
    from pg_stats s,
      unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) as u(word, share)
    where s.schemaname = current_schema() and s.tablename = ${table} and s.attname = 'search_doc'
      and u.word is not null`.execute(db);
  return new Map(rows.map((r) => [r.word, Number(r.share)]));
}

function frequencies(db: Kysely<Database>, table: SearchTable): Promise<Map<string, number>> {
  let tables = cache.get(db);
  if (tables === undefined) cache.set(db, (tables = new Map()));
  const hit = tables.get(table);
  const ttl = hit?.size === 0 ? NO_STATS_TTL_MS : STATS_TTL_MS;
  if (hit !== undefined && Date.now() - hit.at < ttl) return hit.frequencies;
  // Without statistics (a failed read too) every word goes to the index, as before this existed.
  const read = readFrequencies(db, table).catch(() => new Map<string, number>());
  const entry: Cached = { at: Date.now(), frequencies: read };
  void read.then((known) => (entry.size = known.size));
  tables.set(table, entry);
  return read;
}

/** The share of rows with `w` as far as the statistics tell (a prefix: every listed word it starts). */
function share(w: RequiredWord, known: Map<string, number>): number {
  if (!w.prefix) return known.get(w.word) ?? 0;
  if (w.word.length <= SHORT_PREFIX) return 1;
  let sum = 0;
  for (const [word, s] of known) if (word.startsWith(w.word)) sum += s;
  return Math.min(1, sum);
}

export interface SearchMatch {
  /** What a row must meet to match. */
  conditions: Array<RawBuilder<boolean>>;
  /**
   * A word the index is asked for is one the statistics do not list at all, so it is in fewer rows than the
   * least common word they list. The planner still guesses such a prefix in 0.5-2% of rows and then prefers
   * reading the sandbox newest first and checking each row (every row, when nothing matches: 33 ms at 100,000
   * messages embedded, 220 ms under load, against 3 ms through the index). The conditions then include the
   * matching ids from the index alone (a subquery the planner keeps apart), and the list reads them directly.
   */
  fewRows: boolean;
}

const asTsquery = (words: readonly RequiredWord[]): string =>
  words
    .map((w) => {
      const label = `${w.prefix ? '*' : ''}${w.weight}`;
      return `${lexeme(w.word)}${label === '' ? '' : `:${label}`}`;
    })
    .join(' & ');

/**
 * The conditions a row must meet to match `match`: the tsquery itself when every required word is rare (or
 * none is), else the rare ones for the index and the whole query as a check the planner cannot take to the
 * index (in a CASE).
 */
export async function searchMatch(
  db: Kysely<Database>,
  table: SearchTable,
  match: string,
  required: readonly RequiredWord[] | undefined,
): Promise<SearchMatch> {
  const column = sql.ref(`${table}.search_doc`);
  const whole = sql<boolean>`${column} @@ ${match}::tsquery`;
  if (required === undefined || required.length === 0) return { conditions: [whole], fewRows: false };
  const known = await frequencies(db, table);
  if (known.size === 0) return { conditions: [whole], fewRows: false };
  const shares = required.map((w) => ({ w, share: share(w, known) }));
  const rare = shares.filter((r) => r.share < COMMON).map((r) => r.w);
  if (rare.length === 0) return { conditions: [whole], fewRows: false };
  const indexed = rare.length === required.length ? match : asTsquery(rare);
  const conditions =
    rare.length === required.length
      ? [whole]
      : [
          sql<boolean>`${column} @@ ${indexed}::tsquery`,
          sql<boolean>`case when ${whole} then true else false end`,
        ];
  // (The words are ANDed: one such word is enough for few rows.)
  if (!shares.some((r) => r.share === 0)) return { conditions, fewRows: false };
  // OFFSET 0 keeps the subquery from being merged into the list's query, so it is planned alone: through the index.
  const ids = sql<boolean>`${sql.ref(`${table}.id`)} in (select s.id from ${sql.table(table)} as s
    where s.search_doc @@ ${indexed}::tsquery offset 0)`;
  return { conditions: [...conditions, ids], fewRows: true };
}
