// A captured request records the reply the mock sent (issue 35): the headers and body as written to the wire,
// the body cut at 64 KB with its full size kept, and a note when a template read a body it could not parse.
// The status was already kept (mock_status_code). Rows captured before this have nulls: no reply recorded.
import { sql, type Kysely } from 'kysely';
import { hasLz4 } from './006_toast_lz4.ts';
import { isEmbedded } from './007_embedded_statistics.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('requests')
    .addColumn('response_headers', 'jsonb')
    .addColumn('response_body', 'bytea')
    .addColumn('response_size_bytes', 'integer')
    .addColumn('response_note', 'text')
    .execute();
  // As for the request's own body and headers (migrations 006 and 018).
  if (await hasLz4(db)) {
    for (const column of ['response_headers', 'response_body'])
      await sql`alter table requests alter column ${sql.id(column)} set compression lz4`.execute(db);
  }
  if (await isEmbedded(db))
    await sql`alter table requests alter column response_headers set statistics 0`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('requests')
    .dropColumn('response_headers')
    .dropColumn('response_body')
    .dropColumn('response_size_bytes')
    .dropColumn('response_note')
    .execute();
}
