// The embedded store's ANALYZE leaves out the header lists and a message's attachment list: no query filters or
// sorts by them, and their statistics (jsonb, compared value by value) were most of what an ANALYZE of
// messages cost, which holds the process while it runs (maintenance.ts): 61 of 68 ms of CPU for a sample of
// 3,000 mails with 5 headers each. PostgreSQL keeps them: its autovacuum analyzes in the background.
import { sql, type Kysely } from 'kysely';
import { isEmbedded } from './007_embedded_statistics.ts';

const COLUMNS = [
  ['messages', 'headers'],
  ['messages', 'attachments'],
  ['requests', 'headers'],
] as const;

async function setStatistics(db: Kysely<unknown>, target: number): Promise<void> {
  for (const [table, column] of COLUMNS)
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)}
      set statistics ${sql.lit(target)}`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (await isEmbedded(db)) await setStatistics(db, 0);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (await isEmbedded(db)) await setStatistics(db, -1);
}
