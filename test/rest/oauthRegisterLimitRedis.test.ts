// The registration limit per address with REDIS_URL: counted in Redis, so registrations made at one process use
// up the budget at every other (each server here has a store of its own).
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Redis } from 'ioredis';
import type { Store } from '../../src/core/store/openStore.ts';
import { startPrivateRedis, type PrivateRedis } from '../helpers/privateRedis.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { describeEachStore, storeBackends } from '../helpers/stores.ts';
import { oauthError, postJson, REDIRECT_URI } from './oauthSupport.ts';

describeEachStore('OAuth registration limit shared through Redis', (getStore, backend) => {
  let redis: PrivateRedis;
  let probe: Redis;
  let otherStore: Store;
  let a: TestServer;
  let b: TestServer;

  before(async () => {
    redis = await startPrivateRedis();
    probe = new Redis(redis.url);
    otherStore = await (storeBackends().find((s) => s.name === backend.name) ?? backend).open();
    const env = { REDIS_URL: redis.url, OAUTH_REGISTRATIONS_PER_HOUR: '2' };
    a = await startTestServer(getStore(), env);
    b = await startTestServer(otherStore, env);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    probe?.disconnect();
    await redis?.stop();
  });

  it('counts registrations in Redis and refuses the address at every server', async () => {
    const register = (server: TestServer) =>
      postJson(`${server.apiUrl}/oauth/register`, {
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
      });
    for (const server of [a, b]) {
      const res = await register(server);
      assert.equal(res.status, 201, await res.text());
    }
    const keys = await probe.keys('sandtrap-oauth-register*');
    assert.equal(keys.length, 1, `one counter in Redis: ${keys.join(', ')}`);
    for (const server of [a, b]) {
      const refused = await register(server);
      await oauthError(refused, 429, 'invalid_request');
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    }
  });
});
