// Captured requests get the read flag messages have, so a wait can hand each one out once; every request
// captured before counts as unread. The partial index serves "newest unread" the way messages_unread does.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('requests')
    .addColumn('is_read', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema
    .createIndex('requests_unread')
    .on('requests')
    .columns(['sandbox_id', 'received_at desc'])
    .where(sql.ref('is_read'), '=', false)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('requests_unread').execute();
  await db.schema.alterTable('requests').dropColumn('is_read').execute();
}
