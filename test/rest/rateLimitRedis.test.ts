// The REST per-IP limit with REDIS_URL: counted in Redis by core's limiter, so every process sees the same
// count (requests made at one server are refused at another with its own store).
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Redis } from 'ioredis';
import type { Store } from '../../src/core/store/openStore.ts';
import { startPrivateRedis, type PrivateRedis } from '../helpers/privateRedis.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { describeEachStore, storeBackends } from '../helpers/stores.ts';

const PER_IP = 10;

describeEachStore('REST per-IP limit shared through Redis', (getStore, backend) => {
  let redis: PrivateRedis;
  let probe: Redis;
  let otherStore: Store;
  let a: TestServer;
  let b: TestServer;

  before(async () => {
    redis = await startPrivateRedis();
    probe = new Redis(redis.url);
    otherStore = await (storeBackends().find((s) => s.name === backend.name) ?? backend).open();
    const env = { REDIS_URL: redis.url, RATE_LIMIT_API_PER_IP: String(PER_IP) };
    a = await startTestServer(getStore(), env);
    b = await startTestServer(otherStore, env);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    probe?.disconnect();
    await redis?.stop();
  });

  it('counts requests in Redis and refuses the address at every server', async () => {
    for (let i = 0; i < PER_IP; i++) {
      const res = await fetch(`${a.apiUrl}/api/v1/whoami`);
      await res.arrayBuffer();
      assert.equal(res.status, 401, `request ${i + 1} at server a`);
    }
    const keys = await probe.keys('sandtrap-api-ip*');
    assert.equal(keys.length, 1, `one counter in Redis: ${keys.join(', ')}`);
    const refused = await fetch(`${b.apiUrl}/api/v1/whoami`);
    assert.equal(refused.status, 429, await refused.text());
    assert.match(refused.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.equal(refused.headers.get('x-ratelimit-limit'), String(PER_IP));
    assert.equal(refused.headers.get('x-ratelimit-remaining'), '0');
  });
});
