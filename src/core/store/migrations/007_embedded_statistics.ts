// The embedded store keeps the default statistics for its search expressions. It has no autovacuum, so
// sandtrap runs ANALYZE itself (maintenance.ts), blocking the store while it runs: at 100,000 messages that took
// 4.2 s with the finer statistics of migration 005 and 1.4 s with the default, and lists kept their latency.
// PostgreSQL keeps the finer statistics: its autovacuum analyzes in the background, and at 1,000,000 messages
// they were what kept rare recipients from looking common.
import { sql, type Kysely } from 'kysely';
import { STATISTICS } from './005_search_words.ts';

const INDEXES = ['messages_search', 'messages_search_words', 'messages_captured_for_lower'];

export async function isEmbedded(db: Kysely<unknown>): Promise<boolean> {
  const found = await sql<{ embedded: boolean }>`select version() like '%PGlite%' as embedded`.execute(db);
  return found.rows[0]?.embedded === true;
}

async function setStatistics(db: Kysely<unknown>, target: number): Promise<void> {
  const present = await sql<{ name: string }>`select indexrelid::regclass::text as name from pg_index
    where indrelid = 'messages'::regclass and indexrelid::regclass::text in (${sql.join(INDEXES)})`.execute(
    db,
  );
  for (const { name } of present.rows)
    await sql`alter index ${sql.id(name)} alter column 1 set statistics ${sql.lit(target)}`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (await isEmbedded(db)) await setStatistics(db, -1);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (await isEmbedded(db)) await setStatistics(db, STATISTICS);
}
