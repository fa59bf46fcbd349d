// Callbacks from mock rules (issue 40) go through the webhook outbox and delivery log: a row without a webhook
// carries its own target, method, headers and signing, and names the sandbox, rule and request it came from.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('webhook_outbox')
    .alterColumn('webhook_id', (c) => c.dropNotNull())
    .execute();
  await db.schema
    .alterTable('webhook_outbox')
    .addColumn('sandbox_id', 'uuid', (c) => c.references('sandboxes.id').onDelete('cascade'))
    .addColumn('rule_id', 'text')
    .addColumn('request_id', 'uuid')
    .addColumn('target_url', 'text')
    .addColumn('target_method', 'text')
    // JSON: header name -> value, and the signing (scheme, secret, ...).
    .addColumn('target_headers', 'text')
    .addColumn('signing', 'text')
    .execute();
  await sql`create unique index webhook_outbox_callback on webhook_outbox (event_key) where webhook_id is null`.execute(
    db,
  );

  await db.schema
    .alterTable('webhook_deliveries')
    .alterColumn('webhook_id', (c) => c.dropNotNull())
    .execute();
  await db.schema
    .alterTable('webhook_deliveries')
    .addColumn('sandbox_id', 'uuid', (c) => c.references('sandboxes.id').onDelete('cascade'))
    .addColumn('rule_id', 'text')
    .addColumn('request_id', 'uuid')
    .addColumn('url', 'text')
    .execute();
  await sql`create index webhook_deliveries_sandbox on webhook_deliveries (sandbox_id, created_at, id)
    where sandbox_id is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_sandbox').execute();
  await db.schema
    .alterTable('webhook_deliveries')
    .dropColumn('sandbox_id')
    .dropColumn('rule_id')
    .dropColumn('request_id')
    .dropColumn('url')
    .execute();
  await db
    .deleteFrom('webhook_deliveries' as never)
    .where('webhook_id' as never, 'is', null)
    .execute();
  await db.schema
    .alterTable('webhook_deliveries')
    .alterColumn('webhook_id', (c) => c.setNotNull())
    .execute();
  await db.schema.dropIndex('webhook_outbox_callback').execute();
  await db
    .deleteFrom('webhook_outbox' as never)
    .where('webhook_id' as never, 'is', null)
    .execute();
  await db.schema
    .alterTable('webhook_outbox')
    .dropColumn('sandbox_id')
    .dropColumn('rule_id')
    .dropColumn('request_id')
    .dropColumn('target_url')
    .dropColumn('target_method')
    .dropColumn('target_headers')
    .dropColumn('signing')
    .execute();
  await db.schema
    .alterTable('webhook_outbox')
    .alterColumn('webhook_id', (c) => c.setNotNull())
    .execute();
}
