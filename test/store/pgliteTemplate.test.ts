// The embedded store's migrated template: built once, loaded by fresh stores, dropped when bad, never reused stale.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { createCore } from '../../src/core/core.ts';
import { migrateToLatest, migrationsFingerprint } from '../../src/core/store/migrate.ts';
import { openStore, type Store } from '../../src/core/store/openStore.ts';
import { defaultTemplateFile } from '../../src/core/store/pgliteStart.ts';
import type { Database } from '../../src/core/store/schema.ts';
import { testConfig } from '../helpers/api.ts';

const MIGRATIONS_DIR = new URL('../../src/core/store/migrations/', import.meta.url);
const MIGRATIONS = readdirSync(MIGRATIONS_DIR)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -'.ts'.length))
  .sort();

async function appliedMigrations(db: Kysely<Database>): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.rows.map((r) => r.name);
}

/** What a store made from the template must look like: migrated, with pg_trgm, usable, in `postgres`. */
async function assertUsableStore(store: Store): Promise<void> {
  assert.deepEqual(await appliedMigrations(store.db), MIGRATIONS);
  const ext = await sql<{ extname: string }>`select extname from pg_extension`.execute(store.db);
  assert.ok(
    ext.rows.some((r) => r.extname === 'pg_trgm'),
    'pg_trgm is installed',
  );
  const db = await sql<{ name: string }>`select current_database() as name`.execute(store.db);
  assert.equal(db.rows[0]?.name, 'postgres');
  const { account } = await createCore({ store, config: testConfig() }).workspaces.create('from-template');
  assert.ok(account.orgId);
}

/** The template has no template0/template1 (every store uses `postgres`); a store made by initdb has both. */
async function assertMadeFromTemplate(store: Store): Promise<void> {
  const dbs = await sql<{ datname: string }>`select datname from pg_database order by 1`.execute(store.db);
  assert.deepEqual(
    dbs.rows.map((r) => r.datname),
    ['postgres'],
    'made from the template, not by initdb',
  );
}

/** A one-file ustar archive: a well-formed tar that is no postgres data directory. */
function tarOfOneFile(name: string, content: string): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 'latin1');
  header.write('0000644\0', 100, 'latin1');
  header.write('0000000\0', 108, 'latin1');
  header.write('0000000\0', 116, 'latin1');
  header.write(content.length.toString(8).padStart(11, '0') + '\0', 124, 'latin1');
  header.write('00000000000\0', 136, 'latin1');
  header.write('        ', 148, 'latin1');
  header.write('0', 156, 'latin1');
  header.write('ustar\0', 257, 'latin1');
  header.write('00', 263, 'latin1');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'latin1');
  const body = Buffer.alloc(Math.ceil(content.length / 512) * 512);
  body.write(content, 'latin1');
  return Buffer.concat([header, body, Buffer.alloc(1024)]);
}

