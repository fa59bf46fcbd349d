// The batch inserts of captures on both stores: every batch size stores exactly its live rows (batches are padded
// with null rows to a few prepared shapes), and the inserts run as prepared statements on both stores.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { openStore } from '../../src/core/store/openStore.ts';
import type { Database } from '../../src/core/store/schema.ts';
import { insertMessagesIfLive } from '../../src/core/store/repos/messages.ts';
import { insertRequestsIfCurrent } from '../../src/core/store/repos/requests.ts';
import { insertSandbox } from '../helpers/sandboxRow.ts';
import { messageRow, requestRow, storedIds } from '../helpers/captureRows.ts';
import { describeEachStore } from '../helpers/stores.ts';

describeEachStore('capture batch inserts', (getStore) => {
  it('every batch size from 1 to 17 stores exactly the rows of live sandboxes, and nothing else', async () => {
    const db = getStore().db;
    const live = await insertSandbox(db);
    const expired = await insertSandbox(db, { expired: true });
    const missing = randomUUID();
    for (let size = 1; size <= 17; size++) {
      // Every third row goes to an expired or a missing sandbox: those must not be stored either.
      const rows = Array.from({ length: size }, (_, n) =>
        messageRow(n % 3 === 1 ? expired : n % 3 === 2 ? missing : live, n),
      );
      const before = await storedIds(db, 'messages', live);
      const stored = await insertMessagesIfLive(db, rows);
      const wanted = rows.filter((r) => r.sandbox_id === live).map((r) => r.id);
      assert.deepEqual([...stored].sort(), [...wanted].sort(), `batch of ${size}`);
      const after = await storedIds(db, 'messages', live);
      assert.equal(after.size, before.size + wanted.length, `batch of ${size}: no padding row stored`);
      assert.equal((await storedIds(db, 'messages', expired)).size, 0);
    }
    const total = await sql<{ n: number }>`select count(*)::int as n from messages`.execute(db);
    assert.equal(total.rows[0]?.n, (await storedIds(db, 'messages', live)).size, 'no row without a sandbox');
  });

  it('requests are stored only at their sandbox version, for batch sizes around a padding step', async () => {
    const db = getStore().db;
    const current = await insertSandbox(db, { version: 3 });
    for (const size of [3, 4, 5, 9]) {
      const items = Array.from({ length: size }, (_, n) => requestRow(current, n % 2 === 0 ? 3 : 2, n));
      const stored = await insertRequestsIfCurrent(db, items);
      const wanted = items.filter((i) => i.sandboxVersion === 3).map((i) => i.row.id);
      assert.deepEqual([...stored].sort(), [...wanted].sort(), `batch of ${size}`);
    }
    assert.equal((await storedIds(db, 'requests', current)).size, 2 + 2 + 3 + 5);
  });
});

const pgUrl = process.env.TEST_DATABASE_URL;

/** Inserts message batches of a few sizes and checks which statements the store's session prepared. */
async function assertPreparedOncePerSize(db: Kysely<Database>): Promise<void> {
  const live = await insertSandbox(db);
  const prepared = async () =>
    (await sql<{ name: string }>`select name from pg_prepared_statements order by name`.execute(db)).rows.map(
      (r) => r.name,
    );
  assert.deepEqual(await prepared(), [], 'nothing else is prepared');
  for (const size of [3, 4, 3, 5, 8, 1]) {
    const rows = Array.from({ length: size }, (_, n) => messageRow(live, n));
    assert.equal((await insertMessagesIfLive(db, rows)).size, size);
  }
  assert.deepEqual(await prepared(), [
    'sandtrap_insert_messages_1',
    'sandtrap_insert_messages_4',
    'sandtrap_insert_messages_8',
  ]);
  assert.equal((await storedIds(db, 'messages', live)).size, 3 + 4 + 3 + 5 + 8 + 1);
}

it(
  'on PostgreSQL, capture inserts are prepared once per connection, one statement per padded size',
  {
    skip: pgUrl === undefined || pgUrl === '' ? 'TEST_DATABASE_URL is not set' : false,
  },
  async () => {
    const schema = `test_prepared_${randomUUID().slice(0, 8)}`;
    // One connection, so that pg_prepared_statements (per session) shows everything this store prepared.
    const store = await openStore({ kind: 'postgres', url: pgUrl as string, schema, poolSize: 1 });
    try {
      await assertPreparedOncePerSize(store.db);
    } finally {
      await sql`drop schema ${sql.id(schema)} cascade`.execute(store.db);
      await store.close();
    }
  },
);

it('on the embedded store, capture inserts are prepared once, one statement per padded size', async () => {
  const store = await openStore({ kind: 'pglite', dataDir: undefined });
  try {
    await assertPreparedOncePerSize(store.db);
  } finally {
    await store.close();
  }
});
