// Two small tables of issue 35. wait_marks: per sandbox and stream, the newest item a claiming wait has handed
// out, so the next wait never returns an older one (an app that resends rotates its code; the older unread code
// is dead). sandbox_tombstones: a sandbox that expired or was deleted is remembered for a day, so a wait or a
// read can say "expired"/"deleted" instead of "does not exist".
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('wait_marks')
    .addColumn('sandbox_id', 'uuid', (c) => c.notNull().references('sandboxes.id').onDelete('cascade'))
    .addColumn('stream', 'text', (c) => c.notNull().check(sql`stream in ('message', 'request')`))
    .addColumn('received_at', 'timestamptz', (c) => c.notNull())
    .addColumn('item_id', 'uuid', (c) => c.notNull())
    .addPrimaryKeyConstraint('wait_marks_pkey', ['sandbox_id', 'stream'])
    .execute();
  await db.schema
    .createTable('sandbox_tombstones')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('workspace_id', 'uuid', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('reason', 'text', (c) => c.notNull().check(sql`reason in ('expired', 'deleted')`))
    .addColumn('ended_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sandbox_tombstones_ended')
    .on('sandbox_tombstones')
    .column('ended_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sandbox_tombstones').execute();
  await db.schema.dropTable('wait_marks').execute();
}
