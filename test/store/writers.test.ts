// The store writers on both stores: concurrent messages announced while others are being prepared are
// committed and each resolves with just its own stored rows; a withdrawn announcement does not hold a batch;
// requests are stored only at their sandbox's current version; on PostgreSQL the writes are prepared.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { sql } from 'kysely';
import { openStore } from '../../src/core/store/openStore.ts';
import { createStoreWriters, type MessageRowToStore } from '../../src/core/store/writers.ts';
import { insertSandbox } from '../helpers/sandboxRow.ts';
import { messageRow, requestRow, storedIds } from '../helpers/captureRows.ts';
import { describeEachStore } from '../helpers/stores.ts';

describeEachStore('store writers', (getStore) => {
  it('messages: each resolves with its own stored rows once committed; a gone sandbox gets none', async () => {
    const store = getStore();
    const writers = createStoreWriters(store);
    const live = await insertSandbox(store.db);
    const expired = await insertSandbox(store.db, { expired: true });
    const arrivals = Array.from({ length: 6 }, () => writers.messages.announce());
    const withdrawn = writers.messages.announce();
    const messages = arrivals.map((_, n) => [messageRow(live, n), messageRow(expired, n)]);
    const results = await Promise.all(
      arrivals.map(async (arrival, n) => {
        // Prepared one after another, as parses finish on different turns.
        await new Promise((resolve) => setImmediate(resolve));
        if (n === 2) withdrawn.withdraw();
        return arrival.submit(messages[n] as MessageRowToStore[]);
      }),
    );
    results.forEach((stored, n) => assert.deepEqual([...stored], [messages[n]?.[0]?.id]));
    const inStore = await storedIds(store.db, 'messages', live);
    assert.deepEqual(inStore, new Set(messages.map((m) => m[0]?.id)));
    assert.equal((await storedIds(store.db, 'messages', expired)).size, 0);
  });

  it('requests: stored at the current sandbox version, refused at an older one', async () => {
    const store = getStore();
    const writers = createStoreWriters(store);
    const sandbox = await insertSandbox(store.db, { version: 3 });
    const current = Array.from({ length: 5 }, (_, n) => requestRow(sandbox, 3, n));
    const stale = Array.from({ length: 3 }, (_, n) => requestRow(sandbox, 2, 10 + n));
    const results = await Promise.all([...current, ...stale].map((r) => writers.requests.submit(r)));
    assert.deepEqual(results, [true, true, true, true, true, false, false, false]);
    assert.deepEqual(await storedIds(store.db, 'requests', sandbox), new Set(current.map((r) => r.row.id)));
  });
});

const pgUrl = process.env.TEST_DATABASE_URL;

it(
  'on PostgreSQL, the writers run their inserts as prepared statements (the store kind decides, not the caller)',
  { skip: pgUrl === undefined || pgUrl === '' ? 'TEST_DATABASE_URL is not set' : false },
  async () => {
    const schema = `test_writers_${randomUUID().slice(0, 8)}`;
    // One connection, so that pg_prepared_statements (per session) shows everything this store prepared.
    const store = await openStore({ kind: 'postgres', url: pgUrl as string, schema, poolSize: 1 });
    try {
      const writers = createStoreWriters(store);
      const sandbox = await insertSandbox(store.db);
      assert.equal((await writers.messages.announce().submit([messageRow(sandbox, 1)])).size, 1);
      assert.equal(await writers.requests.submit(requestRow(sandbox, 1, 1)), true);
      const prepared = (
        await sql<{ name: string }>`select name from pg_prepared_statements order by name`.execute(store.db)
      ).rows.map((r) => r.name);
      assert.deepEqual(prepared, ['sandtrap_insert_messages_1', 'sandtrap_insert_requests_1_v']);
    } finally {
      await sql`drop schema ${sql.id(schema)} cascade`.execute(store.db);
      await store.close();
    }
  },
);
