// `search=` on messages (issue 39): each message's search document (src/core/search/document.ts), its words
// with positions and a weight per field over subject, sender, recipients, the whole text and HTML-as-text
// bodies and attachment file names, in a column the writer fills and a GIN index. Rows stored before get
// theirs here, computed by the same code as the writer's, so old and new mail are searched alike.
import { sql, type Kysely } from 'kysely';
import { messageDocument } from '../../search/document.ts';

/** Rows per backfill statement: bodies are read whole, so a batch stays a few MB. */
const BATCH = 200;

interface Row {
  id: string;
  subject: string | null;
  from_header: string;
  to_addrs: unknown;
  captured_for: unknown;
  text_body: string | null;
  html_body: string | null;
  attachments: unknown;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table messages add column search_doc tsvector`.execute(db);
  for (let after = '00000000-0000-0000-0000-000000000000'; ;) {
    const { rows } = await sql<Row>`select id, subject, from_header, to_addrs, captured_for, text_body,
      html_body, attachments from messages where id > ${after}::uuid order by id limit ${BATCH}`.execute(db);
    if (rows.length === 0) break;
    const values = rows.map((r) => sql`(${r.id}::uuid, ${messageDocument(r)}::tsvector)`);
    await sql`update messages set search_doc = v.doc from (values ${sql.join(values)}) as v(id, doc)
      where messages.id = v.id`.execute(db);
    after = (rows.at(-1) as Row).id;
  }
  await sql`create index messages_search_doc on messages using gin (search_doc)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists messages_search_doc`.execute(db);
  await sql`alter table messages drop column search_doc`.execute(db);
}
