// Starts PGlite for a store: durable settings, a fast bytea codec, pg_trgm; a fresh store loads the migrated template.
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, PGliteDialect } from 'kysely';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { DurableNodeFS, type DiskFault } from './durableNodeFs.ts';
import { migrateToLatest, migrationsFingerprint } from './migrate.ts';
import { GuardedPGlite } from './pgliteGuard.ts';
import { discardTemplate, ensureTemplate, templatePath } from './pgliteTemplate.ts';

/**
 * PGlite's defaults start postgres with -F (fsync off); committed data must survive a crash. The WAL is flushed
 * with fsync(), the one sync call PGlite's Node file system carries to the disk (durableNodeFs.ts). Its 128 MB of
 * shared buffers live in the WASM heap, and the pages are cached by the OS as well: 32 MB starts about 60 ms
 * sooner and holds about 100 MB less resident memory.
 * ANALYZE runs on the main thread and holds the process while it reads its sample, 300 rows per statistics
 * target: at 100 (the default) 30,000 rows, 1-3.4 s for 200,000 messages on a 2-core machine; at 10, 3,000
 * rows and about 80 ms, and the list bench's queries kept their plans and the blocks they read
 * (maintenance.ts).
 */
function startParams(): string[] {
  // PGlite: defaultStartParams is a public static its type declarations leave out.
  const defaults = (PGlite as unknown as { defaultStartParams?: string[] }).defaultStartParams;
  if (defaults === undefined)
    throw new Error('PGlite.defaultStartParams is missing; check the PGlite version');
  return [
    ...defaults.filter((p) => p !== '-F'),
    ...['-c', 'shared_buffers=32MB', '-c', 'wal_sync_method=fsync', '-c', 'default_statistics_target=10'],
  ];
}

const BYTEA_OID = 17;

/**
 * PGlite's own bytea codec converts byte by byte through arrays of strings, which dominated the capture path
 * in profiles. A parameter that stays a Uint8Array is sent in binary format (PGlite's bind does that for any
 * typed array), so raw mail and bodies cross into postgres as they are: no hex text to build, measure, copy and
 * decode again. Results still arrive as hex text, which Buffer decodes natively.
 */
const byteaCodec = {
  serializers: {
    // Not for bytea[] parameters: PGlite's array serializer expects strings from the element serializer (no
    // query passes one).
    [BYTEA_OID]: ((value: unknown): Uint8Array => {
      if (!(value instanceof Uint8Array)) throw new Error('Invalid input for bytea type');
      return value;
      // PGlite: serializers are typed to return text, but its protocol layer sends a Uint8Array as binary.
    }) as unknown as (value: unknown) => string,
  },
  parsers: {
    [BYTEA_OID]: (text: string): Uint8Array => Buffer.from(text.slice(2), 'hex'),
  },
};

/** A store is fresh when PGlite has not created its cluster yet: nothing in the data directory at all. */
function isFresh(pgdata: string | undefined): boolean {
  if (pgdata === undefined) return true;
  try {
    return readdirSync(pgdata).length === 0;
  } catch (err) {
    // Only a missing directory is fresh: any other failure to look must never lead to loading over a cluster.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw err;
  }
}

/** What a store learns from a running instance's file system (durableNodeFs.ts). */
export interface PgliteWatch {
  onDiskFault?(fault: DiskFault): void;
  /** Postgres PANICked: the instance is lost already (it refuses every call); start another to go on. */
  onLost?(): void;
}

/** A started instance and the way to let go of one that was lost without entering it again. */
export interface PgliteHandle {
  pglite: GuardedPGlite;
  /** Closes the instance's files. For a lost instance only: `close()` would enter postgres (and spin). */
  abandon(): Promise<void>;
}

async function startPglite(
  pgdata: string | undefined,
  template: Blob | undefined,
  watch: PgliteWatch = {},
): Promise<PgliteHandle> {
  const fs =
    pgdata === undefined
      ? undefined
      : new DurableNodeFS(pgdata, {
          onDiskFault: watch.onDiskFault,
          onAbort: () => {
            // Called from inside postgres, long after the constructor below returned.
            pglite.lose('postgres stopped (PANIC) in this instance');
            watch.onLost?.();
          },
        });
  const abandon = async () => {
    // Closing every file the instance holds open: on a full disk, the space of a file already removed comes
    // back only then. Nothing runs in postgres.
    await fs?.closeFs().catch(() => undefined);
  };
  const pglite = new GuardedPGlite({
    ...(fs === undefined ? {} : { fs }),
    ...(template === undefined ? {} : { loadDataDir: template }),
    startParams: startParams(),
    ...byteaCodec,
    extensions: { pg_trgm },
  });
  try {
    await pglite.waitReady;
  } catch (err) {
    await abandon();
    throw err;
  }
  return { pglite, abandon };
}

