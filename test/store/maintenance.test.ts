// The embedded store's own VACUUM/ANALYZE (it has no autovacuum): tables are analyzed and vacuumed once enough
// of them changed (dead rows, or rows inserted), by autovacuum's thresholds, and left alone otherwise; on
// PostgreSQL autovacuum does it. On both stores, tables that outgrew their statistics are analyzed sooner. A run
// is a series of statements with the event loop running between them: /healthz is answered during a run.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { pino } from 'pino';
import { createCore } from '../../src/core/core.ts';
import {
  analyzeGrownTables,
  maintainTables,
  type MaintenanceStep,
} from '../../src/core/store/maintenance.ts';
import { buildApi } from '../../src/rest/app.ts';
import { openStore, type Store } from '../../src/core/store/openStore.ts';
import type { Database } from '../../src/core/store/schema.ts';
import { testConfig } from '../helpers/api.ts';
import { testClock } from '../helpers/clock.ts';
import { eventually } from '../helpers/poll.ts';
import { insertRequests, insertSandbox } from '../helpers/sandboxRow.ts';
import { describeEachStore } from '../helpers/stores.ts';

async function lastRuns(db: Kysely<Database>) {
  const rows = await sql<{ analyzed: boolean; vacuumed: boolean }>`
    select last_analyze is not null as analyzed, last_vacuum is not null as vacuumed
    from pg_stat_user_tables where relname = 'requests' and schemaname = current_schema()`.execute(db);
  return rows.rows[0];
}

describe('embedded store maintenance', () => {
  let store: Store;
  before(async () => {
    store = await openStore({ kind: 'pglite', dataDir: undefined });
  });
  after(() => store.close());

  it('does nothing while too little changed, then analyzes a table once a tenth of it (and 50 rows) changed', async () => {
    const db = store.db;
    const id = await insertSandbox(db);
    await insertRequests(db, id, 40);
    assert.deepEqual(await maintainTables(db), { analyzed: [], vacuumed: [] });
    assert.deepEqual(await lastRuns(db), { analyzed: false, vacuumed: false });
    await insertRequests(db, id, 1_000);
    assert.deepEqual(await maintainTables(db), { analyzed: ['requests'], vacuumed: [] });
    assert.deepEqual(await lastRuns(db), { analyzed: true, vacuumed: false });
    // The planner now knows the table's size.
    const size = await sql<{
      n: number;
    }>`select reltuples::int as n from pg_class where relname = 'requests'`.execute(db);
    assert.equal(size.rows[0]?.n, 1_040);
    assert.deepEqual(await maintainTables(db), { analyzed: [], vacuumed: [] }, 'nothing changed since');
    // 100 more is less than a tenth of 1,040 plus 50.
    await insertRequests(db, id, 100);
    assert.deepEqual(await maintainTables(db), { analyzed: [], vacuumed: [] });
  });

  it('vacuums (and analyzes) a table once a fifth of its rows are dead, and leaves none', async () => {
    const db = store.db;
    await sql`delete from requests where path ~ '[13579]$'`.execute(db);
    const result = await maintainTables(db);
    assert.deepEqual(result, { analyzed: ['requests'], vacuumed: ['requests'] });
    assert.deepEqual(await lastRuns(db), { analyzed: true, vacuumed: true });
    const dead = await sql<{ n: number }>`select n_dead_tup::int as n from pg_stat_user_tables
      where relname = 'requests'`.execute(db);
    assert.equal(dead.rows[0]?.n, 0);
  });
});

describe('embedded store maintenance, rows only arriving', () => {
  let store: Store;
  before(async () => {
    store = await openStore({ kind: 'pglite', dataDir: undefined });
  });
  after(() => store.close());

  it('vacuums a table once 1,000 rows and a fifth of it arrived since its last vacuum', async () => {
    const db = store.db;
    const id = await insertSandbox(db);
    // 1,100 rows: 1,000 and a fifth is 1,220.
    await insertRequests(db, id, 1_100);
    assert.deepEqual(await maintainTables(db), { analyzed: ['requests'], vacuumed: [] });
    // 1,500 rows, all new since no vacuum: over 1,300.
    await insertRequests(db, id, 400);
    assert.deepEqual(await maintainTables(db), { analyzed: ['requests'], vacuumed: ['requests'] });
    const since = await sql<{ n: number }>`select n_ins_since_vacuum::int as n from pg_stat_user_tables
      where relname = 'requests'`.execute(db);
    assert.equal(since.rows[0]?.n, 0);
  });
});

