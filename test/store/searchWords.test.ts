// The word index for `q` (migration 005): which q's use it, and on both stores that a list filtered by q
// holds exactly the messages with a field containing q, whichever index narrows the rows; and that the
// word condition is served by the index.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { searchWordsAreShortPrefixes, searchWordsQuery } from '../../src/core/store/searchIndexes.ts';
import { createTestApi, type TestApi, type TestWorkspace } from '../helpers/api.ts';
import { describeEachStore } from '../helpers/stores.ts';

describe('searchWordsQuery', () => {
  it('the last run after a separator is a word prefix; one with a separator after it is a whole word', () => {
    assert.equal(searchWordsQuery('Order #123456'), `('#123456':*) | '~long'`);
    assert.equal(searchWordsQuery('order #123456 is'), `('#123456') | '~long'`);
    assert.equal(searchWordsQuery('ref 00042 / 77777'), `(' 00042' & ' 77777':*) | '~long'`);
  });

  it('only identifier-like runs: a digit and five or more characters', () => {
    for (const q of ['invoice report', 'order #1234 is', 'x 2024 report', 'code abcdef'])
      assert.equal(searchWordsQuery(q), undefined, q);
    assert.equal(searchWordsQuery('id a1b2c'), `(' a1b2c':*) | '~long'`);
  });

  it('or the start of a number being typed: 3 or 4 characters with a digit at the end of q', () => {
    assert.equal(searchWordsQuery('Order #123'), `('#123':*) | '~long'`);
    assert.equal(searchWordsQuery('x 2024'), `(' 2024':*) | '~long'`);
    assert.equal(searchWordsQuery('ref a1b'), `(' a1b':*) | '~long'`);
    // Too short to be rare, no digit, or a whole short word (a year, often in most rows): the trigram index.
    for (const q of ['Order #12', 'see abc', 'order #123 is', '2024', '#123 x'])
      assert.equal(searchWordsQuery(q), undefined, q);
  });

  it('a query of such starts only is one of short prefixes, which find many words besides their own', () => {
    for (const q of ['Order #123', 'x 2024', 'a 123 b 456', 'ref a1b'])
      assert.equal(searchWordsAreShortPrefixes(q), true, q);
    // A word of 5 or more characters in the query finds few rows; no word query at all is not one either.
    for (const q of ['Order #12345', 'ref 00042 / 777', 'order #123456 is', 'invoice report'])
      assert.equal(searchWordsAreShortPrefixes(q), false, q);
  });

  it('a run at the start of q, or after a character whose lower case is not ours to know, may be the end of a word', () => {
    assert.equal(searchWordsQuery('123456 is'), undefined);
    assert.equal(searchWordsQuery('café12345 x'), undefined);
    // Turkish collations lower-case I to the dotless ı, a separator there.
    assert.equal(searchWordsQuery('order-I12345 x'), undefined);
    assert.equal(searchWordsQuery('order-i12345 x'), `('-i12345') | '~long'`);
  });

  it('a run before such a character is still a word prefix', () => {
    assert.equal(searchWordsQuery('ref 12345é'), `(' 12345':*) | '~long'`);
  });

  it('words are cut to 64 characters, as in the index; a cut word is a prefix', () => {
    const long = '7'.repeat(70);
    assert.equal(searchWordsQuery(`ref ${long} end`), `(' ${'7'.repeat(64)}':*) | '~long'`);
  });

  it('each word is asked for after the character before it in q; a quote or a backslash is escaped', () => {
    assert.equal(searchWordsQuery('code:00042;'), `(':00042') | '~long'`);
    assert.equal(searchWordsQuery(`x'12345 y`), `('''12345') | '~long'`);
    assert.equal(searchWordsQuery('x\\12345 y'), `('\\\\12345') | '~long'`);
  });

  it('q with a control character gets none (jsonb text writes \\n as a backslash and an n)', () => {
    assert.equal(searchWordsQuery('x\n123456'), undefined);
  });
});

const LONG_SUBJECT = `Ticket 987654 ${'lorem '.repeat(20_000)}end`;

const MAILS: Array<{ subject: string; to?: string }> = [
  { subject: 'Order #123456 is confirmed' },
  { subject: 'Order #1234567 is confirmed' },
  { subject: 'Re: Order #123456' },
  { subject: 'Order #9123456 shipped' },
  { subject: `Ref ${'9'.repeat(100)} end` },
  { subject: LONG_SUBJECT },
  { subject: 'café 55555é x; code:00042;sent' },
  { subject: 'welcome', to: 'Team 77777 <team77777@x.test>' },
  { subject: 'Order 1234 of 2024' },
];

