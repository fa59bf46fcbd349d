// Migration 015 over clients stored before it: a client with grants takes its first authorization and last use
// from them (so the sweep does not prune it as never authorized); one without is left as never authorized.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { createCore } from '../../src/core/core.ts';
import { migrateTo, migrateToLatest } from '../../src/core/store/migrate.ts';
import { testConfig } from '../helpers/api.ts';
import { describeEachStore } from '../helpers/stores.ts';

describeEachStore('migration 015 (OAuth client use)', (getStore, backend) => {
  it('fills first_authorized_at and last_used_at of stored clients from their grants', async () => {
    const { db } = getStore();
    const core = createCore({ store: getStore(), config: testConfig() });
    const { account, key } = await core.workspaces.create('migration 015');
    const auth = await core.apiKeys.authenticate(key.key, null);
    assert.ok(auth.ok);
    const schema =
      backend.name === 'postgres'
        ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s
        : undefined;
    await migrateTo(db as Kysely<unknown>, '014_search_words_after', schema);
    try {
      const client = (id: string) =>
        sql`insert into oauth_clients (client_id, kind, token_endpoint_auth_method, client_name, redirect_uris,
            created_at, updated_at)
          values (${id}, 'registered', 'none', 'old', '["http://127.0.0.1/cb"]', '2025-01-01Z', '2025-01-01Z')`.execute(
          db,
        );
      const grant = (id: string, created: string, lastUsed: string | null) =>
        sql`insert into oauth_grants (id, client_id, workspace_id, key_id, redirect_uri, scope, resource, created_at,
            last_used_at)
          values (${id}, 'stcl_used', ${account.orgId}, ${auth.principal.keyId}, 'http://127.0.0.1/cb', 'mcp',
            'http://127.0.0.1/mcp', ${created}::timestamptz, ${lastUsed}::timestamptz)`.execute(db);
      await client('stcl_used');
      await client('stcl_never');
      await grant('00000000-0000-4000-8000-000000000001', '2025-02-01Z', '2025-03-01Z');
      await grant('00000000-0000-4000-8000-000000000002', '2025-02-10Z', null);
      await grant('00000000-0000-4000-8000-000000000003', '2025-04-01Z', null);
    } finally {
      await migrateToLatest(db as Kysely<unknown>, schema);
    }
    const rows = await sql<{ client_id: string; first: Date | null; last: Date | null }>`
      select client_id, first_authorized_at as first, last_used_at as last from oauth_clients
       where client_id in ('stcl_used', 'stcl_never') order by client_id`.execute(db);
    assert.deepEqual(
      rows.rows.map((r) => [r.client_id, r.first?.toISOString() ?? null, r.last?.toISOString() ?? null]),
      [
        ['stcl_never', null, null],
        ['stcl_used', '2025-02-01T00:00:00.000Z', '2025-04-01T00:00:00.000Z'],
      ],
    );
  });
});
