// A word index for `q` on messages: numbers such as order ids and codes are found by their words, since
// their trigrams (digits only) are in most rows and make the trigram index read most of itself. And finer
// statistics for the indexed search expressions, so the planner picks between them and the newest-first scan.
import { sql, type Kysely } from 'kysely';
import { MESSAGE_SEARCH_WORDS_SQL } from '../searchIndexes.ts';

/**
 * At the default of 100, a value in the 100-bucket histogram is estimated at about 1% of the rows. At 1,000,000
 * messages, a recipient or search text in 1 of 5,000 then looked common, and the newest-first scan the planner
 * chose for it read 250,000 rows (0.3-0.5 s). ANALYZE samples 300,000 rows instead of 30,000 for it.
 */
export const STATISTICS = 1000;

/** messages_search is missing where pg_trgm could not be created (migration 004). */
async function setStatistics(db: Kysely<unknown>, target: number): Promise<void> {
  const indexes = await sql<{ name: string }>`select indexrelid::regclass::text as name from pg_index
    where indrelid = 'messages'::regclass and indexrelid::regclass::text
      in ('messages_search', 'messages_search_words', 'messages_captured_for_lower')`.execute(db);
  for (const { name } of indexes.rows)
    await sql`alter index ${sql.id(name)} alter column 1 set statistics ${sql.lit(target)}`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index messages_search_words on messages using gin (${MESSAGE_SEARCH_WORDS_SQL})`.execute(
    db,
  );
  await setStatistics(db, STATISTICS);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists messages_search_words`.execute(db);
  await setStatistics(db, -1);
}
