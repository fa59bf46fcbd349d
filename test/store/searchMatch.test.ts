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
 * have c007 but not carrier; newest first one second apart.
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
        else '''c007'':1 ''lonely'':2'::tsvector end
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
    const conditions = await searchMatch(db, 'messages', filter.match, filter.required);
    assert.equal(conditions.length, 2, 'the index condition and the whole query as a check');
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
    const prefix = compileSearch('carr c007', 'messages');
    assert.equal((await searchMatch(db, 'messages', prefix?.match ?? '', prefix?.required)).length, 2);
    const rare = compileSearch('c007 lonely', 'messages');
    assert.equal((await searchMatch(db, 'messages', rare?.match ?? '', rare?.required)).length, 1);
    const common = compileSearch('carrier', 'messages');
    assert.equal((await searchMatch(db, 'messages', common?.match ?? '', common?.required)).length, 1);
    // A quoted phrase is checked whole: "carrier c007" as a phrase is not in the lonely rows either.
    const phrase = compileSearch('"carrier c007"', 'messages');
    assert.ok(phrase !== undefined);
    const byPhrase = await listMessages(db, sandboxId, { search: phrase }, 50, undefined);
    assert.equal(byPhrase.length, 20);
  });
});
