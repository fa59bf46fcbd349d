// Statements with one best plan run as named prepared statements (prepared.ts) on both stores: the lookups by
// key the API makes on every call and the unfiltered stream pages are prepared in the session that ran them,
// keep giving the right rows past the point where postgres switches to a generic plan, and a different query
// under the same name runs as itself.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { sql } from 'kysely';
import { generateApiKey, hashApiKey } from '../../src/core/apiKeyFormat.ts';
import { findApiKeyByHash, insertApiKey } from '../../src/core/store/repos/apiKeys.ts';
import {
  findMessage,
  insertMessagesIfLive,
  listMessages,
  type MessageFilter,
} from '../../src/core/store/repos/messages.ts';
import { findTokenWithGrant } from '../../src/core/store/repos/oauth.ts';
import { preparedLookup } from '../../src/core/store/repos/prepared.ts';
import { findRequest, insertRequestsIfCurrent, listRequests } from '../../src/core/store/repos/requests.ts';
import {
  findCaptureSandbox,
  findLiveSandboxById,
  findSandbox,
} from '../../src/core/store/repos/sandboxes.ts';
import { findSessionByHash } from '../../src/core/store/repos/sessions.ts';
import { messageRow, requestRow } from '../helpers/captureRows.ts';
import { insertSandbox, workspaceOf } from '../helpers/sandboxRow.ts';
import { describeEachStore } from '../helpers/stores.ts';

/** Postgres plans a prepared statement anew for its first five runs, then may keep a generic plan. */
const PAST_GENERIC = 8;

describeEachStore('statements with one best plan, prepared', (getStore) => {
  it('every lookup the API makes per call, and the unfiltered pages, are prepared in the session that ran them', async () => {
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
      const after = { at: new Date(), id: randomUUID() };
      // Shaped as the API passes it: the parsed query string, with its page fields and unset filters.
      const parsedQuery = { limit: 10, cursor: undefined, q: undefined } as MessageFilter;
      await listMessages(conn, sandboxId, parsedQuery, 10, undefined);
      await listMessages(conn, sandboxId, {}, 10, after);
      await listRequests(conn, sandboxId, {}, 10, undefined);
      await listRequests(conn, sandboxId, {}, 10, after);
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
      'message_page',
      'message_page_after',
      'request_page',
      'request_page_after',
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

  it('pages through a stream, newest first, the same way past the switch to a generic plan', async () => {
    const { db } = getStore();
    const sandboxId = await insertSandbox(db);
    const other = await insertSandbox(db);
    const start = Date.UTC(2026, 0, 1);
    // Two rows share each time, so the id breaks the tie, as the cursor must.
    const messages = Array.from({ length: 12 }, (_, n) => ({
      ...messageRow(n % 3 === 0 ? other : sandboxId, n),
      received_at: new Date(start + Math.floor(n / 2) * 1000),
    }));
    await insertMessagesIfLive(db, messages);
    const requests = Array.from({ length: 12 }, (_, n) => {
      const r = requestRow(n % 3 === 0 ? other : sandboxId, 1, n);
      return { ...r, row: { ...r.row, received_at: new Date(start + Math.floor(n / 2) * 1000) } };
    });
    await insertRequestsIfCurrent(db, requests);
    const newestFirst = (rows: Array<{ id: string; sandbox_id: string; received_at: Date }>) =>
      rows
        .filter((r) => r.sandbox_id === sandboxId)
        .sort((a, b) => b.received_at.getTime() - a.received_at.getTime() || (b.id < a.id ? -1 : 1))
        .map((r) => r.id);
    const walk = async (
      page: (
        cursor: { at: Date; id: string } | undefined,
      ) => Promise<Array<{ id: string; received_at: Date }>>,
    ) => {
      const ids: string[] = [];
      let cursor: { at: Date; id: string } | undefined;
      for (;;) {
        const rows = await page(cursor);
        ids.push(...rows.map((r) => r.id));
        if (rows.length < 3) return ids;
        const last = rows[rows.length - 1]!;
        cursor = { at: last.received_at, id: last.id };
      }
    };
    for (let i = 0; i < PAST_GENERIC; i++) {
      assert.deepEqual(await walk((c) => listMessages(db, sandboxId, {}, 3, c)), newestFirst(messages));
      assert.deepEqual(
        await walk((c) => listRequests(db, sandboxId, {}, 3, c)),
        newestFirst(requests.map((r) => r.row)),
      );
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
