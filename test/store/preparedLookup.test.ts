// Lookups by key run as named prepared statements (preparedLookup.ts) on both stores: each one the API makes on
// every call is prepared in the session that ran it, keeps giving the right row past the point where postgres
// switches to a generic plan, and a different query under the same name runs as itself.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { generateApiKey, hashApiKey } from '../../src/core/apiKeyFormat.ts';
import { findApiKeyByHash, insertApiKey } from '../../src/core/store/repos/apiKeys.ts';
import { findMessage, insertMessagesIfLive } from '../../src/core/store/repos/messages.ts';
import { findTokenWithGrant } from '../../src/core/store/repos/oauth.ts';
import { preparedLookup } from '../../src/core/store/repos/preparedLookup.ts';
import { findRequest, insertRequestsIfCurrent } from '../../src/core/store/repos/requests.ts';
import {
  findCaptureSandbox,
  findLiveSandboxById,
  findSandbox,
} from '../../src/core/store/repos/sandboxes.ts';
import { findSessionByHash } from '../../src/core/store/repos/sessions.ts';
import type { Database } from '../../src/core/store/schema.ts';
import { messageRow, requestRow } from '../helpers/captureRows.ts';
import { insertSandbox } from '../helpers/sandboxRow.ts';
import { describeEachStore } from '../helpers/stores.ts';

/** Postgres plans a prepared statement anew for its first five runs, then may keep a generic plan. */
const PAST_GENERIC = 8;

async function workspaceOf(db: Kysely<Database>, sandboxId: string): Promise<string> {
  const row = await db
    .selectFrom('sandboxes')
    .select('workspace_id')
    .where('id', '=', sandboxId)
    .executeTakeFirstOrThrow();
  return row.workspace_id;
}

describeEachStore('lookups by key as prepared statements', (getStore) => {
  it('every lookup the API makes per call is prepared in the session that ran it', async () => {
    const { db } = getStore();
    const sandboxId = await insertSandbox(db);
    // One connection throughout: prepared statements belong to a session (a pooled connection on PostgreSQL).
    const names = await db.connection().execute(async (conn) => {
      const miss = randomBytes(32).toString('hex');
      await findApiKeyByHash(conn, miss);
      await findSandbox(conn, randomUUID(), sandboxId, new Date());
      await findLiveSandboxById(conn, sandboxId, new Date());
      await findCaptureSandbox(conn, sandboxId, new Date());
      await findMessage(conn, sandboxId, randomUUID());
      await findRequest(conn, sandboxId, randomUUID());
      await findSessionByHash(conn, miss);
      await findTokenWithGrant(conn, miss);
      const rows = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(conn);
      return rows.rows.map((r) => r.name.replace(/_[0-9a-f]{12}$/, ''));
    });
    for (const name of [
      'api_key_by_hash',
      'sandbox',
      'live_sandbox',
      'capture_sandbox',
      'message',
      'request',
      'session_by_hash',
      'oauth_token_by_hash',
    ]) {
      assert.ok(names.includes(`sandtrap_${name}`), `${name} prepared (found: ${names.join(', ')})`);
    }
  });

  it('keeps finding the right rows, and nothing else, past the switch to a generic plan', async () => {
    const { db } = getStore();
    const live = await insertSandbox(db);
    const expired = await insertSandbox(db, { expired: true });
    const workspace = await workspaceOf(db, live);
    const key = generateApiKey();
    const keyRow = await insertApiKey(db, {
      id: randomUUID(),
      workspace_id: workspace,
      label: 'k',
      prefix: 'st_xxxx',
      key_hash: hashApiKey(key),
      created_at: new Date(),
      expires_at: null,
      revoked_at: null,
      last_used_at: null,
      last_used_ip: null,
    });
    const message = messageRow(live, 1);
    await insertMessagesIfLive(db, [message]);
    const request = requestRow(live, 1, 1);
    await insertRequestsIfCurrent(db, [request]);
    for (let i = 0; i < PAST_GENERIC; i++) {
      const now = new Date();
      assert.equal((await findSandbox(db, workspace, live, now))?.id, live);
      assert.equal(await findSandbox(db, workspace, expired, now), undefined, 'another workspace');
      assert.equal(await findSandbox(db, await workspaceOf(db, expired), expired, now), undefined, 'expired');
      assert.equal(await findSandbox(db, randomUUID(), live, now), undefined, 'not its workspace');
      assert.equal((await findLiveSandboxById(db, live, now))?.workspace_id, workspace);
      assert.equal(await findLiveSandboxById(db, expired, now), undefined);
      assert.equal((await findCaptureSandbox(db, live, now))?.version, 1);
      assert.equal(await findCaptureSandbox(db, expired, now), undefined);
      const found = await findApiKeyByHash(db, hashApiKey(key));
      assert.equal(found?.key.id, keyRow.id);
      assert.equal(found?.workspace.id, workspace);
      assert.equal(await findApiKeyByHash(db, hashApiKey(key + 'x')), undefined);
      assert.equal((await findMessage(db, live, message.id))?.subject, 'm1');
      assert.equal(await findMessage(db, expired, message.id), undefined, "another sandbox's message");
      assert.equal((await findRequest(db, live, request.row.id))?.path, '/hook/1');
      assert.equal(await findRequest(db, expired, request.row.id), undefined, "another sandbox's request");
    }
  });

  it('a different query under the same name runs as itself', async () => {
    const { db } = getStore();
    const sandboxId = await insertSandbox(db);
    const byId = (column: 'id' | 'name') =>
      preparedLookup(db, 'same_name', db.selectFrom('sandboxes').select(column).where('id', '=', sandboxId));
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(await byId('id'), { id: sandboxId });
      assert.deepEqual(await byId('name'), { name: 's' });
    }
  });
});
