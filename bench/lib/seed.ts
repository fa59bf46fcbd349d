// Bulk rows for a benchmark's store, written by SQL (ingesting them over SMTP or HTTP would take longer than
// the measurement): messages as bench/list.ts searches them, and captured requests.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/core/store/schema.ts';
import { MESSAGE_SEARCH_DIGIT_WORDS_SQL } from '../../src/core/store/searchIndexes.ts';

const SEED_CHUNK = 50_000;

/**
 * `count` messages in `sandboxId`, newest first one second apart: 500 senders, 5,000 recipients, a unique
 * order number in each subject, a third of them read.
 */
export async function seedMessages(db: Kysely<Database>, sandboxId: string, count: number): Promise<void> {
  for (let from = 1; from <= count; from += SEED_CHUNK) {
    const to = Math.min(count, from + SEED_CHUNK - 1);
    // The search words from the database's form of them (a bulk load is written by SQL, not by the writer).
    await sql`
      insert into messages (id, sandbox_id, received_at, envelope_from, from_header, to_addrs, captured_for,
        subject, preview, text_body, html_body, headers, attachments, attachment_count, size_bytes, is_read, raw,
        search_words)
      select messages.*, ${MESSAGE_SEARCH_DIGIT_WORDS_SQL} from (
        select gen_random_uuid(), ${sandboxId}::uuid, now() - make_interval(secs => g),
          'shop' || (g % 500) || '@sender.example',
          'Shop ' || (g % 500) || ' <shop' || (g % 500) || '@sender.example>' as from_header,
          jsonb_build_array('user' || (g % 5000) || '@example.test') as to_addrs,
          jsonb_build_array('user' || (g % 5000) || '@example.test') as captured_for,
          'Order #' || g || ' is confirmed' as subject,
          'Thanks for your order ' || g || '. Your sign-in code is '
            || lpad(((g::bigint * 7919) % 1000000)::text, 6, '0') as preview,
          'Thanks for your order ' || g || '.', null, '[]'::jsonb, '[]'::jsonb, 0, 900, g % 3 = 0,
          convert_to('Subject: Order #' || g || E'\r\n\r\nThanks', 'UTF8')
        from generate_series(${from}::int, ${to}::int) as g) as messages`.execute(db);
  }
}

/** `count` captured requests in `sandboxId` (a 1 KB JSON POST to one of 1,000 paths), newest first. */
export async function seedRequests(db: Kysely<Database>, sandboxId: string, count: number): Promise<void> {
  for (let from = 1; from <= count; from += SEED_CHUNK) {
    const to = Math.min(count, from + SEED_CHUNK - 1);
    await sql`insert into requests (id, sandbox_id, received_at, method, target, http_version, path, query,
        headers, body, size_bytes, source_ip, mock_status_code, mock_name)
      select gen_random_uuid(), ${sandboxId}::uuid, now() - make_interval(secs => g), 'POST',
        '/hook/' || (g % 1000) || '?n=' || g, '1.1', '/hook/' || (g % 1000), 'n=' || g,
        '[["host","127.0.0.1"],["content-type","application/json"],["user-agent","bench"]]'::jsonb,
        convert_to('{"event":"bench","n":' || g || ',"pad":"' || repeat('x', 980) || '"}', 'UTF8'), 1024,
        '127.0.0.1', 200, null
      from generate_series(${from}::int, ${to}::int) as g`.execute(db);
  }
}
