// Live events across two real `sandtrap serve` processes on one PostgreSQL database: a stream on A sees
// arrivals and changes committed by B, woken by LISTEN/NOTIFY (well before the periodic re-check), and an id
// handed out by A resumes exactly on B. Runs only when TEST_DATABASE_URL is set; uses a fresh database.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { sendRecorded } from '../helpers/captureClient.ts';
import { openEvents } from '../helpers/eventStream.ts';
import { cleanupProcesses, runCli, startServerProcess, type ServerProcess } from '../helpers/process.ts';

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
const skip =
  TEST_DATABASE_URL === undefined || TEST_DATABASE_URL === ''
    ? 'TEST_DATABASE_URL is unset (set it to a PostgreSQL URL, e.g. postgres://postgres@127.0.0.1:5432/test)'
    : false;

/** Far below the 15 s periodic re-check: the notification must be what delivers. */
const MAX_WAKE_MS = 2_000;

describe('live events across two serve processes on one PostgreSQL', { skip }, () => {
  const databaseName = `sandtrap_ev_${randomBytes(6).toString('hex')}`;
  let admin: pg.Client | undefined;
  let a: ServerProcess | undefined;
  let b: ServerProcess | undefined;
  let key: string;

  before(async () => {
    const baseUrl = TEST_DATABASE_URL as string;
    admin = new pg.Client({ connectionString: baseUrl, connectionTimeoutMillis: 5_000 });
    admin.on('error', () => undefined);
    await admin.connect();
    await admin.query(`CREATE DATABASE "${databaseName}"`);
    const url = new URL(baseUrl);
    url.pathname = `/${databaseName}`;
    const generated = await runCli(['keys', 'generate']);
    assert.equal(generated.code, 0, generated.stderr);
    key = generated.stdout.trim();
    const env = { DATABASE_URL: url.toString(), BOOTSTRAP_API_KEY: key };
    a = await startServerProcess({ env });
    await a.waitHealthy(20_000);
    b = await startServerProcess({ env });
    await b.waitHealthy(20_000);
  });

  after(async () => {
    for (const server of [a, b]) await server?.stop('SIGTERM', 15_000).catch(() => undefined);
    if (admin !== undefined) {
      await admin.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`).catch(() => undefined);
      await admin.end().catch(() => undefined);
    }
    await cleanupProcesses();
  });

  test(
    'a stream on A sees what B commits, and resumes on B from an id of A',
    { timeout: 30_000 },
    async () => {
      const A = a as ServerProcess;
      const B = b as ServerProcess;
      const created = await fetch(`${B.apiUrl}/api/v1/sandboxes`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'cross' }),
      });
      assert.equal(created.status, 201);
      const sandbox = (await created.json()) as { id: string };
      const onA = await openEvents(A.apiUrl, key, { sandboxId: sandbox.id });

      const t0 = performance.now();
      const sent = await sendRecorded(B.ports.capture, sandbox.id, {
        method: 'POST',
        path: '/from-b',
        body: 'x',
      });
      const arrival = await onA.next(MAX_WAKE_MS);
      assert.ok(performance.now() - t0 < MAX_WAKE_MS);
      assert.equal(arrival.event, 'request.received');
      assert.equal((arrival.data as any).id, sent.requestId);

      const patched = await fetch(`${B.apiUrl}/api/v1/sandboxes/${sandbox.id}/requests/${sent.requestId}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: '{"isRead":true}',
      });
      assert.ok(patched.ok);
      const updated = await onA.next(MAX_WAKE_MS);
      assert.equal(updated.event, 'request.updated');
      onA.close();
      await onA.ended;

      const missed: string[] = [];
      for (const path of ['/x', '/y']) {
        missed.push((await sendRecorded(A.ports.capture, sandbox.id, { method: 'POST', path })).requestId);
      }
      const onB = await openEvents(B.apiUrl, key, {
        sandboxId: sandbox.id,
        lastEventId: onA.stream.lastEventId as string,
      });
      const replay = await onB.take(2);
      assert.deepEqual(
        replay.map((e) => (e.data as any).id),
        missed,
      );
      await onB.none(300);
      onB.close();
    },
  );
});
