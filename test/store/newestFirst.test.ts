// Search lists try a sandbox's newest rows (or an identifier prefix's newest candidates) before the indexed query
// (newestFirst.ts): on both stores every page equals the rows a plain filter of all rows gives, for terms in
// every row, in some, in one and in none, page by page through cursors; a term in most rows is answered by that
// one statement while the planner's statistics still describe an empty table (PostgreSQL, before autovacuum's
// first analyze); and matches older than the newest candidates tried are still found.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { sql, type KyselyPlugin } from 'kysely';
import type { Cursor } from '../../src/core/pagination.ts';
import {
  insertMessagesIfLive,
  listMessages,
  type MessageFilter,
} from '../../src/core/store/repos/messages.ts';
import { insertRequestsIfCurrent, listRequests } from '../../src/core/store/repos/requests.ts';
import { candidateRowsFor, probeRowsFor } from '../../src/core/store/repos/newestFirst.ts';
import { messageRow, requestRow } from '../helpers/captureRows.ts';
import { insertSandbox } from '../helpers/sandboxRow.ts';
import { describeEachStore } from '../helpers/stores.ts';

const N = 700;
const PAGE = 50;
const START = Date.UTC(2026, 0, 1);

interface Mail {
  id: string;
  at: Date;
  subject: string;
  capturedFor: string;
}

function mailFor(n: number): { subject: string; capturedFor: string } {
  const tags = `${n % 7 === 0 ? ' urgent' : ''}${n === 333 ? ' needle' : ''}`;
  return { subject: `Order #${n} is Confirmed${tags}`, capturedFor: `user${n % 3}@x.test` };
}

/** Statements the store runs, counted through a Kysely plugin (once per result: subqueries pass its query step). */
function counting() {
  let statements = 0;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      statements++;
      return args.result;
    },
  };
  return { plugin, take: () => statements, reset: () => (statements = 0) };
}

