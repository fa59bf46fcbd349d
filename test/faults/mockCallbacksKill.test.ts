// A mock rule's callback survives kill -9 of the process that answered (issue 40): the request is answered
// (so its callback is in the outbox), the process is killed before the callback's delay ends, and a process
// restarted on the same DATA_DIR (embedded) or database (PostgreSQL) delivers it, signed (verified with
// `standardwebhooks`), exactly once: one arrival, one webhook-id, one delivered attempt in the log.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { sendCapture } from '../helpers/captureClient.ts';
import { eventually } from '../helpers/poll.ts';
import { cleanupProcesses, runCli, startServerProcess, tempDir } from '../helpers/process.ts';
import { needsPostgres } from '../helpers/twoServers.ts';
import { startWebhookReceiver } from '../helpers/webhookReceiver.ts';

const ENV = {
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_TIMEOUT_MS: '1000',
  RATE_LIMITS: 'off',
  LOG_LEVEL: 'warn',
};

async function call(apiUrl: string, key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${apiUrl}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  assert.ok(res.status < 300, `${path}: ${res.status} ${await res.clone().text()}`);
  return (await res.json()) as Record<string, any>;
}

async function killBeforeTheCallback(storeEnv: Record<string, string>): Promise<void> {
  const key = (await runCli(['keys', 'generate'])).stdout.trim();
  const dataDir = tempDir();
  const env = { ...ENV, ...storeEnv, BOOTSTRAP_API_KEY: key };
  const receiver = await startWebhookReceiver();
  try {
    const first = await startServerProcess({ dataDir, env });
    await first.waitHealthy(90_000);
    const sandbox = await call(first.apiUrl, key, 'POST', '/sandboxes', { name: 'callback kill -9' });
    const saved = await call(first.apiUrl, key, 'PUT', `/sandboxes/${sandbox.id}/mocks`, {
      mocks: [
        {
          name: 'pay',
          method: 'POST',
          pattern: '/orders/{id}/pay',
          statusCode: 202,
          callbacks: [
            {
              // Long enough that the kill lands first: the callback waits in the outbox across the restart.
              delayMs: 3000,
              url: receiver.url,
              body: '{"type":"charge.succeeded","data":{"id":"{{path.id}}"}}',
              signing: { scheme: 'standard-webhooks' },
            },
          ],
        },
      ],
    });
    receiver.secret = saved.mocks[0].callbacks[0].signing.secret;
    const got = await sendCapture(first.ports.capture, {
      method: 'POST',
      path: `/${sandbox.id}/orders/9/pay`,
      body: '{}',
    });
    assert.equal(got.status, 202);
    first.child.kill('SIGKILL');
    await first.waitExit(20_000).catch(() => undefined);
    assert.equal(
      receiver.received.length,
      0,
      'the callback went out before the kill: nothing was left to recover',
    );

    const second = await startServerProcess({ dataDir, env });
    await second.waitHealthy(90_000);
    const queued = await eventually(
      'the callback delivered after the restart',
      async () => {
        const page = await call(
          second.apiUrl,
          key,
          'GET',
          `/sandboxes/${sandbox.id}/callbacks?requestId=${got.requestId}`,
        );
        return page.items[0]?.status === 'delivered' ? page.items[0] : undefined;
      },
      60_000,
    );
    // A second request's callback after the first's: once it arrived, a repeat of the first would have too.
    const sentinel = await sendCapture(second.ports.capture, {
      method: 'POST',
      path: `/${sandbox.id}/orders/10/pay`,
      body: '{}',
    });
    await eventually(
      'the sentinel callback',
      () => receiver.received.some((r) => r.data.id === '10'),
      60_000,
    );
    assert.equal(sentinel.status, 202);
    assert.deepEqual(receiver.rejected, []);
    const first9 = receiver.received.filter((r) => r.data.id === '9');
    assert.equal(first9.length, 1, 'delivered exactly once');
    assert.equal(first9[0]?.id, queued.id);
    assert.deepEqual(
      queued.deliveries.map((d: { outcome: string }) => d.outcome),
      ['delivered'],
    );
    assert.equal(await second.stop('SIGTERM', 15_000), 0);
  } finally {
    await receiver.close();
  }
}

describe('mock callbacks: kill -9 before the callback is due, restart on the same data', () => {
  after(() => cleanupProcesses());

  test('embedded store', { timeout: 300_000 }, async () => {
    await killBeforeTheCallback({});
  });

  describe('PostgreSQL', { skip: needsPostgres }, () => {
    let admin: pg.Client | undefined;
    const name = `callbacks_kill_${randomBytes(6).toString('hex')}`;
    let url = '';
    before(async () => {
      const base = process.env.TEST_DATABASE_URL as string;
      admin = new pg.Client({ connectionString: base });
      await admin.connect();
      await admin.query(`CREATE DATABASE "${name}"`);
      const u = new URL(base);
      u.pathname = `/${name}`;
      url = u.toString();
    });
    after(async () => {
      await cleanupProcesses();
      await admin?.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin?.end();
    });

    test('a fresh database', { timeout: 300_000 }, async () => {
      await killBeforeTheCallback({ DATABASE_URL: url });
    });
  });
});
