// messages.search_words hold each word after the character before it ("#123456"), so that q finds a number by
// what precedes it: "Order #123" no longer reads every sign-in code and sender number starting with 123
// (searchIndexes.ts). Rows stored before get their words again from the database.
import { sql, type Kysely } from 'kysely';
import { MESSAGE_SEARCH_DIGIT_WORDS_SQL } from '../searchIndexes.ts';
import { DIGIT_WORDS_013 } from './013_search_words_column.ts';

/** Every row's words again, the index dropped meanwhile: one build is faster than an update of each entry. */
async function rewrite(db: Kysely<unknown>, words: typeof DIGIT_WORDS_013): Promise<void> {
  await sql`drop index messages_search_words`.execute(db);
  await sql`update messages set search_words = ${words}`.execute(db);
  await sql`create index messages_search_words on messages using gin (search_words)`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await rewrite(db, MESSAGE_SEARCH_DIGIT_WORDS_SQL);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await rewrite(db, DIGIT_WORDS_013);
}