/** q's around the numbers above: whole words, prefixes, words inside longer text, and misses. */
const QUERIES = [
  'Order #123456',
  'order #123456 is',
  '#123456',
  '#12345',
  '#1234567',
  ' #9123456 ',
  '#123456 is confirmed',
  'Re: Order #123456',
  'ORDER #1234567 IS',
  `ref ${'9'.repeat(70)}`,
  `${'9'.repeat(64)} end`,
  ` ${'9'.repeat(100)} end`,
  `${'9'.repeat(101)}`,
  'ticket 987654',
  'ticket 987654 lorem',
  'cket 98765',
  'café 55555',
  ' 55555é',
  'code:00042;',
  ':00042',
  'team 77777',
  ' 77777 <team7',
  '@77777',
  'order #555555',
  ' 1234 of 2024',
  'Order #123',
  'Order #912',
  '#1234',
  'of 202',
  'code:000',
  'Order #12',
];

describeEachStore('q through the word index', (getStore, backend) => {
  let api: TestApi;
  let ws: TestWorkspace;
  let sandboxId: string;
  const ids = new Map<string, string>();

  before(async () => {
    api = await createTestApi(getStore());
    ws = await api.workspace();
    const res = await ws.call({ method: 'POST', url: '/api/v1/sandboxes', payload: { name: 'words' } });
    sandboxId = res.json().id;
    for (const [i, mail] of MAILS.entries()) {
      const raw = Buffer.from(
        `From: shop@sender.test\r\nTo: ${mail.to ?? 'buyer@x.test'}\r\nSubject: ${mail.subject}\r\n` +
          `MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nmessage ${i}\r\n`,
      );
      const { stored } = await api.core.ingestMail({
        raw,
        envelopeFrom: 'shop@sender.test',
        deliveries: [{ sandboxId, capturedFor: ['buyer@x.test'] }],
      });
      ids.set(mail.subject, stored[0]?.messageId as string);
    }
  });
  after(() => api.close());

  async function list(q?: string): Promise<Array<Record<string, any>>> {
    const query = new URLSearchParams({ limit: '100', ...(q === undefined ? {} : { q }) });
    const res = await ws.call({ method: 'GET', url: `/api/v1/sandboxes/${sandboxId}/messages?${query}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().items;
  }

  it('a long subject and a 100-digit number are stored (the index never refuses a message)', async () => {
    const all = await list();
    assert.equal(all.length, MAILS.length);
    assert.ok(all.some((m) => m.subject === LONG_SUBJECT));
  });

  it('finds exactly the messages with a field containing q, for q on either index', async () => {
    const all = await list();
    const fields = (m: Record<string, any>) =>
      [m.subject, m.from, m.preview, ...m.to, ...m.capturedFor].filter((f) => typeof f === 'string');
    let viaWords = 0;
    for (const q of QUERIES) {
      const needle = q.trim().toLowerCase();
      const expected = all
        .filter((m) => fields(m).some((f: string) => f.toLowerCase().includes(needle)))
        .map((m) => m.id)
        .sort();
      const found = (await list(q)).map((m) => m.id).sort();
      assert.deepEqual(found, expected, `q=${JSON.stringify(q)}`);
      if (searchWordsQuery(q.trim()) !== undefined) viaWords++;
    }
    assert.ok(viaWords >= 15, `most of these q's go through the word index (${viaWords})`);
    assert.deepEqual(
      (await list('Order #123456')).map((m) => m.id).sort(),
      [
        ids.get('Order #123456 is confirmed'),
        ids.get('Order #1234567 is confirmed'),
        ids.get('Re: Order #123456'),
      ].sort(),
    );
    assert.deepEqual(
      (await list('ticket 987654')).map((m) => m.id),
      [ids.get(LONG_SUBJECT)],
    );
  });

  it(`the word index serves the query's word condition [${backend.name}]`, async () => {
    const db = getStore().db;
    const plan = await db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const words = searchWordsQuery('Order #123456') as string;
      return sql<Record<string, string>>`explain select id from messages
        where messages.search_words @@ ${words}::tsquery`.execute(trx);
    });
    const text = plan.rows.map((r) => Object.values(r)[0]).join('\n');
    assert.match(text, /messages_search_words/, text);
  });

  it('on PostgreSQL the search expressions keep finer statistics; the embedded store keeps the default', async () => {
    // The two expression indexes hold their statistics; the words are a column (migration 013).
    const targets = await sql<{ name: string; target: number }>`
      select c.relname as name, a.attstattarget as target from pg_attribute a join pg_class c on c.oid = a.attrelid
      where c.oid in (select indexrelid from pg_index where indrelid = 'messages'::regclass) and a.attnum = 1
        and c.relname in ('messages_search', 'messages_captured_for_lower')
      union all
      select 'messages.search_words', a.attstattarget from pg_attribute a
      where a.attrelid = 'messages'::regclass and a.attname = 'search_words'`.execute(getStore().db);
    // The default reads as -1 before PostgreSQL 17 and as null from 17 on (PGlite is 18).
    const fine = backend.name === 'postgres';
    assert.deepEqual(
      targets.rows
        .map((r) => [r.name, r.target === null || Number(r.target) === -1 ? 'default' : Number(r.target)])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
      [
        ['messages_captured_for_lower', fine ? 1000 : 'default'],
        ['messages_search', fine ? 1000 : 'default'],
        ['messages.search_words', fine ? 1000 : 'default'],
      ],
    );
  });
});
