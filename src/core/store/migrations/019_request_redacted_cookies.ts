// A captured request records which dashboard session cookies were removed from its Cookie header before it was
// stored (issue 34): the detail says so instead of silently showing fewer cookies than were sent.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('requests').addColumn('redacted_cookies', 'jsonb').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('requests').dropColumn('redacted_cookies').execute();
}
