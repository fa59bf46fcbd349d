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

interface Cached {
  at: number;
  frequencies: Promise<Map<string, number>>;
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
  if (hit !== undefined && Date.now() - hit.at < STATS_TTL_MS) return hit.frequencies;
  // Without statistics (a failed read too) every word goes to the index, as before this existed.
  const read = readFrequencies(db, table).catch(() => new Map<string, number>());
  tables.set(table, { at: Date.now(), frequencies: read });
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
): Promise<Array<RawBuilder<boolean>>> {
  const whole = sql<boolean>`${sql.ref(`${table}.search_doc`)} @@ ${match}::tsquery`;
  if (required === undefined || required.length === 0) return [whole];
  const known = await frequencies(db, table);
  if (known.size === 0) return [whole];
  const rare = required.filter((w) => share(w, known) < COMMON);
  if (rare.length === 0 || rare.length === required.length) return [whole];
  const indexed = rare
    .map((w) => {
      const label = `${w.prefix ? '*' : ''}${w.weight}`;
      return `${lexeme(w.word)}${label === '' ? '' : `:${label}`}`;
    })
    .join(' & ');
  return [
    sql<boolean>`${sql.ref(`${table}.search_doc`)} @@ ${indexed}::tsquery`,
    sql<boolean>`case when ${whole} then true else false end`,
  ];
}
