// Runs the schema migrations in order; safe to call from several processes at once (kysely takes a lock).
import { sql, type Kysely } from 'kysely';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely/migration';
import * as m001 from './migrations/001_initial.ts';
import * as m002 from './migrations/002_messages.ts';
import * as m003 from './migrations/003_requests.ts';
import * as m004 from './migrations/004_search_indexes.ts';
import * as m005 from './migrations/005_search_words.ts';
import * as m006 from './migrations/006_toast_lz4.ts';
import * as m007 from './migrations/007_embedded_statistics.ts';
import * as m008 from './migrations/008_message_parse_error.ts';
import * as m009 from './migrations/009_request_is_read.ts';
import * as m010 from './migrations/010_live_events.ts';
import * as m011 from './migrations/011_dashboard_sessions.ts';
import * as m012 from './migrations/012_oauth.ts';
import * as m013 from './migrations/013_search_words_column.ts';
import * as m014 from './migrations/014_search_words_after.ts';
import * as m015 from './migrations/015_oauth_client_use.ts';
import * as m017 from './migrations/017_server_secrets.ts';
import * as m018 from './migrations/018_embedded_analyze_columns.ts';
import * as m019 from './migrations/019_request_redacted_cookies.ts';
import * as m020 from './migrations/020_request_reply.ts';
import * as m021 from './migrations/021_wait_marks_tombstones.ts';
import * as m022 from './migrations/022_sandbox_password_lookup.ts';
import * as m023 from './migrations/023_webhooks.ts';
import * as m026 from './migrations/026_traceparent.ts';
import * as m028 from './migrations/028_message_search_doc.ts';
import * as m029 from './migrations/029_request_search_doc.ts';
import * as m032 from './migrations/032_smtp_faults.ts';
import * as m034 from './migrations/034_mock_state.ts';
import * as m035 from './migrations/035_mock_callbacks.ts';

const migrations: Record<string, Migration> = {
  '001_initial': m001,
  '002_messages': m002,
  '003_requests': m003,
  '004_search_indexes': m004,
  '005_search_words': m005,
  '006_toast_lz4': m006,
  '007_embedded_statistics': m007,
  '008_message_parse_error': m008,
  '009_request_is_read': m009,
  '010_live_events': m010,
  '011_dashboard_sessions': m011,
  '012_oauth': m012,
  '013_search_words_column': m013,
  '014_search_words_after': m014,
  '015_oauth_client_use': m015,
  '017_server_secrets': m017,
  '018_embedded_analyze_columns': m018,
  '019_request_redacted_cookies': m019,
  '020_request_reply': m020,
  '021_wait_marks_tombstones': m021,
  '022_sandbox_password_lookup': m022,
  '023_webhooks': m023,
  '026_traceparent': m026,
  '028_message_search_doc': m028,
  '029_request_search_doc': m029,
  '032_smtp_faults': m032,
  '034_mock_state': m034,
  '035_mock_callbacks': m035,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

const newestMigration = Object.keys(migrations).sort().at(-1);

/**
 * kysely's Migrator takes about 0.1 s on PGlite even when there is nothing to do, and every start runs it. A store
 * whose newest applied migration is our newest is up to date: migrations apply in name order, each in the
 * transaction that records it.
 */
async function isUpToDate(db: Kysely<unknown>, schema: string | undefined): Promise<boolean> {
  const table =
    schema === undefined ? 'kysely_migration' : `"${schema.replaceAll('"', '""')}".kysely_migration`;
  const exists = await sql<{ found: boolean }>`select to_regclass(${table}) is not null as found`.execute(db);
  if (exists.rows[0]?.found !== true) return false;
  const tableRef = schema === undefined ? sql.id('kysely_migration') : sql.id(schema, 'kysely_migration');
  const newest = await sql<{ name: string }>`select max(name) as name from ${tableRef}`.execute(db);
  return newest.rows[0]?.name === newestMigration;
}

export async function migrateToLatest(db: Kysely<unknown>, schema?: string): Promise<void> {
  if (await isUpToDate(db, schema)) return;
  await migrate(db, schema, (migrator) => migrator.migrateToLatest());
}

/** Migrates up or down to the named migration: for tests of a migration over rows written before it. */
export async function migrateTo(db: Kysely<unknown>, target: string, schema?: string): Promise<void> {
  await migrate(db, schema, (migrator) => migrator.migrateTo(target));
}

async function migrate(
  db: Kysely<unknown>,
  schema: string | undefined,
  run: (migrator: Migrator) => Promise<MigrationResultSet>,
): Promise<void> {
  const migrator = new Migrator({
    db,
    provider,
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
  const { error, results } = await run(migrator);
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`database migration ${failed} failed`, { cause: error });
  }
}

/** This module's own extension: `.ts` from the sources, `.js` from the package's compiled `lib/`. */
const EXT = extname(fileURLToPath(import.meta.url));

/** Modules the migrations import: what they build depends on these too. */
// (Migrations 028 and 029 import search/document.ts only to fill rows already stored: a schema built from
// an empty store does not depend on it.)
const MIGRATION_INPUTS = [new URL(`./searchIndexes${EXT}`, import.meta.url)];

/**
 * Changes whenever a migration file (or a module they import) is added or edited, so that a schema built from
 * older files is not reused.
 */
export function migrationsFingerprint(): string {
  const dir = new URL('./migrations/', import.meta.url);
  const files = [
    ...readdirSync(dir)
      .sort()
      .map((name) => new URL(name, dir)),
    ...MIGRATION_INPUTS,
  ];
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(file.pathname.slice(dir.pathname.length - 'migrations/'.length)).update('\0');
    hash.update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}
