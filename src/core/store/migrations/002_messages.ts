// Captured email: one row per (message, sandbox) with the raw source and the parsed fields the API serves.
// Attachment bytes are not stored twice: downloads re-read them from the raw source.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('messages')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('sandbox_id', 'uuid', (c) => c.notNull().references('sandboxes.id').onDelete('cascade'))
    .addColumn('received_at', 'timestamptz', (c) => c.notNull())
    .addColumn('envelope_from', 'text')
    .addColumn('from_header', 'text', (c) => c.notNull())
    .addColumn('to_addrs', 'jsonb', (c) => c.notNull())
    .addColumn('captured_for', 'jsonb', (c) => c.notNull())
    .addColumn('subject', 'text')
    .addColumn('preview', 'text')
    .addColumn('text_body', 'text')
    .addColumn('html_body', 'text')
    .addColumn('headers', 'jsonb', (c) => c.notNull())
    .addColumn('attachments', 'jsonb', (c) => c.notNull())
    .addColumn('attachment_count', 'integer', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('is_read', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('raw', 'bytea', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('messages_sandbox_page')
    .on('messages')
    .columns(['sandbox_id', 'received_at desc', 'id desc'])
    .execute();
  await db.schema
    .createIndex('messages_unread')
    .on('messages')
    .columns(['sandbox_id', 'received_at desc'])
    .where(sql.ref('is_read'), '=', false)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('messages').execute();
}
