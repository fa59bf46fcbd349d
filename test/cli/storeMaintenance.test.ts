// A running embedded server analyzes its store on its own (it has no autovacuum): after enough captures, the
// next sweep tick runs ANALYZE and logs it; a table that outgrew its statistics (a burst) is analyzed within
// seconds, without waiting for the sweep tick (the embedded store's whole maintenance runs every 2 s).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { sql } from 'kysely';
import { sendCapture } from '../helpers/captureClient.ts';
import { eventually } from '../helpers/poll.ts';
import { cleanupProcesses, startServerProcess } from '../helpers/process.ts';
import { insertRequests } from '../helpers/sandboxRow.ts';
import { startTestServer } from '../helpers/server.ts';
import { storeBackends } from '../helpers/stores.ts';

after(cleanupProcesses);

test('serve on the embedded store analyzes the requests table once enough were captured', async () => {
  const server = await startServerProcess({ env: { SWEEP_INTERVAL_SECONDS: '1', LOG_LEVEL: 'info' } });
  const key = (await server.waitForLine(/^API key: (stk_\w+)$/)).slice('API key: '.length);
  await server.waitHealthy();
  const res = await fetch(`${server.apiUrl}/api/v1/sandboxes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'maintenance' }),
  });
  assert.equal(res.status, 201);
  const { id } = (await res.json()) as { id: string };
  for (let i = 0; i < 120; i++) {
    const got = await sendCapture(server.ports.capture, {
      method: 'POST',
      path: `/${id}/hook/${i}`,
      body: '{}',
    });
    assert.equal(got.status, 200);
  }
  const analyzed = () =>
    server
      .logs()
      .find(
        (l) =>
          l.msg === 'embedded store vacuumed and analyzed the tables that changed' &&
          (l.maintenance as { analyzed: string[] }).analyzed.includes('requests'),
      );
  const line = await eventually(
    () => `the maintenance log line; logs: ${server.stderr.slice(-2000)}`,
    analyzed,
    90_000,
    100,
  );
  assert.equal(typeof line.ms, 'number');
  // A run is a series of statements with the event loop running between them; the line names the longest.
  assert.ok((line.steps as number) >= 2, `steps: ${String(line.steps)}`);
  assert.equal(typeof line.longestStepMs, 'number');
  assert.match(String(line.longestStep), /^(statistics|vacuum|vacuum heap|clean pending|analyze)\b/);
  assert.equal(await server.stop(), 0);
});

for (const backend of storeBackends())
  test(`a burst that more than doubles a table gets it analyzed by the grown check, not at the next sweep tick [${backend.name}]`, async () => {
    const store = await backend.open();
    // The sweep tick (and its full maintenance) runs once at the start, on empty tables, and then not for an hour.
    const server = await startTestServer(store, { SWEEP_INTERVAL_SECONDS: '3600' });
    try {
      // On PostgreSQL, autovacuum would otherwise be free to analyze it first.
      await sql`alter table requests set (autovacuum_enabled = false)`.execute(store.db);
      const ws = await server.workspace();
      const sandbox = await ws.createSandbox();
      const lastRuns = async () =>
        (
          await sql<{ analyzed: Date | null; vacuumed: Date | null }>`select last_analyze as analyzed,
            last_vacuum as vacuumed from pg_stat_user_tables
            where relname = 'requests' and schemaname = current_schema()`.execute(store.db)
        ).rows[0];
      // A burst written straight to the store: 10,100 rows is over 5,000 and half the table.
      await insertRequests(store.db, sandbox.id, 10_100);
      // On PostgreSQL only ANALYZE: the vacuum by rows arrived is autovacuum's. The embedded store's own
      // maintenance runs every 2 s as well, in batches of what arrived since the last run (one that started
      // just before the burst leaves it to the grown check and the next run).
      const embedded = backend.name === 'pglite';
      const runs = await eventually(
        'the grown table to be analyzed (and vacuumed, on the embedded store)',
        async () => {
          const r = await lastRuns();
          return r?.analyzed != null && (!embedded || r.vacuumed != null) ? r : undefined;
        },
        90_000,
        100,
      );
      if (embedded) assert.notEqual(runs?.vacuumed ?? null, null);
      else assert.equal(runs?.vacuumed ?? null, null);
    } finally {
      await server.close();
    }
  });
