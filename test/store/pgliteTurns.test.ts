// The embedded store lets the event loop go round while a backlog of statements drains: PGlite starts each
// queued statement from the previous one's promise, so without this a setImmediate (a socket read, /healthz)
// scheduled behind 100 queued statements would run only after the last of them. With it, it runs while most
// are still queued, every statement still completes in order, and a transaction among them stays whole.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/core/store/openStore.ts';

describe('embedded store: a backlog of statements yields to the event loop', () => {
  let store: Store;
  before(async () => {
    store = await openStore({ kind: 'pglite', dataDir: undefined });
  });
  after(() => store.close());

  it('a setImmediate queued behind 100 statements runs before the last of them', async () => {
    const N = 100;
    const order: number[] = [];
    // 2 ms each: far more than one turn's slice of store time in all.
    const all = Array.from({ length: N }, (_, i) =>
      sql`select pg_sleep(0.002)`.execute(store.db).then(() => order.push(i)),
    );
    let doneWhenTheLoopTurned = -1;
    setImmediate(() => (doneWhenTheLoopTurned = order.length));
    await Promise.all(all);
    assert.ok(
      doneWhenTheLoopTurned >= 0 && doneWhenTheLoopTurned < N,
      `ran after ${doneWhenTheLoopTurned} of ${N}`,
    );
    assert.deepEqual(
      order,
      Array.from({ length: N }, (_, i) => i),
      'every statement ran, in the order queued',
    );
  });

  it('a transaction queued among them stays whole', async () => {
    await sql`create temporary table turns_t (n int)`.execute(store.db);
    const before = Array.from({ length: 40 }, () => sql`select pg_sleep(0.001)`.execute(store.db));
    const inTransaction = store.db.transaction().execute(async (trx) => {
      await sql`insert into turns_t values (1)`.execute(trx);
      await sql`select pg_sleep(0.005)`.execute(trx);
      await sql`insert into turns_t values (2)`.execute(trx);
    });
    const counts = Array.from({ length: 40 }, () =>
      sql<{ c: number }>`select count(*)::int as c from turns_t`.execute(store.db).then((r) => r.rows[0]?.c),
    );
    await Promise.all([...before, inTransaction]);
    // Every read saw none or both rows, never one.
    for (const c of await Promise.all(counts)) assert.ok(c === 0 || c === 2, `saw ${c} rows`);
    assert.equal(
      (await sql<{ c: number }>`select count(*)::int as c from turns_t`.execute(store.db)).rows[0]?.c,
      2,
    );
  });
});
