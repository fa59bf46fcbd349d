// `search=` latency (issue 39; design section 9: "message list / search page at 1,000,000 stored messages
// (PostgreSQL), p95 <= 20 ms") on PostgreSQL (--pg), through the REST API with a keep-alive client, one query
// at a time. Messages are seeded with SQL, each with a search document the database builds from the same
// fields the writer reads (ASCII words, as the writer splits them; src/core/search/document.ts). `--count N`
// runs a smaller sandbox where seeding a million rows takes too long on a loaded machine; `--keep` leaves the
// seeded database in place for EXPLAIN.
import { sql, type Kysely } from 'kysely';
import { openStore } from '../src/core/store/openStore.ts';
import type { Database } from '../src/core/store/schema.ts';
import { closeKeepAlive, keepAliveApi, latencies } from './lib/latency.ts';
import { freshDatabase } from './lib/pg.ts';
import { report, type Row } from './lib/report.ts';
import { percentile, startSandtrap, type BenchServer } from './lib/sandtrap.ts';

const SEED_CHUNK = 50_000;
const TARGET_MS = 20;
const rows: Row[] = [];

/**
 * The writer's document of a seeded row, by the database: each field's lower-cased runs of letters and digits
 * with positions and the field's weight (subject A, sender B, recipients C, body and file names D).
 */
const SEED_DOCUMENT = sql`(select coalesce(string_agg(quote_literal(t.w) || ':' || least(f.base + t.n, 16383)
    || f.weight, ' '), '')::tsvector
  from (values (1, m.subject, 'A'), (1000, m.from_header, 'B'), (2000, m.to_addrs::text || ' ' || m.captured_for::text, 'C'),
    (3000, m.text_body || ' ' || coalesce(m.attachments -> 0 ->> 'fileName', ''), 'D')) as f(base, txt, weight)
  cross join lateral regexp_split_to_table(lower(f.txt), '[^a-z0-9]+') with ordinality as t(w, n)
  where t.w <> '')`;

/**
 * `count` messages newest first one second apart: 500 senders, 5,000 recipients, a ~1 KB body whose carrier
 * word is one of 1,000 and whose last word (ref<n>) is unique, every tenth with an attachment named
 * invoice-<n>.pdf, a third read. The numbers in words are of one width (c007, ref0000042, shop010): a word
 * the person types is a word prefix, and `ref42` would also find ref420…ref4299999, so a query meant to find
 * one message would find thousands.
 */
