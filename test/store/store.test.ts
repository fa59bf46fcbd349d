// The store on both backends: migrations, bootstrap races, sandbox persistence and keyset pages; the
// embedded store's DATA_DIR lock.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { generateApiKey } from '../../src/core/apiKeyFormat.ts';
import { createCore } from '../../src/core/core.ts';
import { lockDataDir, StoreLockedError } from '../../src/core/store/lockFile.ts';
import { migrateToLatest } from '../../src/core/store/migrate.ts';
import { openStore } from '../../src/core/store/openStore.ts';
import type { Database } from '../../src/core/store/schema.ts';
import { testClock } from '../helpers/clock.ts';
import { testConfig } from '../helpers/api.ts';
import { NODE_BIN, REPO_ROOT } from '../helpers/process.ts';
import { describeEachStore } from '../helpers/stores.ts';

describeEachStore('store', (getStore, backend) => {
  const core = () => createCore({ store: getStore(), config: testConfig(), clock: testClock() });

  it('migrations are idempotent', async () => {
    const schema = backend.name === 'postgres' ? await currentSchema(getStore().db) : undefined;
    await migrateToLatest(getStore().db as Kysely<unknown>, schema);
    const tables = await sql<{ table_name: string }>`
      select table_name from information_schema.tables where table_schema = current_schema() order by 1`.execute(
      getStore().db,
    );
    const names = tables.rows.map((r) => r.table_name);
    for (const t of ['workspaces', 'api_keys', 'sandboxes']) assert.ok(names.includes(t), t);
  });

  it('compresses captured bodies with lz4 where the server has it (PostgreSQL), pglz on PGlite', async () => {
    const db = getStore().db;
    const columns = await sql<{ table: string; column: string; method: string }>`
      select c.relname as "table", a.attname as "column", a.attcompression as method
      from pg_attribute a join pg_class c on c.oid = a.attrelid
      where c.relnamespace = current_schema()::regnamespace
        and (c.relname, a.attname) in (('messages', 'raw'), ('messages', 'text_body'), ('messages', 'html_body'),
          ('messages', 'headers'), ('messages', 'attachments'), ('requests', 'body'), ('requests', 'headers'))
      order by 1, 2`.execute(db);
    assert.equal(columns.rows.length, 7);
    const expected = backend.name === 'postgres' ? 'l' : '';
    for (const c of columns.rows) assert.equal(c.method, expected, `${c.table}.${c.column}`);
  });

  it('bootstrap: first start makes "default" and one key, exactly once even when raced', async () => {
    const c = core();
    const results = await Promise.all([c.workspaces.bootstrap(undefined), c.workspaces.bootstrap(undefined)]);
    const keys = results.map((r) => r.firstKey).filter((k) => k !== undefined);
    assert.equal(keys.length, 1);
    const auth = await c.apiKeys.authenticate(keys[0], '127.0.0.1');
    assert.ok(auth.ok && auth.principal.workspaceName === 'default');
    assert.equal((await c.workspaces.bootstrap(undefined)).firstKey, undefined);
  });

  it('bootstrap with BOOTSTRAP_API_KEY stores only its hash in "default", idempotently', async () => {
    const c = core();
    const key = generateApiKey();
    await Promise.all([c.workspaces.bootstrap(key), c.workspaces.bootstrap(key)]);
    await c.workspaces.bootstrap(key);
    const auth = await c.apiKeys.authenticate(key, null);
    assert.ok(auth.ok);
    assert.equal(auth.principal.workspaceName, 'default');
    const stored = await getStore().db.selectFrom('api_keys').select(['key_hash', 'prefix']).execute();
    assert.ok(!JSON.stringify(stored).includes(key), 'the plain key is never stored');
    const count = await getStore()
      .db.selectFrom('api_keys')
      .where('workspace_id', '=', auth.principal.workspaceId)
      .where('label', '=', 'bootstrap')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 1);
  });

  it('sandboxes round-trip tags (unicode), mocks and timestamps to the millisecond', async () => {
    const c = core();
    const { account } = await c.workspaces.create('round-trip');
    const created = await c.sandboxes.create(account.orgId, {
      name: 'Zürich ✉',
      tags: { clé: 'valeur ✓', e: '' },
    });
    const withMocks = await c.sandboxes.setMocks(account.orgId, created.id, {
      mocks: [
        {
          statusCode: 201,
          method: 'post',
          pattern: '/hooks/{id}',
          body: '{"ok":true}',
          headers: { 'X-A': '1' },
        },
        { statusCode: 404, isFallback: true },
      ],
    });
    const read = await c.sandboxes.get(account.orgId, created.id);
    assert.deepEqual(read.tags, { clé: 'valeur ✓', e: '' });
    assert.equal(read.name, 'Zürich ✉');
    assert.equal(read.createdAt.getTime(), created.createdAt.getTime());
    assert.deepEqual(read.mocks, withMocks.mocks);
    assert.deepEqual(
      read.mocks.map((m) => [m.method, m.pattern, m.statusCode, m.isFallback]),
      [
        ['POST', '/hooks/{id}', 201, false],
        ['ANY', '/**', 404, true],
      ],
    );
  });

  it('lists page by keyset without gaps or repeats when createdAt ties', async () => {
    const store = getStore();
    const c = createCore({
      store,
      config: testConfig(),
      clock: { now: () => new Date('2026-01-01T00:00:00Z') },
    });
    const { account } = await c.workspaces.create('ties');
    const ids = new Set<string>();
    for (let i = 0; i < 7; i++) ids.add((await c.sandboxes.create(account.orgId, { name: `s${i}` })).id);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await c.sandboxes.list(account.orgId, { limit: 3, cursor });
      seen.push(...page.items.map((s) => s.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    assert.equal(seen.length, 7);
    assert.deepEqual(new Set(seen), ids);
  });

  it('deleting a workspace removes its keys and sandboxes (cascade)', async () => {
    const c = core();
    const { account, key } = await c.workspaces.create('cascade');
    await c.sandboxes.create(account.orgId, { name: 'gone' });
    await getStore().db.deleteFrom('workspaces').where('id', '=', account.orgId).execute();
    assert.equal((await c.apiKeys.authenticate(key.key, null)).ok, false);
    const left = await getStore()
      .db.selectFrom('sandboxes')
      .where('workspace_id', '=', account.orgId)
      .selectAll()
      .execute();
    assert.equal(left.length, 0);
  });
});

async function currentSchema(db: Kysely<Database>): Promise<string> {
  const r = await sql<{ s: string }>`select current_schema() as s`.execute(db);
  return (r.rows[0] as { s: string }).s;
}

describe('embedded store on disk', () => {
  const dirs: string[] = [];
  const fresh = () => {
    const d = mkdtempSync(join(tmpdir(), 'sandtrap-store-'));
    dirs.push(d);
    return d;
  };
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('runs with fsync on, keeps data across reopen, and holds a lock file while open', async () => {
    const dir = fresh();
    const store = await openStore({ kind: 'pglite', dataDir: dir });
    const fsync = await sql<{ fsync: string }>`show fsync`.execute(store.db);
    assert.equal(fsync.rows[0]?.fsync, 'on');
    assert.ok(existsSync(join(dir, 'sandtrap.lock')));
    await assert.rejects(openStore({ kind: 'pglite', dataDir: dir }), StoreLockedError);
    const c = createCore({ store, config: testConfig() });
    const { account } = await c.workspaces.create('persisted');
    await store.close();
    assert.ok(!existsSync(join(dir, 'sandtrap.lock')), 'lock released on close');

    const again = await openStore({ kind: 'pglite', dataDir: dir });
    try {
      const c2 = createCore({ store: again, config: testConfig() });
      assert.equal((await c2.workspaces.account(account.orgId)).name, 'persisted');
    } finally {
      await again.close();
    }
  });

  it('takes over a stale lock whose process is gone, and names the owner of a live one', async () => {
    const dir = fresh();
    // An old-style pid file naming a live, unrelated process (pid reuse after a reboot) does not block.
    writeFileSync(join(dir, 'sandtrap.lock'), String(process.ppid));
    const lock = await lockDataDir(dir);
    await assert.rejects(lockDataDir(dir), (err: unknown) => {
      return err instanceof StoreLockedError && err.message.includes(`pid ${process.pid}`);
    });
    lock.release();
    assert.ok(!existsSync(join(dir, 'sandtrap.lock')), 'released on close');
    (await lockDataDir(dir)).release();
  });

  it('a lock whose owner was killed is free at once, even while the dead owner is not yet reaped', async () => {
    const dir = fresh();
    // python3 keeps its killed child as a zombie: it never waits for it.
    const holder = spawn(
      'python3',
      [
        '-c',
        'import subprocess,sys,time; p=subprocess.Popen(sys.argv[1:]); print(p.pid, flush=True); time.sleep(60)',
        NODE_BIN,
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'src/core/store/lockFile.ts')).href)});` +
          `await m.lockDataDir(${JSON.stringify(dir)}); console.log('locked'); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      let out = '';
      holder.stdout.setEncoding('utf8');
      await new Promise<void>((resolveLocked, reject) => {
        holder.stdout.on('data', (chunk: string) => {
          out += chunk;
          if (out.includes('locked')) resolveLocked();
        });
        holder.once('exit', () => reject(new Error(`holder exited: ${out}`)));
      });
      const childPid = Number(out.split('\n')[0]);
      await assert.rejects(lockDataDir(dir), (err: unknown) => {
        return err instanceof StoreLockedError && err.message.includes(`pid ${childPid}`);
      });
      process.kill(childPid, 'SIGKILL');
      for (let i = 0; i < 100 && !readFileSync(`/proc/${childPid}/stat`, 'utf8').includes(') Z '); i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.match(readFileSync(`/proc/${childPid}/stat`, 'utf8'), /\) Z /, 'the killed owner is a zombie');
      const lock = await lockDataDir(dir);
      lock.release();
    } finally {
      holder.kill('SIGKILL');
    }
  });
});
