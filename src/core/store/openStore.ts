// Opens the store: embedded PGlite in DATA_DIR (fsync on, lock file) or PostgreSQL through `pg`, then migrates.
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, PGliteDialect, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';
import { lockDataDir, type DirLock } from './lockFile.ts';
import { migrateToLatest } from './migrate.ts';

export type StoreKind = 'pglite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  kind: StoreKind;
  close(): Promise<void>;
}

export type StoreOptions =
  | { kind: 'pglite'; dataDir: string | undefined } // undefined: in memory (tests)
  | { kind: 'postgres'; url: string; schema?: string; poolSize?: number };

// bigint columns (sizes) fit comfortably in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/** PGlite's defaults start postgres with -F (fsync off); committed data must survive a crash. */
function durableStartParams(): string[] {
  const defaults = (PGlite as unknown as { defaultStartParams?: string[] }).defaultStartParams;
  if (defaults === undefined)
    throw new Error('PGlite.defaultStartParams is missing; check the PGlite version');
  return defaults.filter((p) => p !== '-F');
}

const BYTEA_OID = 17;

/**
 * PGlite's own bytea codec converts byte by byte through arrays of strings, which dominated the capture path
 * in profiles; Buffer's hex codec does the same conversion natively.
 */
const byteaCodec = {
  serializers: {
    [BYTEA_OID]: (value: unknown): string => {
      if (!(value instanceof Uint8Array)) throw new Error('Invalid input for bytea type');
      return '\\x' + Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
    },
  },
  parsers: {
    [BYTEA_OID]: (text: string): Uint8Array => Buffer.from(text.slice(2), 'hex'),
  },
};

async function openPglite(dataDir: string | undefined): Promise<Store> {
  let lock: DirLock | undefined;
  if (dataDir !== undefined) lock = lockDataDir(dataDir);
  try {
    const pglite = new PGlite({
      ...(dataDir === undefined ? {} : { dataDir: `${dataDir}/pgdata` }),
      startParams: durableStartParams(),
      ...byteaCodec,
      extensions: { pg_trgm },
    });
    await pglite.waitReady;
    const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
    await migrateToLatest(db as Kysely<unknown>);
    return {
      db,
      kind: 'pglite',
      async close() {
        await db.destroy();
        lock?.release();
      },
    };
  } catch (err) {
    lock?.release();
    throw err;
  }
}

async function openPostgres(url: string, schema: string | undefined, poolSize: number): Promise<Store> {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    if (schema !== undefined) await db.schema.createSchema(schema).ifNotExists().execute();
    await migrateToLatest(db as Kysely<unknown>, schema);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return { db, kind: 'postgres', close: () => db.destroy() };
}

/** Closing twice is harmless: the server and its owner may both close the store on shutdown. */
function closeOnce(store: Store): Store {
  let closing: Promise<void> | undefined;
  return { ...store, close: () => (closing ??= store.close()) };
}

export async function openStore(options: StoreOptions): Promise<Store> {
  const store =
    options.kind === 'pglite'
      ? await openPglite(options.dataDir)
      : await openPostgres(options.url, options.schema, options.poolSize ?? 10);
  return closeOnce(store);
}
