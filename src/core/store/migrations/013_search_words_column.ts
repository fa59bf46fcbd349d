// The word index for `q` moves from an expression to a column the writer fills (messageSearchWords): the
// expression's two regexps ran in the database on every insert, ~35 µs a row in PGlite and about a tenth of
// PostgreSQL's CPU per message, where the same words take a few µs in the writer. Only words with a digit are
// kept: no query asks for others. Rows stored before are filled here by the database.
import { sql, type Kysely } from 'kysely';
import { MESSAGE_SEARCH_WORDS_SQL } from '../searchIndexes.ts';
// On PostgreSQL only, the finer statistics migration 005 gave the expression (007 explains the embedded store).
import { STATISTICS } from './005_search_words.ts';
import { isEmbedded } from './007_embedded_statistics.ts';

/**
 * The words this migration stored, computed by the database: those of MESSAGE_SEARCH_WORDS_SQL with a digit
 * (and `~long`). Migration 014 stores each after the character before it, and goes back to these.
 */
export const DIGIT_WORDS_013 = sql<unknown>`(select coalesce(string_agg(w, ' '), '')::tsvector
  from unnest(tsvector_to_array(${MESSAGE_SEARCH_WORDS_SQL})) as w where w ~ '[0-9]' or w = '~long')`;

export async function up(db: Kysely<unknown>): Promise<void> {
  // The expression index goes first, so that the backfill does not compute it again for each row's new version.
  await sql`drop index messages_search_words`.execute(db);
  await sql`alter table messages add column search_words tsvector`.execute(db);
  await sql`update messages set search_words = ${DIGIT_WORDS_013}`.execute(db);
  // Every writer fills it: a row without words would be missing from word searches.
  await sql`alter table messages alter column search_words set not null`.execute(db);
  await sql`create index messages_search_words on messages using gin (search_words)`.execute(db);
  if (!(await isEmbedded(db)))
    await sql`alter table messages alter column search_words set statistics ${sql.lit(STATISTICS)}`.execute(
      db,
    );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index messages_search_words`.execute(db);
  await sql`alter table messages drop column search_words`.execute(db);
  await sql`create index messages_search_words on messages using gin (${MESSAGE_SEARCH_WORDS_SQL})`.execute(
    db,
  );
  if (!(await isEmbedded(db)))
    await sql`alter index messages_search_words alter column 1 set statistics ${sql.lit(STATISTICS)}`.execute(
      db,
    );
}
