// OAuth 2.1 for /mcp: registered and metadata-document clients, pending consent requests, grants bound to a
// workspace and the API key that approved them, single-use codes, and access/refresh tokens stored as SHA-256.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_clients')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text')
    .addColumn('token_endpoint_auth_method', 'text', (c) => c.notNull())
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('client_uri', 'text')
    .addColumn('logo_uri', 'text')
    .addColumn('redirect_uris', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('oauth_authorization_requests')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) =>
      c.notNull().references('oauth_clients.client_id').onDelete('cascade'),
    )
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('state', 'text')
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('oauth_authorization_requests_expiry')
    .on('oauth_authorization_requests')
    .column('expires_at')
    .execute();

  await db.schema
    .createTable('oauth_grants')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) =>
      c.notNull().references('oauth_clients.client_id').onDelete('cascade'),
    )
    .addColumn('workspace_id', 'uuid', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('key_id', 'uuid', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_used_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('oauth_grants_workspace')
    .on('oauth_grants')
    .columns(['workspace_id', 'created_at'])
    .execute();
  await db.schema.createIndex('oauth_grants_key').on('oauth_grants').column('key_id').execute();
  await db.schema.createIndex('oauth_grants_client').on('oauth_grants').column('client_id').execute();

  // A code (and a token) outlives its use as a row so that a second use is recognised as a replay.
  await db.schema
    .createTable('oauth_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('grant_id', 'uuid', (c) => c.notNull().references('oauth_grants.id').onDelete('cascade'))
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('oauth_codes_grant').on('oauth_codes').column('grant_id').execute();

  await db.schema
    .createTable('oauth_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('grant_id', 'uuid', (c) => c.notNull().references('oauth_grants.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('access', 'refresh')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('oauth_tokens_grant')
    .on('oauth_tokens')
    .columns(['grant_id', 'expires_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'oauth_tokens',
    'oauth_codes',
    'oauth_grants',
    'oauth_authorization_requests',
    'oauth_clients',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
