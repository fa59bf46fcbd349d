// Opens the store: embedded PGlite in DATA_DIR (fsync on, lock file) or PostgreSQL through `pg`, then migrates.
import { Kysely, PGliteDialect, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';
import { openEmbeddedDatabase, type StoreEvent } from './embeddedDatabase.ts';
import { lockDataDir, type DirLock } from './lockFile.ts';
import { migrateToLatest } from './migrate.ts';
import { yieldingTurns } from './pgliteTurns.ts';
import { preparingPool } from './preparedPool.ts';

export type { StoreEvent };

export type StoreKind = 'pglite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  kind: StoreKind;
  close(): Promise<void>;
  /** The PostgreSQL pool's connections and the queries waiting for one (metrics); absent for PGlite. */
  connections?: () => { total: number; waiting: number };
}

export type StoreOptions =
  // dataDir undefined: in memory (tests). templateFile: where fresh stores' template lives (default: pgliteStart.ts).
  | {
      kind: 'pglite';
      dataDir: string | undefined;
      templateFile?: string;
      /** What the store has to say about its disk: a write it refuses and why, its recovery (embeddedDatabase.ts). */
      onEvent?: (event: StoreEvent) => void;
    }
  | {
      kind: 'postgres';
      url: string;
      schema?: string;
      poolSize?: number;
      /** A pooled connection the server dropped (restart, failover); the pool replaces it when next needed. */
      onConnectionError?: (err: Error) => void;
    };

// bigint columns (sizes) fit comfortably in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

async function openPglite(
  dataDir: string | undefined,
  templateFile: string | undefined,
  onEvent: ((event: StoreEvent) => void) | undefined,
): Promise<Store> {
  let lock: DirLock | undefined;
  if (dataDir !== undefined) lock = await lockDataDir(dataDir);
  try {
    const embedded = await openEmbeddedDatabase({ dataDir, templateFile, onEvent });
    // A backlog of statements never holds the event loop (pgliteTurns.ts).
    const db = new Kysely<Database>({
      dialect: new PGliteDialect({ pglite: yieldingTurns(embedded.pglite) }),
    });
    try {
      await migrateToLatest(db as Kysely<unknown>);
    } catch (err) {
      await db.destroy();
      throw err;
    }
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

/** A request waits at most this long for a connection while the database does not answer. */
const CONNECT_TIMEOUT_MS = 5_000;

async function openPostgres(
  url: string,
  schema: string | undefined,
  poolSize: number,
  onConnectionError: (err: Error) => void,
): Promise<Store> {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  });
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: preparingPool(pool, onConnectionError) }),
  });
  try {
    if (schema !== undefined) await db.schema.createSchema(schema).ifNotExists().execute();
    await migrateToLatest(db as Kysely<unknown>, schema);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return {
    db,
    kind: 'postgres',
    close: () => db.destroy(),
    connections: () => ({ total: pool.totalCount, waiting: pool.waitingCount }),
  };
}

/** Closing twice is harmless: the server and its owner may both close the store on shutdown. */
function closeOnce(store: Store): Store {
  let closing: Promise<void> | undefined;
  return { ...store, close: () => (closing ??= store.close()) };
}

export async function openStore(options: StoreOptions): Promise<Store> {
  const store =
    options.kind === 'pglite'
      ? await openPglite(options.dataDir, options.templateFile, options.onEvent)
      : await openPostgres(
          options.url,
          options.schema,
          options.poolSize ?? 10,
          options.onConnectionError ?? (() => {}),
        );
  return closeOnce(store);
}
