// The embedded store syncs its WAL to the disk at every commit (PGlite's Node file system alone never does).
import assert from 'node:assert/strict';
import fs, { mkdtempSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, mock } from 'node:test';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/core/store/openStore.ts';

/** Which files the store synced while `run` ran, by the path their descriptor pointed at. */
async function syncedFiles(run: () => Promise<unknown>): Promise<string[]> {
  const paths: string[] = [];
  const { fdatasyncSync, fsyncSync } = fs;
  const data = mock.method(fs, 'fdatasyncSync', (fd: number) => {
    paths.push(readlinkSync(`/proc/self/fd/${fd}`));
    fdatasyncSync(fd);
  });
  const full = mock.method(fs, 'fsyncSync', (fd: number) => {
    paths.push(readlinkSync(`/proc/self/fd/${fd}`));
    fsyncSync(fd);
  });
  try {
    await run();
  } finally {
    data.mock.restore();
    full.mock.restore();
  }
  return paths;
}

describe('embedded store durability', () => {
  let dir: string;
  let store: Store;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sandtrap-durable-'));
    store = await openStore({ kind: 'pglite', dataDir: dir });
    await sql`create table durable_probe (n int)`.execute(store.db);
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('syncs a WAL file in the data directory at every commit', async () => {
    const commits = 5;
    const synced = await syncedFiles(async () => {
      for (let n = 0; n < commits; n++) await sql`insert into durable_probe values (${n})`.execute(store.db);
    });
    const wal = synced.filter((p) => p.startsWith(join(dir, 'pgdata', 'pg_wal') + '/'));
    assert.ok(wal.length >= commits, `expected >= ${commits} WAL syncs, got ${JSON.stringify(synced)}`);
  });

  it('does not sync for a read', async () => {
    const synced = await syncedFiles(() => sql`select count(*) from durable_probe`.execute(store.db));
    assert.deepEqual(synced, []);
  });

  it('syncs the table files at a checkpoint', async () => {
    await sql`insert into durable_probe values (99)`.execute(store.db);
    const synced = await syncedFiles(() => sql`checkpoint`.execute(store.db));
    assert.ok(
      synced.some((p) => p.startsWith(join(dir, 'pgdata', 'base') + '/')),
      `a table file under base/ is synced: ${JSON.stringify(synced)}`,
    );
  });
});