describeEachStore('tables that outgrew their statistics', (getStore, backend) => {
  const embedded = backend.name === 'pglite';
  /** On PostgreSQL each connection's counts reach the statistics within a second or so: wait for them. */
  async function counted(db: Kysely<Database>, rows: number): Promise<void> {
    if (embedded) return;
    let seen: number | undefined;
    await eventually(
      () => `the statistics to count ${rows} rows (they count ${seen})`,
      async () => {
        const res = await sql<{ n: number }>`select n_live_tup::int as n from pg_stat_user_tables
          where relname = 'requests' and schemaname = current_schema()`.execute(db);
        seen = res.rows[0]?.n;
        return seen === rows;
      },
      30_000,
      100,
    );
  }

  it('are analyzed once 5,000 rows and half of them changed since their statistics, and never vacuumed', async () => {
    const db = getStore().db;
    // Autovacuum (PostgreSQL) would analyze it in between.
    await sql`alter table requests set (autovacuum_enabled = false)`.execute(db);
    const id = await insertSandbox(db);
    // 9,000 rows, none analyzed: under 5,000 and half of 9,000.
    await insertRequests(db, id, 9_000);
    await counted(db, 9_000);
    assert.deepEqual(await analyzeGrownTables(db, embedded), { analyzed: [], vacuumed: [] });
    // 10,100: over 5,000 and half of 10,100; also over the vacuum by rows arrived, which waits for a full run.
    await insertRequests(db, id, 1_100);
    await counted(db, 10_100);
    assert.deepEqual(await analyzeGrownTables(db, embedded), { analyzed: ['requests'], vacuumed: [] });
    assert.deepEqual(await lastRuns(db), { analyzed: true, vacuumed: false });
    // 2,000 more since: a full run would analyze (over 50 and a tenth), a grown check waits for the table to
    // double.
    await insertRequests(db, id, 2_000);
    await counted(db, 12_100);
    assert.deepEqual(await analyzeGrownTables(db, embedded), { analyzed: [], vacuumed: [] });
    if (embedded)
      assert.deepEqual(await maintainTables(db), { analyzed: ['requests'], vacuumed: ['requests'] });
  });

  it(
    'one that a vacuum or another analyze holds is left alone and not reported as analyzed',
    { skip: embedded ? 'one connection: nothing else holds a lock while the check runs' : false },
    async () => {
      const db = getStore().db;
      // After the test above: 12,100 rows, statistics from 10,100. 20,000 more is over 5,000 and half.
      await insertRequests(db, await insertSandbox(db), 20_000);
      await counted(db, 32_100);
      // What autovacuum's VACUUM or another process's ANALYZE takes.
      await db.transaction().execute(async (trx) => {
        await sql`lock table requests in share update exclusive mode`.execute(trx);
        assert.deepEqual(await analyzeGrownTables(db, embedded), { analyzed: [], vacuumed: [] });
      });
      assert.deepEqual(await analyzeGrownTables(db, embedded), { analyzed: ['requests'], vacuumed: [] });
    },
  );

  it(
    'one this role does not own is left alone: no ANALYZE that would warn and skip it every 2 s',
    { skip: embedded ? 'one role' : false },
    async () => {
      const db = getStore().db;
      const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]!.s;
      const role = `${schema}_reader`;
      await sql`create role ${sql.id(role)} login`.execute(db);
      const url = new URL(process.env.TEST_DATABASE_URL!);
      url.username = role;
      const notices: string[] = [];
      const pool = new pg.Pool({
        connectionString: url.toString(),
        options: `-c search_path=${schema}`,
        max: 1,
      });
      pool.on('connect', (client) => client.on('notice', (notice) => notices.push(String(notice.message))));
      const reader = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
      try {
        await sql`grant usage on schema ${sql.id(schema)} to ${sql.id(role)}`.execute(db);
        await sql`grant select on all tables in schema ${sql.id(schema)} to ${sql.id(role)}`.execute(db);
        // After the tests above: 32,100 rows analyzed; 45,000 more is over 5,000 and half of 77,100.
        await insertRequests(db, await insertSandbox(db), 45_000);
        await counted(db, 77_100);
        assert.deepEqual(await analyzeGrownTables(reader, embedded), { analyzed: [], vacuumed: [] });
        assert.deepEqual(notices, [], 'the check ran no ANALYZE the role may not run');
        assert.deepEqual(await analyzeGrownTables(db, embedded), { analyzed: ['requests'], vacuumed: [] });
      } finally {
        await reader.destroy();
        await sql`drop owned by ${sql.id(role)}`.execute(db);
        await sql`drop role ${sql.id(role)}`.execute(db);
      }
    },
  );
});

