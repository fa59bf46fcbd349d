// Webhook delivery survives kill -9: the sender is killed in the middle of a burst of captures and deliveries,
// restarted on the same DATA_DIR (embedded) or database (PostgreSQL), and every acknowledged capture reaches
// the receiver, verified by `standardwebhooks`, at least once and under one webhook-id. On PostgreSQL, two
// processes sharing one database deliver each event exactly once between them.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { sendCapture } from '../helpers/captureClient.ts';
import { eventually } from '../helpers/poll.ts';
import { cleanupProcesses, runCli, startServerProcess, tempDir } from '../helpers/process.ts';
import { needsPostgres, useTwoServers } from '../helpers/twoServers.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhookReceiver.ts';

const WEBHOOK_ENV = {
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_TIMEOUT_MS: '1000',
  RATE_LIMITS: 'off',
  LOG_LEVEL: 'warn',
};

async function call(apiUrl: string, key: string, path: string, body?: unknown): Promise<Record<string, any>> {
  const res = await fetch(`${apiUrl}/api/v1${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  assert.ok(res.status < 300, `${path}: ${res.status} ${await res.clone().text()}`);
  return (await res.json()) as Record<string, any>;
}

/** Per captured request id, the webhook-ids it arrived under: one each, however often it arrived. */
function idsPerEvent(receiver: WebhookReceiver): Map<string, Set<string>> {
  const seen = new Map<string, Set<string>>();
  for (const r of receiver.received) {
    const ids = seen.get(r.data.id) ?? new Set<string>();
    ids.add(r.id);
    seen.set(r.data.id, ids);
  }
  return seen;
}

async function killMidBurstAndRestart(storeEnv: Record<string, string>): Promise<void> {
  const key = (await runCli(['keys', 'generate'])).stdout.trim();
  const dataDir = tempDir();
  const env = { ...WEBHOOK_ENV, ...storeEnv, BOOTSTRAP_API_KEY: key };
  const receiver = await startWebhookReceiver();
  // Answers held a while: the kill lands with deliveries on the wire and rows claimed.
  receiver.delayMs = 200;
  try {
    const first = await startServerProcess({ dataDir, env });
    await first.waitHealthy(30_000);
    const sandbox = await call(first.apiUrl, key, '/sandboxes', { name: 'kill -9' });
    const hook = await call(first.apiUrl, key, '/webhooks', {
      url: receiver.url,
      events: ['request.received'],
    });
    receiver.secret = hook.secret;

    const acked: string[] = [];
    let sending = true;
    const burst = (async () => {
      for (let n = 0; sending; n++) {
        try {
          const got = await sendCapture(first.ports.capture, {
            method: 'POST',
            path: `/${sandbox.id}/n${n}`,
            body: '{}',
          });
          if (got.status === 200 && got.requestId !== undefined) acked.push(got.requestId);
        } catch {
          return; // the server is gone
        }
      }
    })();
    await eventually(
      () => `deliveries under way (${receiver.received.length} received, ${acked.length} acknowledged)`,
      () => receiver.received.length >= 5 && acked.length >= 20,
      60_000,
      10,
    );
    first.child.kill('SIGKILL');
    sending = false;
    await burst;
    await first.waitExit(20_000).catch(() => undefined);
    const beforeRestart = new Set(receiver.received.map((r) => r.data.id));
    assert.ok(
      acked.some((id) => !beforeRestart.has(id)),
      'the kill came after every acknowledged capture was delivered: nothing was left to recover',
    );

    const second = await startServerProcess({ dataDir, env });
    await second.waitHealthy(30_000);
    await eventually(
      () =>
        `every acknowledged capture delivered (${acked.filter((id) => !idsPerEvent(receiver).has(id)).length} missing)`,
      () => acked.every((id) => idsPerEvent(receiver).has(id)),
      90_000,
      50,
    );
    assert.deepEqual(receiver.rejected, []);
    const perEvent = idsPerEvent(receiver);
    assert.deepEqual(
      [...perEvent].filter(([, ids]) => ids.size !== 1).map(([id]) => id),
      [],
      'an event arrived under two webhook-ids (fanned out twice)',
    );
    assert.equal(await second.stop('SIGTERM', 15_000), 0);
  } finally {
    await receiver.close();
  }
}

describe('webhooks: kill -9 of the sender mid-burst, restart on the same data', () => {
  after(() => cleanupProcesses());

  test('embedded store', async () => {
    await killMidBurstAndRestart({});
  });

  describe('PostgreSQL', { skip: needsPostgres }, () => {
    let admin: pg.Client | undefined;
    const name = `webhooks_kill_${randomBytes(6).toString('hex')}`;
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

    test('a fresh database', async () => {
      await killMidBurstAndRestart({ DATABASE_URL: url });
    });
  });
});

describe('webhooks: two processes on one PostgreSQL database', { skip: needsPostgres }, () => {
  const servers = useTwoServers('webhooks_two', WEBHOOK_ENV);
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await startWebhookReceiver();
  });
  after(() => receiver.close());

  test('each event is delivered by exactly one of them', async () => {
    const a = servers.a();
    const b = servers.b();
    const sandbox = await call(a.apiUrl, servers.key(), '/sandboxes', { name: 'two' });
    const hook = await call(b.apiUrl, servers.key(), '/webhooks', {
      url: receiver.url,
      events: ['request.received'],
    });
    receiver.secret = hook.secret;
    const sent: string[] = [];
    for (let n = 0; n < 40; n++) {
      const port = n % 2 === 0 ? a.ports.capture : b.ports.capture;
      const got = await sendCapture(port, { method: 'POST', path: `/${sandbox.id}/n${n}`, body: '{}' });
      assert.equal(got.status, 200);
      sent.push(got.requestId as string);
    }
    await eventually(
      () => `40 deliveries (${receiver.received.length} so far)`,
      () => receiver.received.length >= 40,
      60_000,
      50,
    );
    // Both processes ran their senders all along: any row sent twice would have arrived by now, after the last.
    const ping = await call(a.apiUrl, servers.key(), `/webhooks/${hook.id}/ping`, {});
    await eventually('the ping after the burst', () =>
      receiver.received.some((r) => r.id === ping.messageId),
    );
    assert.deepEqual(receiver.rejected, []);
    const events = receiver.received.filter((r) => r.type === 'request.received');
    assert.deepEqual(events.map((r) => r.data.id).sort(), [...sent].sort());
    assert.equal(new Set(events.map((r) => r.id)).size, 40);
  });
});
