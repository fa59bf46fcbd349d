// messages.search_words (migrations 013 and 014), filled by the writer: the same words as the database's
// expression for the text it splits alike, never a missed match where lower-casing differs (fuzzed, checked
// against the database's own ilike on both stores), and rows stored before the migrations filled by them.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, it } from 'node:test';
import fc from 'fast-check';
import { sql, type Kysely } from 'kysely';
import { likePattern } from '../../src/core/pagination.ts';
import { migrateTo, migrateToLatest } from '../../src/core/store/migrate.ts';
import { insertMessagesIfLive } from '../../src/core/store/repos/messages.ts';
import type { Database } from '../../src/core/store/schema.ts';
import {
  MESSAGE_SEARCH_TEXT,
  MESSAGE_SEARCH_DIGIT_WORDS_SQL,
  messageSearchWords,
  searchWordsQuery,
} from '../../src/core/store/searchIndexes.ts';
import { messageRow } from '../helpers/captureRows.ts';
import { insertSandbox } from '../helpers/sandboxRow.ts';
import { describeEachStore } from '../helpers/stores.ts';

/** Characters that split alike in both: ASCII of every kind and non-ASCII letters that lower-case to non-ASCII. */
const PLAIN = [...'aZ09kKiIx7 #-:.@_<>"\'\\/\t', 'é', 'É', 'ß', 'Ω', 'ı', '😀', '\u0301'];
/** The two characters a database lower-cases to ASCII besides A-Z: the Kelvin sign and the dotted capital I. */
const TRICKY = ['\u212a', '\u0130'];

const textOf = (chars: string[]) =>
  fc.array(fc.constantFrom(...chars), { maxLength: 40 }).map((cs) => cs.join(''));
const digits = fc.stringMatching(/^[0-9]{3,8}$/);
/** Text with runs that look like order numbers and codes, so that q's reach the word index. */
const fieldOf = (chars: string[]) =>
  fc
    .array(fc.oneof(textOf(chars), digits, fc.constantFrom(' ', '#', '-')), { maxLength: 8 })
    .map((parts) => parts.join(''));

interface Fields {
  subject: string;
  from_header: string;
  preview: string;
  to: string[];
}
const fieldsOf = (chars: string[]): fc.Arbitrary<Fields> =>
  fc.record({
    subject: fieldOf(chars),
    from_header: fieldOf(chars),
    preview: fieldOf(chars),
    to: fc.array(fieldOf(chars), { maxLength: 2 }),
  });

async function databaseWords(db: Kysely<Database>, f: Fields): Promise<string> {
  const res = await sql<{ words: string }>`select (${MESSAGE_SEARCH_DIGIT_WORDS_SQL})::text as words from (
    select ${f.subject}::text as subject, ${f.from_header}::text as from_header, ${f.preview}::text as preview,
      ${JSON.stringify(f.to)}::jsonb as to_addrs, ${JSON.stringify(f.to)}::jsonb as captured_for) as messages`.execute(
    db,
  );
  return res.rows[0]?.words as string;
}

async function asTsvector(db: Kysely<Database>, words: string): Promise<string> {
  const res = await sql<{ words: string }>`select ${words}::tsvector::text as words`.execute(db);
  return res.rows[0]?.words as string;
}

const searchFields = (f: Fields) => ({
  subject: f.subject,
  from_header: f.from_header,
  preview: f.preview,
  to_addrs: JSON.stringify(f.to),
  captured_for: JSON.stringify(f.to),
});

