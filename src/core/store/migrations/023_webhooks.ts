// Outgoing webhooks (issue 37): the subscriptions, the outbox the sender claims from, the delivery log, and the
// fan-out's durable cursor in the event stream (positions as in migration 010).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('workspace_id', 'uuid', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    // No foreign key: a sandbox-scoped webhook still hears its sandbox's sandbox.deleted.
    .addColumn('sandbox_id', 'uuid')
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', sql`text[]`, (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    // Events of transactions at or after this one fan out to it; earlier ones had ended before it existed.
    .addColumn('start_xid', sql`xid8`, (c) =>
      c.notNull().defaultTo(sql`pg_snapshot_xmin(pg_current_snapshot())`),
    )
    .execute();
  await db.schema
    .createIndex('webhooks_workspace')
    .on('webhooks')
    .columns(['workspace_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('webhook_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'uuid', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    // The event's stream position (xid.seq), or `ping:<id>`: fan-out inserts each at most once per webhook.
    .addColumn('event_key', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull())
    .addColumn('claimed_until', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('webhook_outbox_event', ['webhook_id', 'event_key'])
    .execute();
  await sql`create index webhook_outbox_due on webhook_outbox (next_attempt_at) where status = 'pending'`.execute(
    db,
  );

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('webhook_id', 'uuid', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('response_excerpt', 'text')
    .addColumn('error', 'text')
    .addColumn('next_attempt_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_webhook')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('webhook_fanout')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('event_xid', sql`xid8`, (c) => c.notNull())
    .addColumn('event_seq', 'bigint', (c) => c.notNull())
    .execute();
  // Every transaction below the snapshot's xmin has ended: the stream before (xmin, 0) is settled history.
  await sql`insert into webhook_fanout (id, event_xid, event_seq)
    values (1, pg_snapshot_xmin(pg_current_snapshot()), 0)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_fanout').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_outbox').execute();
  await db.schema.dropTable('webhooks').execute();
}