/** Part of the template's name: a change to how the template is built must not reuse one built the old way. */
const TEMPLATE_RECIPE = 'r3';

/**
 * Free space maps and visibility maps are optional forks: postgres makes them again when a relation needs one
 * (an insert that finds no map extends the table; VACUUM writes both). Left out of the template, 84 of its 430
 * files are not created on every fresh start.
 */
async function dropOptionalForks(pglite: PGlite): Promise<void> {
  const found = await pglite.query<{ dir: string }>(`select current_setting('data_directory') as dir`);
  const dataDir = found.rows[0]?.dir;
  if (dataDir === undefined) throw new Error('PGlite did not report its data directory');
  const fs = pglite.Module.FS;
  const databases = fs.readdir(`${dataDir}/base`).filter((name: string) => /^\d+$/.test(name));
  for (const dir of ['global', ...databases.map((name: string) => `base/${name}`)]) {
    for (const name of fs.readdir(`${dataDir}/${dir}`) as string[])
      if (/^\d+_(fsm|vm)$/.test(name)) fs.unlink(`${dataDir}/${dir}/${name}`);
  }
}

/** initdb and every migration, run once in memory, as a tar of the resulting data directory. */
async function buildTemplateTar(): Promise<Uint8Array> {
  const { pglite } = await startPglite(undefined, undefined);
  try {
    // Every store lives in the `postgres` database. Without the two template databases the tar holds 400 files,
    // not 1,000, and creating files is most of what loading it costs (about 0.5 ms each on this CI's ext4).
    for (const name of ['template0', 'template1']) {
      await pglite.query(`ALTER DATABASE ${name} WITH is_template false`);
      await pglite.query(`DROP DATABASE ${name}`);
    }
    await migrateToLatest(new Kysely<unknown>({ dialect: new PGliteDialect({ pglite }) }));
    // A checkpoint first, so that a store loaded from the tar has next to no WAL to replay.
    await pglite.exec('CHECKPOINT');
    await dropOptionalForks(pglite);
    return new Uint8Array(await (await pglite.dumpDataDir('none')).arrayBuffer());
  } finally {
    await pglite.close();
  }
}

/** The template this code would build, in this installation's cache. */
export function defaultTemplateFile(): string {
  return templatePath(`${TEMPLATE_RECIPE}-${migrationsFingerprint()}`);
}

/** Builds the template now unless it exists (`npm ci` runs this, so that even the first start is quick). */
export async function prepareTemplate(file = defaultTemplateFile()): Promise<string> {
  await ensureTemplate(file, buildTemplateTar);
  return file;
}

/**
 * PGlite for a store in `pgdata` (undefined: in memory). A fresh store starts from the migrated template, built
 * first if there is none; a template that fails to load is dropped and the store runs initdb itself.
 */
export async function startPgliteStore(
  pgdata: string | undefined,
  templateFile = defaultTemplateFile(),
  watch: PgliteWatch = {},
): Promise<PgliteHandle> {
  if (!isFresh(pgdata)) return startPglite(pgdata, undefined, watch);
  const template = await ensureTemplate(templateFile, buildTemplateTar);
  try {
    if (pgdata === undefined) return await startPglite(undefined, template, watch);
    // Unpacked by node-tar rather than PGlite's loadDataDir, which goes through the WASM file system and took
    // 0.3-0.5 s of a 1.5 s first start for the 350 files that node-tar writes in about 0.15 s.
    mkdirSync(pgdata, { recursive: true, mode: 0o700 });
    const { extract } = await import('tar'); // only a fresh store needs it: no load cost on every other start
    extract({ file: templateFile, cwd: pgdata, sync: true, preserveOwner: false, noMtime: true });
    return await startPglite(pgdata, undefined, watch);
  } catch (templateError) {
    // PGlite's loadDataDir (in-memory stores) refuses to load over a cluster; one found after all stays as it is.
    if (templateError instanceof Error && templateError.message.includes('Database already exists')) {
      throw templateError;
    }
    discardTemplate(templateFile);
    // Only files extracted from the template are here: the directory was empty or missing a moment ago
    // (isFresh), and the lock keeps other processes out.
    if (pgdata !== undefined) rmSync(pgdata, { recursive: true, force: true });
    return startPglite(pgdata, undefined, watch);
  }
}

/**
 * A new instance on the files of one that was lost: postgres recovers from the WAL, as after kill -9. Needs
 * room on the disk (the end of recovery writes a checkpoint, into a new WAL segment when the last one is full).
 */
export function restartPgliteStore(pgdata: string, watch: PgliteWatch = {}): Promise<PgliteHandle> {
  return startPglite(pgdata, undefined, watch);
}
