// Indexes for list search at scale: trigram indexes (pg_trgm) for `q` on messages and requests, and a jsonb
// index for the exact, case-insensitive `capturedFor` filter. pg_trgm is created in a stable schema (public)
// or used where it already is; a database that cannot have it keeps working, only slower to search.
import { sql, type Kysely } from 'kysely';
import { MESSAGE_CAPTURED_FOR_LOWER, MESSAGE_SEARCH_TEXT, REQUEST_SEARCH_TEXT } from '../searchIndexes.ts';

async function trigramSchema(db: Kysely<unknown>): Promise<string | undefined> {
  const found = await sql<{ schema: string }>`
    select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
    where e.extname = 'pg_trgm'`.execute(db);
  if (found.rows[0] !== undefined) return found.rows[0].schema;
  await sql`savepoint trgm`.execute(db);
  try {
    await sql`create extension if not exists pg_trgm schema public`.execute(db);
    await sql`release savepoint trgm`.execute(db);
    return 'public';
  } catch {
    await sql`rollback to savepoint trgm`.execute(db);
    return undefined;
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index messages_captured_for_lower on messages
    using gin (${MESSAGE_CAPTURED_FOR_LOWER} jsonb_path_ops)`.execute(db);
  const schema = await trigramSchema(db);
  if (schema === undefined) return;
  const ops = sql`${sql.id(schema)}.gin_trgm_ops`;
  await sql`create index messages_search on messages using gin (${MESSAGE_SEARCH_TEXT} ${ops})`.execute(db);
  await sql`create index requests_search on requests using gin (${REQUEST_SEARCH_TEXT} ${ops})`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists requests_search`.execute(db);
  await sql`drop index if exists messages_search`.execute(db);
  await sql`drop index if exists messages_captured_for_lower`.execute(db);
}
