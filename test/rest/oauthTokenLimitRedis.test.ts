// The per-client limit on failed token requests with REDIS_URL: counted in Redis, so every process sees the
// same count (failures made at one server are refused at another with its own store).
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Redis } from 'ioredis';
import type { Store } from '../../src/core/store/openStore.ts';
import { startPrivateRedis, type PrivateRedis } from '../helpers/privateRedis.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { describeEachStore, storeBackends } from '../helpers/stores.ts';
import { oauthError, registerClient, tokenRequest, type Registration } from './oauthSupport.ts';

describeEachStore('OAuth token failure limit shared through Redis', (getStore, backend) => {
  let redis: PrivateRedis;
  let probe: Redis;
  let otherStore: Store;
  let a: TestServer;
  let b: TestServer;
  let client: Registration;

  before(async () => {
    redis = await startPrivateRedis();
    probe = new Redis(redis.url);
    otherStore = await (storeBackends().find((s) => s.name === backend.name) ?? backend).open();
    a = await startTestServer(getStore(), { REDIS_URL: redis.url });
    b = await startTestServer(otherStore, { REDIS_URL: redis.url });
    client = await registerClient(a.apiUrl);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    probe?.disconnect();
    await redis?.stop();
  });

  it('counts failures in Redis and refuses the client at every server', async () => {
    const bad = (server: TestServer) =>
      tokenRequest(server, {
        grant_type: 'refresh_token',
        refresh_token: `str_${'A'.repeat(43)}`,
        client_id: client.client_id,
      });
    for (let i = 0; i < 10; i++) await oauthError(await bad(a), 400, 'invalid_grant');
    const keys = await probe.keys('sandtrap-oauth-token-fail*');
    assert.equal(keys.length, 1, `one counter in Redis: ${keys.join(', ')}`);
    // Server b has never heard of this client (its own store), yet the shared count refuses it there.
    const refused = await bad(b);
    await oauthError(refused, 429, 'invalid_request');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    await oauthError(await bad(a), 429, 'invalid_request');
  });
});
