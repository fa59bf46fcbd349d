// Messages record why their parsed fields are incomplete or empty (a message is kept even when it cannot be
// read); null for every message read in full, which all earlier messages were taken to be.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('parse_error', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').dropColumn('parse_error').execute();
}