describeEachStore('search lists: the newest rows first', (getStore, backend) => {
  const mails: Mail[] = [];
  const requests: Array<{ id: string; at: Date; path: string }> = [];
  let sandboxId = '';

  before(async () => {
    const { db } = getStore();
    sandboxId = await insertSandbox(db);
    if (backend.name === 'postgres') {
      // Statistics of empty tables, kept while the rows arrive: as right after a sandbox fills up.
      for (const table of ['messages', 'requests']) {
        await sql`alter table ${sql.table(table)} set (autovacuum_enabled = false)`.execute(db);
        await sql`analyze ${sql.table(table)}`.execute(db);
      }
    }
    for (let from = 1; from <= N; from += 100) {
      const rows = [];
      const items = [];
      for (let n = from; n < from + 100; n++) {
        const mail = mailFor(n);
        const row = {
          ...messageRow(sandboxId, n),
          received_at: new Date(START + n * 1000),
          subject: mail.subject,
          captured_for: JSON.stringify([mail.capturedFor]),
        };
        rows.push(row);
        mails.push({ id: row.id, at: row.received_at, ...mail });
        const item = requestRow(sandboxId, 1, n);
        item.row.received_at = new Date(START + n * 1000);
        items.push(item);
        requests.push({ id: item.row.id, at: item.row.received_at, path: item.row.path });
      }
      await insertMessagesIfLive(db, rows);
      await insertRequestsIfCurrent(db, items);
    }
    const newestFirst = (a: { at: Date; id: string }, b: { at: Date; id: string }) =>
      b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : -1);
    mails.sort(newestFirst);
    requests.sort(newestFirst);
  });

  /** Every page of a list, cursor by cursor, as ids. */
  async function allPages<R extends { id: string; received_at: Date }>(
    page: (cursor: Cursor | undefined) => Promise<R[]>,
  ): Promise<string[]> {
    const ids: string[] = [];
    let cursor: Cursor | undefined;
    for (;;) {
      const rows = await page(cursor);
      ids.push(...rows.map((r) => r.id));
      const last = rows.at(-1);
      if (rows.length < PAGE || last === undefined) return ids;
      cursor = { at: last.received_at, id: last.id };
    }
  }

  const MESSAGE_CASES: Array<[string, MessageFilter, (m: Mail) => boolean]> = [
    ['a word in every row', { q: 'confirmed' }, () => true],
    ['a word in one row of seven', { q: 'URGENT' }, (m) => m.subject.includes('urgent')],
    ['a word in one row', { q: 'needle' }, (m) => m.subject.includes('needle')],
    ['a number being typed', { q: 'Order #12' }, (m) => /Order #12/.test(m.subject)],
    ['a number the word index serves', { q: 'order #123' }, (m) => /Order #123/.test(m.subject)],
    ['no row', { q: 'zzqx' }, () => false],
    [
      'a recipient of one row in three',
      { capturedFor: 'USER1@x.test' },
      (m) => m.capturedFor === 'user1@x.test',
    ],
    [
      'a word and a recipient',
      { q: 'urgent', capturedFor: 'user2@x.test' },
      (m) => m.subject.includes('urgent') && m.capturedFor === 'user2@x.test',
    ],
  ];

  for (const [what, filter, matches] of MESSAGE_CASES) {
    it(`messages, ${what}: every page as a filter of all rows gives it`, async () => {
      const { db } = getStore();
      const got = await allPages((cursor) => listMessages(db, sandboxId, filter, PAGE, cursor));
      assert.deepEqual(
        got,
        mails.filter(matches).map((m) => m.id),
      );
    });
  }

  it('requests, a path in every row, in some and in none: every page as a filter of all rows gives it', async () => {
    const { db } = getStore();
    for (const [q, matches] of [
      ['/HOOK/', () => true],
      ['hook/7', (path: string) => path.startsWith('/hook/7')],
      ['zzqx', () => false],
    ] as const) {
      const got = await allPages((cursor) => listRequests(db, sandboxId, { q }, PAGE, cursor));
      assert.deepEqual(
        got,
        requests.filter((r) => matches(r.path)).map((r) => r.id),
        q,
      );
    }
  });

  it('a word in most rows is answered by one statement over the newest rows; a rare one runs the indexed query too', async () => {
    const counter = counting();
    const db = getStore().db.withPlugin(counter.plugin);
    const cases: Array<[MessageFilter, number]> = [
      [{ q: 'confirmed' }, 1],
      [{ capturedFor: 'user0@x.test' }, 1],
      [{ q: 'needle' }, 2],
      [{ q: 'urgent' }, 2], // one row in seven: 36 of the 250 newest, short of a page
      [{ q: 'Order #333' }, 2], // an identifier's prefix, in one row: its candidates are short of a page
      [{ q: 'dy' }, 1], // too short for a trigram ("body"): no index to be sent to, so no try
    ];
    for (const [filter, statements] of cases) {
      counter.reset();
      const rows = await listMessages(db, sandboxId, filter, PAGE, undefined);
      assert.equal(counter.take(), statements, JSON.stringify(filter));
      assert.ok(rows.length > 0);
    }
    counter.reset();
    await listRequests(db, sandboxId, { q: 'hook' }, PAGE, undefined);
    assert.equal(counter.take(), 1);
    counter.reset();
    await listRequests(db, sandboxId, { q: 'zq' }, PAGE, undefined);
    assert.equal(counter.take(), 1);
    // Lists without a search term never try first.
    counter.reset();
    await listMessages(db, sandboxId, { isRead: false }, PAGE, undefined);
    assert.equal(counter.take(), 1);
    assert.equal(probeRowsFor(PAGE), 250);
    assert.equal(candidateRowsFor(PAGE), 1000);
  });

  it("an identifier's prefix matches its newest candidates first, and finds matches older than those it tried", async () => {
    const { db } = getStore();
    const own = await insertSandbox(db);
    // 1,100 codes that start like the order numbers (candidates of '777':*), all newer than the 3 orders.
    const rows = [];
    for (let n = 0; n < 1103; n++) {
      const code = `777${String(n).padStart(4, '0')}`;
      rows.push({
        ...messageRow(own, n),
        received_at: new Date(START + n * 1000),
        subject: n < 3 ? `Order #777${n} shipped` : `Your code ${code} is ready`,
      });
    }
    for (let i = 0; i < rows.length; i += 200) await insertMessagesIfLive(db, rows.slice(i, i + 200));
    const counter = counting();
    const list = async (q: string) => {
      counter.reset();
      const got = await listMessages(db.withPlugin(counter.plugin), own, { q }, PAGE, undefined);
      return { subjects: got.map((r) => r.subject), statements: counter.take() };
    };
    // The newest 1,000 candidates hold no order: the query over all of them runs too.
    assert.deepEqual(await list('order #777'), {
      subjects: ['Order #7772 shipped', 'Order #7771 shipped', 'Order #7770 shipped'],
      statements: 2,
    });
    // A page among the newest candidates: one statement.
    const codes = [];
    for (let n = 999; n > 949; n--) codes.push(`Your code 7770${String(n).padStart(3, '0')} is ready`);
    assert.deepEqual(await list('code 7770'), { subjects: codes, statements: 1 });
    // An identifier of 5 characters or more finds few rows besides its own: no try, whole or prefix.
    assert.deepEqual(await list('code 7770500 is'), {
      subjects: ['Your code 7770500 is ready'],
      statements: 1,
    });
    const prefixed = [];
    for (let n = 599; n > 549; n--) prefixed.push(`Your code 7770${n} is ready`);
    assert.deepEqual(await list('code 77705'), { subjects: prefixed, statements: 1 });
  });
});