describeEachStore('messages.search_words', (getStore, backend) => {
  let db: Kysely<Database>;
  before(() => {
    db = getStore().db;
  });

  it(`the writer's words are the database's for text both split alike: those with a digit [${backend.name}]`, async () => {
    await fc.assert(
      fc.asyncProperty(fieldsOf(PLAIN), async (f) => {
        assert.equal(await asTsvector(db, messageSearchWords(searchFields(f))), await databaseWords(db, f));
      }),
      { numRuns: 150, seed: 1313 },
    );
    // Cut to 64 characters, and a text too long to split is the one word ~long, as in the expression.
    const long: Fields = { subject: `x ${'7'.repeat(90)} y`, from_header: 'a', preview: '', to: [] };
    assert.equal(await asTsvector(db, messageSearchWords(searchFields(long))), await databaseWords(db, long));
    assert.equal(messageSearchWords(searchFields(long)), `' ${'7'.repeat(64)}'`);
    const huge: Fields = { subject: 'word '.repeat(25_000), from_header: 'a', preview: '', to: [] };
    assert.equal(messageSearchWords(searchFields(huge)), '~long');
    assert.equal(await databaseWords(db, huge), `'~long'`);
  });

  it(`a row whose text contains q (the database's ilike) is found by q's words [${backend.name}]`, async () => {
    const sandboxId = await insertSandbox(db);
    const rows = fc
      .sample(fieldsOf([...PLAIN, ...TRICKY, ...TRICKY]), { numRuns: 300, seed: 2024 })
      .map((f, n) => ({
        ...messageRow(sandboxId, n),
        subject: f.subject,
        from_header: f.from_header,
        preview: f.preview,
        to_addrs: JSON.stringify(f.to),
        captured_for: JSON.stringify(f.to),
      }));
    assert.equal((await insertMessagesIfLive(db, rows)).size, rows.length);
    // q's around each run with a digit in the rows' fields, the recipients' too (their search text is their
    // JSON, which escapes a quote or a backslash before a word): from a character or two before it to its end,
    // its next character or a prefix of it; with ASCII letters in either case and, in half of them, k/i in place
    // of the row's Kelvin sign or dotted I. Each matches its row by ilike wherever the database lower-cases
    // those two.
    const unTricky = (s: string) => s.replaceAll('\u212a', 'k').replaceAll('\u0130', 'i');
    const random = fc.sample(fc.tuple(fc.nat(2), fc.nat(), fc.boolean(), fc.nat(3)), {
      numRuns: 5000,
      seed: 77,
    });
    const qs: string[] = [];
    const RUN = /[A-Za-z0-9\u212a\u0130]*[0-9][A-Za-z0-9\u212a\u0130]*/gu;
    for (const row of rows)
      for (const text of [row.subject, row.from_header, row.preview, ...JSON.parse(row.to_addrs)] as string[])
        for (const run of text.matchAll(RUN)) {
          if (run.index === 0) continue;
          const [before, mask, keepTricky, end] = random[qs.length % random.length] as [
            number,
            number,
            boolean,
            number,
          ];
          const chars = [...text];
          const at = [...text.slice(0, run.index)].length;
          const length = [...run[0]].length;
          const stop = end === 0 ? at + length + 1 : end === 1 ? at + Math.min(length, 3) : at + length;
          let q = chars.slice(Math.max(0, at - 1 - before), stop).join('');
          if (!keepTricky)
            q = [...unTricky(q)]
              .map((c, i) => (/[a-z]/i.test(c) && (mask >> (i % 30)) & 1 ? c.toUpperCase() : c.toLowerCase()))
              .join('')
              .replace(/I/g, 'i');
          qs.push(q);
        }
    let checked = 0;
    let withMatches = 0;
    for (const q of qs) {
      const words = searchWordsQuery(q);
      if (words === undefined) continue;
      checked++;
      const res = await sql<{ id: string; found: boolean }>`
        select id, search_words @@ ${words}::tsquery as found
        from messages where sandbox_id = ${sandboxId} and (${MESSAGE_SEARCH_TEXT} ilike ${likePattern(q)}
          or exists (select 1 from jsonb_array_elements_text(to_addrs) as t(v) where t.v ilike ${likePattern(q)}))`.execute(
        db,
      );
      if (res.rows.length > 0) withMatches++;
      for (const row of res.rows)
        assert.ok(row.found, `q=${JSON.stringify(q)} matches ${row.id} by ilike but not by its words`);
    }
    // Not vacuous: hundreds of q's reach the word index and match. (Lower-casing the dotted I as JavaScript
    // does fails this on both stores: PGlite and PostgreSQL's C.UTF-8 both make it a plain i.)
    assert.ok(checked >= 300, `q's through the word index: ${checked}`);
    assert.ok(withMatches >= 300, `q's with a match: ${withMatches}`);
  });

  // Before 013 a row has no words; under 013 it has its words without the character before each.
  for (const [from, words] of [
    ['012_oauth', undefined],
    ['013_search_words_column', `'4455667'`],
  ] as const)
    it(`rows stored under migration ${from} get their words from the migrations after it [${backend.name}]`, async () => {
      const schema =
        backend.name === 'postgres'
          ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s
          : undefined;
      const sandboxId = await insertSandbox(db);
      await migrateTo(db as Kysely<unknown>, from, schema);
      try {
        const id = randomUUID();
        // Under 013 a row is written with its words (not null), as 013's writer gave them.
        await sql`insert into messages (id, sandbox_id, received_at, from_header, to_addrs, captured_for, subject,
            headers, attachments, attachment_count, size_bytes, raw ${words === undefined ? sql`` : sql`, search_words`})
          values (${id}, ${sandboxId}, now(), 'Shop <shop@x.test>', '["Buyer@X.test"]', '["buyer@x.test"]',
            'Order #4455667 is confirmed', '[]', '[]', 0, 1, '\\x00'
            ${words === undefined ? sql`` : sql`, ${words}::tsvector`})`.execute(db);
        await migrateToLatest(db as Kysely<unknown>, schema);
        const found = await sql<{
          id: string;
          words: string;
        }>`select id, search_words::text as words from messages
          where sandbox_id = ${sandboxId} and search_words @@ ${searchWordsQuery('Order #4455667') as string}::tsquery`.execute(
          db,
        );
        assert.deepEqual(
          found.rows.map((r) => r.id),
          [id],
        );
        assert.equal(
          found.rows[0]?.words,
          await asTsvector(
            db,
            messageSearchWords({
              subject: 'Order #4455667 is confirmed',
              from_header: 'Shop <shop@x.test>',
              preview: null,
              to_addrs: '["Buyer@X.test"]',
              captured_for: '["buyer@x.test"]',
            }),
          ),
        );
        assert.equal(found.rows[0]?.words, `'#4455667'`);
      } finally {
        await migrateToLatest(db as Kysely<unknown>, schema);
      }
    });
  it(`migration 014 down gives rows their words without the character before each again [${backend.name}]`, async () => {
    const schema =
      backend.name === 'postgres'
        ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s
        : undefined;
    const sandboxId = await insertSandbox(db);
    const row = {
      ...messageRow(sandboxId, 0),
      subject: 'Order #5566778 is confirmed',
      preview: 'code: 123456',
    };
    const [id] = await insertMessagesIfLive(db, [row]);
    const words = async () =>
      (
        await sql<{
          words: string;
        }>`select search_words::text as words from messages where id = ${id}`.execute(db)
      ).rows[0]?.words;
    assert.match((await words()) as string, /'#5566778'/);
    try {
      await migrateTo(db as Kysely<unknown>, '013_search_words_column', schema);
      assert.equal(await words(), `'123456' '5566778'`);
    } finally {
      await migrateToLatest(db as Kysely<unknown>, schema);
    }
    assert.match((await words()) as string, /'#5566778'/);
  });
});
