// Large captured values (raw mail, bodies, headers) are compressed with lz4 where the server has it: pglz took
// 14% of PostgreSQL's CPU per stored 4 KB message. PGlite is built without lz4 and keeps pglz. Only values
// written after this migration use lz4; older ones stay readable as they are.
import { sql, type Kysely } from 'kysely';

const COLUMNS = {
  messages: ['raw', 'text_body', 'html_body', 'headers', 'attachments'],
  requests: ['body', 'headers'],
} as const;

export async function hasLz4(db: Kysely<unknown>): Promise<boolean> {
  const found = await sql<{ lz4: boolean }>`select 'lz4' = any(enumvals) as lz4 from pg_settings
    where name = 'default_toast_compression'`.execute(db);
  return found.rows[0]?.lz4 === true;
}

async function setCompression(db: Kysely<unknown>, method: 'lz4' | 'default'): Promise<void> {
  for (const [table, columns] of Object.entries(COLUMNS))
    for (const column of columns)
      await sql`alter table ${sql.id(table)} alter column ${sql.id(column)} set compression ${sql.raw(method)}`.execute(
        db,
      );
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (await hasLz4(db)) await setCompression(db, 'lz4');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await setCompression(db, 'default');
}
