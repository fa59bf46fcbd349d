// Marked statements on PGlite run as named prepared statements and answer exactly as PGlite's own query does.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { preparedName } from '../../src/core/store/preparedMarker.ts';
import { withPreparedStatements } from '../../src/core/store/pglitePrepared.ts';

describe('PGlite prepared statements', () => {
  let raw: PGlite;
  let db: PGlite;

  before(async () => {
    raw = new PGlite();
    await raw.waitReady;
    db = withPreparedStatements(raw);
    await raw.exec(`create table item (id text primary key, n int8, ok boolean, tags text[], doc jsonb,
      body bytea, at timestamptz, note text)`);
  });
  after(async () => {
    await raw.close();
  });

  const preparedNames = async () =>
    (await raw.query<{ name: string }>('select name from pg_prepared_statements order by name')).rows.map(
      (r) => r.name,
    );

  it('returns what PGlite returns for the same statement, for every kind of value', async () => {
    const insert = `${preparedName('test_item_insert')}insert into item values ($1, $2, $3, $4, $5, $6, $7, $8)
      returning *`;
    const values = [
      'a',
      9_007_199_254_740_991n,
      true,
      ['x', 'y,z', 'q"uote'],
      { nested: [1, 'two', null] },
      new Uint8Array([0, 1, 254, 255]),
      new Date('2026-11-24T08:00:00.123Z'),
      null,
    ];
    const mine = await db.query(insert, values);
    const theirs = await raw.query(insert.replace(/^\/\*.*?\*\/ /, ''), ['b', ...values.slice(1)]);
    assert.deepEqual({ ...(mine.rows[0] as object), id: 'b' }, theirs.rows[0]);
    assert.deepEqual(
      mine.fields.map((f) => [f.name, f.dataTypeID]),
      theirs.fields.map((f) => [f.name, f.dataTypeID]),
    );
    assert.equal(mine.affectedRows, 1);
    assert.deepEqual(await preparedNames(), ['sandtrap_test_item_insert']);
  });

  it('prepares each statement once, however often it runs', async () => {
    const select = `${preparedName('test_item_count')}select count(*)::int as n from item where id like $1`;
    for (let i = 0; i < 5; i++) assert.deepEqual((await db.query(select, ['%'])).rows, [{ n: 2 }]);
    assert.deepEqual(await preparedNames(), ['sandtrap_test_item_count', 'sandtrap_test_item_insert']);
  });

  it('fails with the database error, and the statement still runs after', async () => {
    const insert = `${preparedName('test_item_id')}insert into item (id) values ($1)`;
    await db.query(insert, ['c']);
    await assert.rejects(db.query(insert, ['c']), (err: { code?: string }) => err.code === '23505');
    await db.query(insert, ['d']);
    assert.deepEqual(
      (await raw.query('select id from item where id in ($1, $2) order by id', ['c', 'd'])).rows,
      [{ id: 'c' }, { id: 'd' }],
    );
  });

  it('a statement that does not parse is not kept, and the name can be used once it does', async () => {
    await assert.rejects(
      db.query(`${preparedName('test_bad')}select nope from item`),
      (err: { code?: string }) => err.code === '42703',
    );
    assert.ok(!(await preparedNames()).includes('sandtrap_test_bad'));
    assert.equal((await db.query(`${preparedName('test_bad')}select 1 as one`)).rows.length, 1);
  });

  it('never runs inside another caller’s open transaction', async () => {
    const insert = `${preparedName('test_item_tx')}insert into item (id) values ($1)`;
    let outside: Promise<unknown> | undefined;
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query(`insert into item (id) values ('in-tx')`);
        outside = db.query(insert, ['outside-tx']);
        // Gives the outside statement every chance to run now, inside this transaction, if it could.
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('roll back');
      }),
      /roll back/,
    );
    await outside;
    const ids = (await raw.query<{ id: string }>(`select id from item where id like '%tx'`)).rows.map(
      (r) => r.id,
    );
    assert.deepEqual(ids, ['outside-tx']);
  });

  it('leaves unmarked statements to PGlite', async () => {
    assert.deepEqual((await db.query('select $1::int + 1 as n', [41])).rows, [{ n: 42 }]);
    assert.ok(!(await preparedNames()).some((n) => !n.startsWith('sandtrap_')));
  });
});