async function seed(db: Kysely<Database>, sandboxId: string, count: number): Promise<void> {
  for (let from = 1; from <= count; from += SEED_CHUNK) {
    const to = Math.min(count, from + SEED_CHUNK - 1);
    await sql`
      insert into messages (id, sandbox_id, received_at, envelope_from, from_header, to_addrs, captured_for,
        subject, preview, text_body, html_body, headers, attachments, attachment_count, size_bytes, is_read, raw,
        search_words, search_doc)
      select m.*, ''::tsvector, ${SEED_DOCUMENT} from (
        select gen_random_uuid() as id, ${sandboxId}::uuid as sandbox_id, now() - make_interval(secs => g) as received_at,
          'shop' || lpad((g % 500)::text, 3, '0') || '@sender.example' as envelope_from,
          'Shop ' || (g % 500) || ' <shop' || lpad((g % 500)::text, 3, '0') || '@sender.example>' as from_header,
          jsonb_build_array('user' || (g % 5000) || '@example.test') as to_addrs,
          jsonb_build_array('user' || (g % 5000) || '@example.test') as captured_for,
          'Order #' || g || ' is confirmed' as subject,
          'Thanks for your order ' || g || '.' as preview,
          'Thanks for your order ' || g || '. Your parcel ships with carrier c' || lpad((g % 1000)::text, 3, '0') || '.'
            || repeat(' Lorem ipsum dolor sit amet, consectetur adipiscing elit.', 16) || ' ref' || lpad(g::text, 7, '0') as text_body,
          null::text as html_body, '[]'::jsonb as headers,
          case when g % 10 = 0 then jsonb_build_array(jsonb_build_object('index', 0, 'fileName',
            'invoice-' || g || '.pdf', 'contentType', 'application/pdf', 'sizeBytes', 10)) else '[]'::jsonb end
            as attachments,
          case when g % 10 = 0 then 1 else 0 end as attachment_count, 1200 as size_bytes, g % 3 = 0 as is_read,
          convert_to('Subject: Order #' || g || E'\r\n\r\nThanks', 'UTF8') as raw
        from generate_series(${from}::int, ${to}::int) as g) as m`.execute(db);
  }
  await sql`vacuum (analyze) messages`.execute(db);
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

async function measure(server: BenchServer, sandboxId: string, count: number): Promise<void> {
  const base = `/sandboxes/${sandboxId}/messages?limit=50&search=`;
  let n = 0;
  // Spread over the whole sandbox (7919 is prime, so each is visited once), not only its newest rows.
  const spread = () => ((n++ * 7919) % count) + 1;
  const cases: Array<[string, () => string]> = [
    ['a word in every message ("order")', () => `${base}order`],
    [
      'a phrase in every message ("your parcel ships")',
      () => `${base}${encodeURIComponent('"your parcel ships"')}`,
    ],
    ['the last word of one body (ref<n>)', () => `${base}ref${pad(spread(), 7)}`],
    [
      `a body word in 1 of 1,000 (carrier c<k>)`,
      () => `${base}${encodeURIComponent(`carrier c${pad(n++ % 1000, 3)}`)}`,
    ],
    [
      'an attachment file name (invoice-<n>.pdf, one message)',
      () => `${base}invoice-${(((n++ * 7919) % (count / 10)) + 1) * 10}.pdf`,
    ],
    [
      'from:<1 of 500 senders> has:attachment',
      () => `${base}${encodeURIComponent(`from:shop${pad((n++ % 50) * 10, 3)} has:attachment`)}`,
    ],
    [
      'is:unread -order (no word to index: every unread row read)',
      () => `${base}${encodeURIComponent('is:unread')}`,
    ],
  ];
  for (const [what, path] of cases) {
    // A query that finds nothing is fast for no reason: each case must find what it says it finds.
    const probe = path();
    const found = ((await keepAliveApi(server, probe)) as { items: unknown[] }).items.length;
    if (found === 0) throw new Error(`${what}: ${probe} found nothing`);
    const s = await latencies(server, path);
    const p95 = percentile(s, 95);
    const met = count >= 1_000_000;
    rows.push({
      workload: `message search, PostgreSQL, ${count.toLocaleString('en')} stored: ${what}`,
      target: met ? `p95 <= ${TARGET_MS} ms` : `- (scale ${count.toLocaleString('en')})`,
      measured: `p50 ${percentile(s, 50).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, p99 ${percentile(s, 99).toFixed(1)} ms`,
      met: met ? p95 <= TARGET_MS : null,
      p50: percentile(s, 50),
      p95,
      p99: percentile(s, 99),
    });
  }
}

async function postgres(count: number): Promise<void> {
  const fresh = await freshDatabase();
  try {
    const server = await startSandtrap({ DATABASE_URL: fresh.url });
    const store = await openStore({ kind: 'postgres', url: fresh.url, poolSize: 2 });
    try {
      const sandbox = await keepAliveApi(server, '/sandboxes', {
        method: 'POST',
        body: JSON.stringify({ name: 'search' }),
      });
      const t0 = performance.now();
      await seed(store.db, sandbox.id, count);
      console.log(
        `seeded ${count} messages (PostgreSQL) in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
      );
      await measure(server, sandbox.id, count);
    } finally {
      await store.close();
      await server.stop();
    }
  } finally {
    // --keep: leave the seeded database for EXPLAIN ANALYZE of the cases (its URL is printed).
    if (process.argv.includes('--keep')) console.log(`kept the seeded database: ${fresh.url}`);
    else await fresh.drop();
  }
}

const countArg = process.argv.indexOf('--count');
const count = countArg >= 0 ? Number(process.argv[countArg + 1]) : 1_000_000;
if (process.argv.includes('--pg')) await postgres(count);
else {
  rows.push({
    workload: 'message search at 1,000,000 stored (PostgreSQL)',
    target: `p95 <= ${TARGET_MS} ms`,
    measured: 'not run: needs --pg',
    met: null,
  });
}
await closeKeepAlive();
report('search', rows);
