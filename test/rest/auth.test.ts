// Authentication: both header forms, and 401 problem+json with WWW-Authenticate for every refused key.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateApiKey } from '../../src/core/apiKeyFormat.ts';
import { createTestApi, type TestApi } from '../helpers/api.ts';
import { describeEachStore } from '../helpers/stores.ts';

function assertUnauthorized(
  res: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  why: RegExp,
) {
  assert.equal(res.statusCode, 401);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  assert.match(String(res.headers['www-authenticate']), /^Bearer/);
  const body = res.json() as Record<string, unknown>;
  assert.equal(body.type, 'urn:sandtrap:problem:unauthorized');
  assert.equal(body.status, 401);
  assert.equal(body.requestId, res.headers['x-request-id']);
  assert.match(String(body.detail), why);
}

describeEachStore('authentication', (getStore) => {
  let api: TestApi;
  before(async () => {
    api = await createTestApi(getStore());
  });
  after(() => api.close());

  describe('200', () => {
    it('accepts Authorization: Bearer and X-Api-Key', async () => {
      const ws = await api.workspace();
      const bearer = await api.app.inject({
        url: '/api/v1/whoami',
        headers: { authorization: `Bearer ${ws.key}` },
      });
      assert.equal(bearer.statusCode, 200);
      const header = await api.app.inject({ url: '/api/v1/whoami', headers: { 'x-api-key': ws.key } });
      assert.equal(header.statusCode, 200);
      assert.equal(header.json().workspaceId, ws.orgId);
    });
  });

  describe('401', () => {
    it('no key', async () => {
      const res = await api.app.inject({ url: '/api/v1/whoami' });
      assertUnauthorized(res, /No API key/);
      assert.equal(res.headers['www-authenticate'], 'Bearer realm="sandtrap"');
    });

    it('malformed key: wrong shape, bad checksum, non-Bearer scheme', async () => {
      const ws = await api.workspace();
      const broken = ws.key.slice(0, -1) + (ws.key.endsWith('A') ? 'B' : 'A');
      for (const headers of [
        { authorization: 'Bearer nope' },
        { authorization: `Bearer ${broken}` },
        { authorization: `Basic ${Buffer.from(`x:${ws.key}`).toString('base64')}` },
        { 'x-api-key': 'stk_123' },
      ]) {
        const res = await api.app.inject({ url: '/api/v1/whoami', headers });
        assertUnauthorized(res, /malformed/);
        assert.match(String(res.headers['www-authenticate']), /invalid_token/);
        assert.ok(!JSON.stringify(res.json()).includes(ws.key), 'the key is never echoed');
      }
    });

    it('well-formed but unknown key', async () => {
      const res = await api.app.inject({
        url: '/api/v1/account',
        headers: { 'x-api-key': generateApiKey() },
      });
      assertUnauthorized(res, /not recognised/);
    });

    it('revoked key, on every endpoint', async () => {
      const ws = await api.workspace();
      const created = await ws.call({ method: 'POST', url: '/api/v1/keys', payload: { label: 'doomed' } });
      const { id, key } = created.json();
      assert.equal((await ws.call({ method: 'DELETE', url: `/api/v1/keys/${id}` })).statusCode, 204);
      for (const [method, url] of [
        ['GET', '/api/v1/whoami'],
        ['GET', '/api/v1/account'],
        ['GET', '/api/v1/keys'],
        ['GET', '/api/v1/sandboxes'],
        ['POST', '/api/v1/sandboxes'],
      ] as const) {
        const res = await api.app.inject({
          method,
          url,
          headers: { authorization: `Bearer ${key}` },
          payload: {},
        });
        assertUnauthorized(res, /revoked/);
      }
    });

    it('expired key: works before expiresAt, refused from it on', async () => {
      const ws = await api.workspace();
      const created = await ws.call({ method: 'POST', url: '/api/v1/keys', payload: { expiresInDays: 1 } });
      const { key } = created.json();
      const call = () => api.app.inject({ url: '/api/v1/whoami', headers: { 'x-api-key': key } });
      assert.equal((await call()).statusCode, 200);
      api.clock.advance(86_400_000);
      assertUnauthorized(await call(), /expired/);
      const listed = (await ws.call({ url: '/api/v1/keys' }))
        .json()
        .items.find((k: { key?: string; prefix: string }) => key.startsWith(k.prefix));
      assert.equal(listed.expired, true);
      assert.equal(listed.revoked, false);
    });

    it('unauthenticated requests never reach validation', async () => {
      const res = await api.app.inject({ method: 'POST', url: '/api/v1/sandboxes', payload: { name: 123 } });
      assert.equal(res.statusCode, 401);
    });
  });
});
