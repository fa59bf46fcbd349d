// Which words of a search the word index reads (src/core/store/repos/searchMatch.ts), on both stores: once the
// table's statistics name a word common (in most rows), the index is asked only for the rare words and the whole
// query is checked on the rows they find, and the list is exactly the one the whole query gives.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { compileSearch } from '../../src/core/search/index.ts';
import { listMessages } from '../../src/core/store/repos/messages.ts';
import { searchMatch } from '../../src/core/store/repos/searchMatch.ts';
import type { Database } from '../../src/core/store/schema.ts';
import { insertSandbox } from '../helpers/sandboxRow.ts';
import { describeEachStore } from '../helpers/stores.ts';

/**
 * 600 messages whose documents say "carrier c<k>" (k of 30, so each c-word is in 1 row of 30), and 5 more that
 * have c007 but not carrier, and a word of their own (u601…u605); newest first one second apart.
 */
async function seed(db: Kysely<Database>, sandboxId: string): Promise<void> {
  await sql`
    insert into messages (id, sandbox_id, received_at, envelope_from, from_header, to_addrs, captured_for, subject,
      preview, text_body, html_body, headers, attachments, attachment_count, size_bytes, is_read, raw,
      search_words, search_doc)
    select gen_random_uuid(), ${sandboxId}::uuid, now() - make_interval(secs => g), 'a@x.test', 'a@x.test',
      '["b@x.test"]'::jsonb, '["b@x.test"]'::jsonb, 'Parcel ' || g, null, 'body', null, '[]'::jsonb, '[]'::jsonb,
      0, 10, false, '\\x00'::bytea, ''::tsvector,
      case when g <= 600
        then ('''carrier'':1 ''c' || lpad((g % 30)::text, 3, '0') || ''':2')::tsvector
        else ('''c007'':1 ''lonely'':2 ''u' || g || ''':3')::tsvector end
    from generate_series(1, 605) as g`.execute(db);
}

describeEachStore('Search words the index reads', (getStore) => {
  it('leaves a word in most rows to the check, and lists exactly what the whole query finds', async () => {
    const { db } = getStore();
    const sandboxId = await insertSandbox(db);
    await seed(db, sandboxId);
    await sql`analyze messages`.execute(db);

    const filter = compileSearch('carrier c007', 'messages');
    assert.ok(filter?.match !== undefined);
    const { conditions, fewRows } = await searchMatch(db, 'messages', filter.match, filter.required);
    assert.equal(conditions.length, 2, 'the index condition and the whole query as a check');
    assert.equal(fewRows, false, 'c007 is a word the statistics list');
    const [indexed] = conditions;
    const compiled = sql`select ${indexed}`.compile(db);
    assert.deepEqual(compiled.parameters, ["'c007':*"], 'the index is asked for the rare word only');

    const rows = await listMessages(db, sandboxId, { search: filter }, 50, undefined);
    const expected = await db
      .selectFrom('messages')
      .select('id')
      .where('sandbox_id', '=', sandboxId)
      .where(sql<boolean>`search_doc @@ ${filter.match}::tsquery`)
      .orderBy('received_at', 'desc')
      .orderBy('id', 'desc')
      .limit(50)
      .execute();
    assert.equal(rows.length, 20, 'the 20 with both words; the 5 lonely c007 rows are not among them');
    assert.deepEqual(
      rows.map((r) => r.id),
      expected.map((r) => r.id),
    );

    // A prefix of the common word is as common; every word rare, or only common ones: the whole query.
    const count = async (text: string) => {
      const f = compileSearch(text, 'messages');
      return (await searchMatch(db, 'messages', f?.match ?? '', f?.required)).conditions.length;
    };
    assert.equal(await count('carr c007'), 2);
    assert.equal(await count('c007 lonely'), 1);
    assert.equal(await count('carrier'), 1);
    // A word the statistics do not list is rarer than any they do: the list reads its rows through the index,
    // also when it finds none, and the whole query still decides. (A row written after the analyze has one.)
    await sql`
      insert into messages (id, sandbox_id, received_at, envelope_from, from_header, to_addrs, captured_for, subject,
        preview, text_body, html_body, headers, attachments, attachment_count, size_bytes, is_read, raw,
        search_words, search_doc)
      values (gen_random_uuid(), ${sandboxId}::uuid, now(), 'a@x.test', 'a@x.test', '[]'::jsonb, '[]'::jsonb, 'New',
        null, 'body', null, '[]'::jsonb, '[]'::jsonb, 0, 10, false, '\\x00'::bytea, ''::tsvector,
        '''carrier'':1 ''fresh777'':2'::tsvector)`.execute(db);
    for (const [text, found] of [
      ['carrier zzqx', 0],
      ['fresh7', 1],
      ['carrier fresh777', 1],
      ['lonely fresh777', 0],
    ] as const) {
      const f = compileSearch(text, 'messages');
      assert.ok(f?.match !== undefined);
      const m = await searchMatch(db, 'messages', f.match, f.required);
      assert.equal(m.fewRows, true, text);
      assert.equal((await listMessages(db, sandboxId, { search: f }, 50, undefined)).length, found, text);
    }
    // A quoted phrase is checked whole: "carrier c007" as a phrase is not in the lonely rows either.
    const phrase = compileSearch('"carrier c007"', 'messages');
    assert.ok(phrase !== undefined);
    const byPhrase = await listMessages(db, sandboxId, { search: phrase }, 50, undefined);
    assert.equal(byPhrase.length, 20);
  });
});
