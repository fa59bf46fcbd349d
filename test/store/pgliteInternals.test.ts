// Contract of the PGlite internals sandtrap relies on (pgliteInternals.ts, durableNodeFs.ts, pgliteGuard.ts):
// PGlite is pinned exactly, and when an upgrade changes one of them this fails naming the version.
import assert from 'node:assert/strict';
import fs, { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, mock } from 'node:test';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/core/store/openStore.ts';
import { GuardedPGlite, LostInstanceError } from '../../src/core/store/pgliteGuard.ts';
import { missingInternals, runExclusive } from '../../src/core/store/pgliteInternals.ts';

const VERSION = (
  JSON.parse(readFileSync('node_modules/@electric-sql/pglite/package.json', 'utf8')) as { version: string }
).version;
const PGLITE = `@electric-sql/pglite ${VERSION}`;

/** A few turns of the event loop: enough for a call that does not wait for a lock to have run. */
async function turns(n = 20): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe(`PGlite internals (${PGLITE})`, () => {
  // One instance (each start runs initdb): the last test loses it.
  let pglite: GuardedPGlite;

  before(async () => {
    pglite = new GuardedPGlite({});
    await pglite.waitReady;
  });
  after(async () => {
    await pglite.close().catch(() => undefined);
  });

  it('has the readiness wait and the two query locks as methods', () => {
    assert.deepEqual(missingInternals(pglite), [], `${PGLITE} changed its private query locks`);
  });

  it('runs an exclusive call only after an open transaction ends, as query does', async () => {
    const order: string[] = [];
    let opened!: () => void;
    const isOpen = new Promise<void>((resolve) => (opened = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tx = pglite.transaction(async (t) => {
      await t.query('select 1');
      opened();
      await held;
      order.push('transaction ends');
    });
    await isOpen;
    const exclusive = runExclusive(pglite, async () => {
      order.push('exclusive runs');
    });
    await turns();
    order.push('released');
    release();
    await Promise.all([tx, exclusive]);
    assert.deepEqual(
      order,
      ['released', 'transaction ends', 'exclusive runs'],
      `${PGLITE}: _runExclusiveTransaction no longer holds back a call while a transaction is open`,
    );
  });

  it('refuses calls into a lost instance: every query goes through execProtocolRawSync', async () => {
    assert.equal((await pglite.query<{ n: number }>('select 1 as n')).rows[0]?.n, 1);
    pglite.lose('test');
    for (const call of [
      () => pglite.query('select 1'),
      () => pglite.exec('select 1'),
      () => pglite.transaction((t) => t.query('select 1')),
    ]) {
      await assert.rejects(
        call,
        (err) => err instanceof LostInstanceError,
        `${PGLITE}: a call reached postgres without execProtocolRawSync`,
      );
    }
  });
});

describe(`PGlite's NODEFS (${PGLITE})`, () => {
  let dir: string;
  let store: Store;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sandtrap-nodefs-'));
    store = await openStore({ kind: 'pglite', dataDir: dir });
    await sql`create table nodefs_probe (n int)`.execute(store.db);
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("carries postgres' fsync of a commit to the disk through the added stream operation", async () => {
    const synced = mock.method(fs, 'fdatasyncSync');
    try {
      await sql`insert into nodefs_probe values (1)`.execute(store.db);
      assert.ok(
        synced.mock.callCount() > 0,
        `${PGLITE}: NODEFS.stream_ops.fsync is no longer what postgres' fsync reaches (durableNodeFs.ts)`,
      );
    } finally {
      synced.mock.restore();
    }
  });
});