describeEachStore('core.maintainStore', (getStore, backend) => {
  it(
    backend.name === 'pglite'
      ? 'maintains the embedded store, which has no autovacuum'
      : 'leaves PostgreSQL to its autovacuum',
    async () => {
      const db = getStore().db;
      const core = createCore({ store: getStore(), config: testConfig(), clock: testClock() });
      await insertRequests(db, await insertSandbox(db), 500);
      const result = await core.maintainStore();
      assert.deepEqual(
        result,
        backend.name === 'pglite' ? { analyzed: ['requests'], vacuumed: [] } : { analyzed: [], vacuumed: [] },
      );
    },
  );
});

/** A step as `action table index`, without its time. */
const named = (step: MaintenanceStep) =>
  [step.action, step.table, step.index].filter((part) => part !== undefined).join(' ');

describe('embedded store maintenance, one statement at a time', () => {
  let store: Store;
  before(async () => {
    store = await openStore({ kind: 'pglite', dataDir: undefined });
  });
  after(() => store.close());

  it("runs rows that only arrived as steps: the heap alone, each search index's pending entries, then ANALYZE", async () => {
    const db = store.db;
    await insertRequests(db, await insertSandbox(db), 3_000);
    const steps: string[] = [];
    /** Whether a macrotask queued before the run ran before each step ended. */
    const turnBefore: boolean[] = [];
    let turned = false;
    const run = maintainTables(db, {
      onStep: (step) => {
        steps.push(named(step));
        turnBefore.push(turned);
      },
    });
    setImmediate(() => (turned = true));
    assert.deepEqual(await run, { analyzed: ['requests'], vacuumed: ['requests'] });
    assert.deepEqual(steps, [
      'statistics',
      'vacuum heap requests',
      'clean pending requests requests_search',
      'clean pending requests requests_search_doc',
      'analyze requests',
    ]);
    // The event loop ran after the first statement, not only once the whole run was over. (Whether it also ran
    // during the first one depends on how busy the machine is: the store yields a turn after 20 ms of work.)
    assert.deepEqual(turnBefore.slice(1), [true, true, true, true]);
    for (const index of ['requests_search', 'requests_search_doc']) {
      const pending = await sql<{ pages: number }>`select pending.n as pages
        from (select gin_clean_pending_list(${index}::regclass) as n) as pending`.execute(db);
      assert.equal(pending.rows[0]?.pages, 0, `the run left entries pending in ${index}`);
    }
  });

  it('gathers no statistics on the header lists, which no query filters by (migration 018)', async () => {
    const stats = await sql<{ column: string }>`select attname as column from pg_stats
      where tablename = 'requests' and schemaname = current_schema() order by 1`.execute(store.db);
    const columns = stats.rows.map((r) => r.column);
    assert.ok(columns.includes('sandbox_id'), `requests was not analyzed: ${columns.join(', ')}`);
    assert.ok(!columns.includes('headers'), 'requests.headers has statistics');
  });

  it('vacuums indexes too once rows were deleted, in one step of its own', async () => {
    const db = store.db;
    await sql`delete from requests where path ~ '[13579]$'`.execute(db);
    const steps: string[] = [];
    const result = await maintainTables(db, { onStep: (step) => steps.push(named(step)) });
    assert.deepEqual(result, { analyzed: ['requests'], vacuumed: ['requests'] });
    assert.deepEqual(steps, ['statistics', 'vacuum requests', 'analyze requests']);
  });

  it('answers a /healthz request sent as a run starts before the run ends', async () => {
    const db = store.db;
    const core = createCore({ store, config: testConfig(), clock: testClock() });
    const app = await buildApi({ core, logger: pino({ level: 'silent' }) });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;
    // A probe's connection is closed after its answer (src/rest/app.ts), so the request goes on a new one,
    // connected before the run starts.
    const socket = connect(port, '127.0.0.1');
    try {
      await insertRequests(db, await insertSandbox(db), 3_000);
      await once(socket, 'connect');
      const answers: string[] = [];
      socket.on('data', (chunk: Buffer) => answers.push(chunk.toString('latin1')));
      const order: string[] = [];
      // Seen on the server's side: the client's socket reads the answer a turn later, which may be after the run.
      app.server.on('request', (_req, res) => res.on('finish', () => order.push('healthz answered')));
      // Written to the socket at once, before the run's first statement.
      socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const steps: string[] = [];
      await core.maintainStore({ onStep: (step) => steps.push(named(step)) });
      order.push('maintenance done');
      assert.ok(steps.includes('analyze requests'), `the run did no work: ${steps.join(', ')}`);
      assert.equal(order[0], 'healthz answered', `steps: ${steps.join(', ')}`);
      await eventually('the answer read', () => answers.join('').length > 0);
      assert.match(answers.join(''), /^HTTP\/1\.1 200/);
    } finally {
      socket.destroy();
      await app.close();
    }
  });
});
