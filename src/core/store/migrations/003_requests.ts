// Captured HTTP requests: the request exactly as received (target, header list, body bytes) and the reply
// that answered it. Parsed views (query params, form, JSON) are derived when read.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('requests')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('sandbox_id', 'uuid', (c) => c.notNull().references('sandboxes.id').onDelete('cascade'))
    .addColumn('received_at', 'timestamptz', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('http_version', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('query', 'text')
    .addColumn('headers', 'jsonb', (c) => c.notNull())
    .addColumn('body', 'bytea', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('source_ip', 'text')
    .addColumn('mock_status_code', 'integer', (c) => c.notNull())
    .addColumn('mock_name', 'text')
    .execute();
  await db.schema
    .createIndex('requests_sandbox_page')
    .on('requests')
    .columns(['sandbox_id', 'received_at desc', 'id desc'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('requests').execute();
}
