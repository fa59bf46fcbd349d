// Message and request rows as the capture paths build them, and the ids a store holds, for store-level tests.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/core/store/schema.ts';
import type { MessageRowToStore, RequestToStore } from '../../src/core/store/writers.ts';

export function messageRow(sandboxId: string, n: number): MessageRowToStore {
  const raw = Buffer.from(`Subject: m${n}\r\n\r\nbody ${n}\r\n`);
  return {
    id: randomUUID(),
    sandbox_id: sandboxId,
    received_at: new Date(),
    envelope_from: 'a@b.test',
    from_header: 'a@b.test',
    to_addrs: JSON.stringify(['x@y.test']),
    captured_for: JSON.stringify(['x@y.test']),
    subject: `m${n}`,
    preview: `body ${n}`,
    text_body: `body ${n}`,
    html_body: null,
    headers: JSON.stringify([]),
    attachments: JSON.stringify([]),
    attachment_count: 0,
    size_bytes: raw.byteLength,
    raw,
    parse_error: null,
  };
}

export function requestRow(sandboxId: string, version: number, n: number): RequestToStore {
  const body = Buffer.from(`{"n":${n}}`);
  return {
    row: {
      id: randomUUID(),
      sandbox_id: sandboxId,
      received_at: new Date(),
      method: 'POST',
      target: `/hook/${n}`,
      http_version: '1.1',
      path: `/hook/${n}`,
      query: null,
      headers: JSON.stringify([]),
      body,
      size_bytes: body.byteLength,
      source_ip: '127.0.0.1',
      mock_status_code: 200,
      mock_name: null,
    },
    sandboxVersion: version,
  };
}

export async function storedIds(
  db: Kysely<Database>,
  table: 'messages' | 'requests',
  sandboxId: string,
): Promise<Set<string>> {
  const rows = await sql<{
    id: string;
  }>`select id from ${sql.table(table)} where sandbox_id = ${sandboxId}`.execute(db);
  return new Set(rows.rows.map((r) => r.id));
}
