// `search=` on requests (issue 39): each request's search document (src/core/search/document.ts) over its
// path, query string, headers and a text body, in a column the writer fills and a GIN index. Rows stored
// before get theirs here, computed by the same code as the writer's.
import { sql, type Kysely } from 'kysely';
import { requestDocument } from '../../search/document.ts';

/** Rows per backfill statement: bodies are read whole, so a batch stays a few MB. */
const BATCH = 200;

interface Row {
  id: string;
  path: string;
  query: string | null;
  headers: unknown;
  body: Uint8Array;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table requests add column search_doc tsvector`.execute(db);
  for (let after = '00000000-0000-0000-0000-000000000000'; ;) {
    const { rows } = await sql<Row>`select id, path, query, headers, body from requests
      where id > ${after}::uuid order by id limit ${BATCH}`.execute(db);
    if (rows.length === 0) break;
    const values = rows.map((r) => sql`(${r.id}::uuid, ${requestDocument(r)}::tsvector)`);
    await sql`update requests set search_doc = v.doc from (values ${sql.join(values)}) as v(id, doc)
      where requests.id = v.id`.execute(db);
    after = (rows.at(-1) as Row).id;
  }
  await sql`create index requests_search_doc on requests using gin (search_doc)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists requests_search_doc`.execute(db);
  await sql`alter table requests drop column search_doc`.execute(db);
}
