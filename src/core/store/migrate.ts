// Runs the schema migrations in order; safe to call from several processes at once (kysely takes a lock).
import type { Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import * as m001 from './migrations/001_initial.ts';
import * as m002 from './migrations/002_messages.ts';
import * as m003 from './migrations/003_requests.ts';
import * as m004 from './migrations/004_search_indexes.ts';

const migrations: Record<string, Migration> = {
  '001_initial': m001,
  '002_messages': m002,
  '003_requests': m003,
  '004_search_indexes': m004,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Kysely<unknown>, schema?: string): Promise<void> {
  const migrator = new Migrator({
    db,
    provider,
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`database migration ${failed} failed`, { cause: error });
  }
}