describe('embedded store template', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'sandtrap-template-'));
    dirs.push(d);
    return d;
  };
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('is built on the first fresh store, written whole, and loaded as is by the next', async () => {
    const templateFile = join(tempDir(), 'cache', 'pglite-test.tar');
    const first = await openStore({ kind: 'pglite', dataDir: tempDir(), templateFile });
    try {
      await assertUsableStore(first);
    } finally {
      await first.close();
    }
    assert.ok(existsSync(templateFile), 'the template was written');
    assert.deepEqual(
      readdirSync(join(templateFile, '..')).filter((n) => n.includes('.partial')),
      [],
      'no partial file is left behind',
    );
    const builtAt = statSync(templateFile).mtimeMs;

    const dataDir = tempDir();
    const second = await openStore({ kind: 'pglite', dataDir, templateFile });
    try {
      await assertUsableStore(second);
      await assertMadeFromTemplate(second);
    } finally {
      await second.close();
    }
    assert.equal(statSync(templateFile).mtimeMs, builtAt, 'the second store loaded it, not rebuilt it');

    // The data written into the loaded store is on disk: it survives a reopen, which starts without the template.
    const reopened = await openStore({ kind: 'pglite', dataDir, templateFile: join(tempDir(), 'none.tar') });
    try {
      const names = await reopened.db.selectFrom('workspaces').select('name').execute();
      assert.ok(names.some((w) => w.name === 'from-template'));
    } finally {
      await reopened.close();
    }
  });

  it('an in-memory store (tests, mcp --embedded) starts from the template too', async () => {
    const templateFile = join(tempDir(), 'pglite-test.tar');
    const store = await openStore({ kind: 'pglite', dataDir: undefined, templateFile });
    try {
      await assertUsableStore(store);
      await assertMadeFromTemplate(store);
    } finally {
      await store.close();
    }
    assert.ok(existsSync(templateFile));
  });

  it('a file in its place that is not a template is replaced by a good one', async () => {
    const templateFile = join(tempDir(), 'pglite-test.tar');
    const garbage = 'this is not a tar of a postgres data directory '.repeat(100);
    writeFileSync(templateFile, garbage);
    const store = await openStore({ kind: 'pglite', dataDir: tempDir(), templateFile });
    try {
      await assertUsableStore(store);
    } finally {
      await store.close();
    }
    const rebuilt = readFileSync(templateFile);
    assert.equal(rebuilt.subarray(257, 262).toString('latin1'), 'ustar', 'a tar now');
    assert.ok(rebuilt.length > garbage.length);
  });

  it('a tar that PGlite cannot start from is removed, and the store still opens by running initdb', async () => {
    const templateFile = join(tempDir(), 'pglite-test.tar');
    writeFileSync(templateFile, tarOfOneFile('PG_VERSION', 'not a cluster\n'));
    const dataDir = tempDir();
    const store = await openStore({ kind: 'pglite', dataDir, templateFile });
    try {
      await assertUsableStore(store);
    } finally {
      await store.close();
    }
    assert.ok(!existsSync(templateFile), 'the bad template was discarded');
  });

  it('a data directory that already holds a cluster is opened as it is, never overwritten from the template', async () => {
    const dataDir = tempDir();
    const templateFile = join(tempDir(), 'pglite-test.tar');
    const first = await openStore({ kind: 'pglite', dataDir, templateFile });
    await createCore({ store: first, config: testConfig() }).workspaces.create('kept');
    await first.close();
    const again = await openStore({ kind: 'pglite', dataDir, templateFile });
    try {
      const names = await again.db.selectFrom('workspaces').select('name').execute();
      assert.ok(names.some((w) => w.name === 'kept'));
    } finally {
      await again.close();
    }
  });

  it('a data directory it cannot read is an error, never taken for a fresh one and loaded over', async () => {
    const dataDir = tempDir();
    // readdir fails with ENOTDIR here; any failure other than "missing" must leave the path alone.
    writeFileSync(join(dataDir, 'pgdata'), 'not a directory');
    await assert.rejects(openStore({ kind: 'pglite', dataDir, templateFile: join(tempDir(), 't.tar') }));
    assert.equal(readFileSync(join(dataDir, 'pgdata'), 'utf8'), 'not a directory');
  });

  it('is named after the PGlite version and the migrations, so a changed migration never reuses an old one', () => {
    const file = defaultTemplateFile();
    assert.match(
      file,
      /node_modules[/\\]\.cache[/\\]sandtrap[/\\]pglite-\d+\.\d+\.\d+-r\d+-[0-9a-f]{16}\.tar$/,
    );
    assert.ok(file.includes(migrationsFingerprint()));
    assert.equal(migrationsFingerprint(), migrationsFingerprint(), 'stable for the same files');
  });

  it('migrating a store that is already up to date changes nothing', async () => {
    const store = await openStore({
      kind: 'pglite',
      dataDir: undefined,
      templateFile: join(tempDir(), 'pglite-test.tar'),
    });
    try {
      await migrateToLatest(store.db as Kysely<unknown>);
      assert.deepEqual(await appliedMigrations(store.db), MIGRATIONS);
      // A store one migration behind is brought up to date by the migrator, not skipped by the fast check.
      const indexes = async () =>
        (
          await sql<{ indexname: string }>`select indexname from pg_indexes
            where tablename in ('messages', 'requests') order by 1`.execute(store.db)
        ).rows.map((r) => r.indexname);
      const before = await indexes();
      const newest = MIGRATIONS.at(-1) as string;
      const migration = (await import(new URL(`${newest}.ts`, MIGRATIONS_DIR).href)) as {
        down(db: Kysely<unknown>): Promise<void>;
      };
      await migration.down(store.db as Kysely<unknown>);
      await sql`delete from kysely_migration where name = ${newest}`.execute(store.db);
      assert.deepEqual(await appliedMigrations(store.db), MIGRATIONS.slice(0, -1));
      await migrateToLatest(store.db as Kysely<unknown>);
      assert.deepEqual(await appliedMigrations(store.db), MIGRATIONS);
      assert.deepEqual(await indexes(), before, `${newest} ran again`);
    } finally {
      await store.close();
    }
  });
});
