// A word index for `q` on messages: numbers such as order ids and codes are found by their words, since
// their trigrams (digits only) are in most rows and make the trigram index read most of itself.
import { sql, type Kysely } from 'kysely';
import { MESSAGE_SEARCH_WORDS } from '../searchIndexes.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index messages_search_words on messages using gin (${MESSAGE_SEARCH_WORDS})`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists messages_search_words`.execute(db);
}
