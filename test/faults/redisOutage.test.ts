// Redis going away under load (REDIS_URL set, a private redis-server this test starts and kills): capture,
// SMTP and REST keep working; the limits count in each process's memory meanwhile (they still refuse past
// the limit, neither open nor closed); the outage is logged once, the return too, and counting moves back.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { sendOneCapture, startLoad, stopLoads } from '../helpers/faultLoad.ts';
import { eventually } from '../helpers/poll.ts';
import { startPrivateRedis, type PrivateRedis } from '../helpers/privateRedis.ts';
import { cleanupProcesses, runCli, startServerProcess, type ServerProcess } from '../helpers/process.ts';

const API_PER_KEY = 30;
const DOWN_LINE = 'Redis is unreachable: rate limits count in this process only until it is back';
const BACK_LINE = 'Redis is back: rate limits are shared again';

describe('Redis stopped under load', () => {
  let redis: PrivateRedis;
  let server: ServerProcess;
  let key: string;
  let sandboxId: string;

  before(async () => {
    redis = await startPrivateRedis();
    key = (await runCli(['keys', 'generate'])).stdout.trim();
    server = await startServerProcess({
      env: {
        REDIS_URL: redis.url,
        BOOTSTRAP_API_KEY: key,
        LOG_LEVEL: 'info',
        RATE_LIMIT_CAPTURE_PER_IP: '100000',
        RATE_LIMIT_CAPTURE_PER_WORKSPACE: '100000',
        RATE_LIMIT_SMTP_PER_IP: '100000',
        RATE_LIMIT_SMTP_PER_WORKSPACE: '100000',
        RATE_LIMIT_SMTP_INBOUND_PER_WORKSPACE: '100000',
        RATE_LIMIT_API_PER_KEY: String(API_PER_KEY),
      },
    });
    await server.waitHealthy(20_000);
    const res = await fetch(`${server.apiUrl}/api/v1/sandboxes`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'redis outage' }),
    });
    assert.equal(res.status, 201);
    sandboxId = ((await res.json()) as { id: string }).id;
  });

  after(async () => {
    await stopLoads();
    await cleanupProcesses();
    await redis?.stop();
  });

  test('capture, SMTP and REST keep working; limits count per process; logged once each way', async () => {
    const probe = new Redis(redis.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on('error', () => undefined);
    await probe.connect();
    const counted = async () => (await probe.keys('sandtrap*')).length;
    assert.equal((await sendOneCapture(server.ports.capture, sandboxId, '/shared')).status, 200);
    assert.ok((await counted()) > 0, 'the capture limits do not count in Redis');
    probe.disconnect();

    const load = startLoad({
      capturePort: server.ports.capture,
      smtpInboundPort: server.ports.smtpInbound,
      sandboxId,
    });
    await sleep(500);
    await redis.stop();
    const stoppedAt = { captures: load.captures.length, mails: load.mails.length };
    // The load goes on without Redis: what it got meanwhile is checked below, once there is enough of it.
    await eventually(
      () =>
        `21 captures and 6 mails answered while Redis is away (${load.captures.length - stoppedAt.captures}, ` +
        `${load.mails.length - stoppedAt.mails})`,
      () => load.captures.length - stoppedAt.captures > 20 && load.mails.length - stoppedAt.mails > 5,
      60_000,
      50,
    );

    // REST answers from this process's own counters: the first calls pass, the ones past the limit are 429.
    const statuses: number[] = [];
    for (let i = 0; i < API_PER_KEY + 5; i++) {
      const res = await fetch(`${server.apiUrl}/api/v1/whoami`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    assert.equal(statuses[0], 200, `REST refused while Redis is away: ${statuses.join(',')}`);
    assert.ok(statuses.filter((s) => s === 200).length >= API_PER_KEY - 2, statuses.join(','));
    assert.equal(statuses.at(-1), 429, `limits failed open: ${statuses.join(',')}`);
    assert.deepEqual(
      statuses.filter((s) => s !== 200 && s !== 429),
      [],
    );
    await load.stop();

    const during = {
      captures: load.captures.slice(stoppedAt.captures),
      mails: load.mails.slice(stoppedAt.mails),
    };
    assert.ok(during.captures.length > 20, `only ${during.captures.length} captures while Redis was away`);
    assert.ok(during.mails.length > 5, `only ${during.mails.length} mails while Redis was away`);
    assert.deepEqual(
      during.captures.filter((c) => c.status !== 200).map((c) => c.status),
      [],
    );
    assert.deepEqual(
      during.mails.filter((m) => !m.ok).map((m) => m.response),
      [],
    );
    assert.equal(
      server.logs().filter((l) => l.msg === DOWN_LINE).length,
      1,
      'the outage was not logged once',
    );

    await redis.start();
    await server.waitForLine(new RegExp(BACK_LINE), 15_000, 'stderr');
    const again = new Redis(redis.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    again.on('error', () => undefined);
    await again.connect();
    assert.equal((await again.keys('sandtrap*')).length, 0, 'a new Redis starts empty');
    assert.equal((await sendOneCapture(server.ports.capture, sandboxId, '/shared-again')).status, 200);
    assert.ok((await again.keys('sandtrap*')).length > 0, 'the limits did not move back to Redis');
    again.disconnect();
    assert.equal(server.logs().filter((l) => l.msg === DOWN_LINE).length, 1);
    assert.equal(server.exitCode, null);
  });
});
