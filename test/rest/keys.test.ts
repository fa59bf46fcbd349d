// /keys, /whoami and /account, grouped by status code.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApi, type TestApi } from '../helpers/api.ts';
import { describeEachStore } from '../helpers/stores.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function assertProblem(
  res: {
    statusCode: number;
    headers: Record<string, unknown>;
    json(): { status?: number; requestId?: string };
  },
  status: number,
) {
  assert.equal(res.statusCode, status);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  assert.equal(res.json().status, status);
  assert.equal(res.json().requestId, res.headers['x-request-id']);
}

describeEachStore('keys and account', (getStore) => {
  let api: TestApi;
  before(async () => {
    api = await createTestApi(getStore());
  });
  after(() => api.close());

  describe('200/201/204', () => {
    it('GET /whoami describes the calling key', async () => {
      const ws = await api.workspace('Who');
      const res = await ws.call({ url: '/api/v1/whoami' });
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.equal(body.workspaceId, ws.orgId);
      assert.equal(body.workspaceName, 'Who');
      assert.match(body.keyId, UUID);
      assert.equal(body.keyPrefix, ws.key.slice(0, 12));
      assert.equal(body.label, 'first key');
    });

    it('GET /account returns the workspace', async () => {
      const ws = await api.workspace('Acme Corp');
      const res = await ws.call({ url: '/api/v1/account' });
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.equal(body.orgId, ws.orgId);
      assert.equal(body.name, 'Acme Corp');
      assert.match(body.subdomain, /^acme-corp(-[a-z0-9]{6})?$/);
      assert.ok(!Number.isNaN(Date.parse(body.createdAt)));
    });

    it('POST /keys creates a working key shown once, with label and expiry', async () => {
      const ws = await api.workspace();
      const res = await ws.call({
        method: 'POST',
        url: '/api/v1/keys',
        payload: { label: 'ci', expiresInDays: 30 },
      });
      assert.equal(res.statusCode, 201);
      const key = res.json();
      assert.match(key.id, UUID);
      assert.equal(key.label, 'ci');
      assert.match(key.key, /^stk_[0-9A-Za-z]{38}$/);
      assert.equal(key.prefix, key.key.slice(0, 12));
      const days = (Date.parse(key.expiresAt) - Date.parse(key.createdAt)) / 86_400_000;
      assert.equal(days, 30);
      const whoami = await api.app.inject({ url: '/api/v1/whoami', headers: { 'x-api-key': key.key } });
      assert.equal(whoami.json().workspaceId, ws.orgId);
      const listed = (await ws.call({ url: '/api/v1/keys' })).json();
      assert.ok(!JSON.stringify(listed).includes(key.key), 'the list never shows a full key');
    });

    it('POST /keys with no body, and with nulls, creates a key without expiry', async () => {
      const ws = await api.workspace();
      for (const payload of [undefined, { label: null, expiresInDays: null }, {}]) {
        const res = await ws.call({ method: 'POST', url: '/api/v1/keys', ...(payload ? { payload } : {}) });
        assert.equal(res.statusCode, 201);
        assert.equal(res.json().expiresAt, null);
        assert.equal(res.json().label, '');
      }
    });

    it('GET /keys lists newest first with every field, pages with cursors', async () => {
      const ws = await api.workspace();
      for (let i = 0; i < 4; i++) {
        api.clock.advance(1);
        await ws.call({ method: 'POST', url: '/api/v1/keys', payload: { label: `k${i}` } });
      }
      const first = await ws.call({ url: '/api/v1/keys?limit=2' });
      assert.equal(first.statusCode, 200);
      const page1 = first.json();
      assert.deepEqual(
        page1.items.map((k: { label: string }) => k.label),
        ['k3', 'k2'],
      );
      assert.ok(page1.nextCursor);
      const k = page1.items[0];
      assert.deepEqual(Object.keys(k).sort(), [
        'createdAt',
        'expired',
        'expiresAt',
        'id',
        'label',
        'lastUsedAt',
        'lastUsedIp',
        'prefix',
        'revoked',
        'revokedAt',
      ]);
      const page2 = (await ws.call({ url: `/api/v1/keys?limit=2&cursor=${page1.nextCursor}` })).json();
      assert.deepEqual(
        page2.items.map((k: { label: string }) => k.label),
        ['k1', 'k0'],
      );
      const page3 = (await ws.call({ url: `/api/v1/keys?limit=2&cursor=${page2.nextCursor}` })).json();
      assert.deepEqual(
        page3.items.map((k: { label: string }) => k.label),
        ['first key'],
      );
      assert.equal(page3.nextCursor, null);
    });

    it('records lastUsedAt and lastUsedIp, at most once a minute', async () => {
      const ws = await api.workspace();
      const created = (
        await ws.call({ method: 'POST', url: '/api/v1/keys', payload: { label: 'used' } })
      ).json();
      const find = async () =>
        (await ws.call({ url: '/api/v1/keys' }))
          .json()
          .items.find((k: { id: string }) => k.id === created.id);
      assert.equal((await find()).lastUsedAt, null);
      await api.app.inject({
        url: '/api/v1/whoami',
        headers: { 'x-api-key': created.key },
        remoteAddress: '10.1.2.3',
      });
      const once = await find();
      assert.ok(once.lastUsedAt);
      assert.equal(once.lastUsedIp, '10.1.2.3');
      await api.app.inject({
        url: '/api/v1/whoami',
        headers: { 'x-api-key': created.key },
        remoteAddress: '10.9.9.9',
      });
      assert.equal((await find()).lastUsedIp, '10.1.2.3', 'not written again within a minute');
      api.clock.advance(61_000);
      await api.app.inject({
        url: '/api/v1/whoami',
        headers: { 'x-api-key': created.key },
        remoteAddress: '10.9.9.9',
      });
      assert.equal((await find()).lastUsedIp, '10.9.9.9');
    });

    it('DELETE /keys/{id} revokes: listed as revoked with revokedAt; a second DELETE keeps revokedAt', async () => {
      const ws = await api.workspace();
      const created = (await ws.call({ method: 'POST', url: '/api/v1/keys', payload: {} })).json();
      assert.equal((await ws.call({ method: 'DELETE', url: `/api/v1/keys/${created.id}` })).statusCode, 204);
      const listed = (await ws.call({ url: '/api/v1/keys' }))
        .json()
        .items.find((k: { id: string }) => k.id === created.id);
      assert.equal(listed.revoked, true);
      assert.ok(listed.revokedAt);
      api.clock.advance(5000);
      assert.equal((await ws.call({ method: 'DELETE', url: `/api/v1/keys/${created.id}` })).statusCode, 204);
      const again = (await ws.call({ url: '/api/v1/keys' }))
        .json()
        .items.find((k: { id: string }) => k.id === created.id);
      assert.equal(again.revokedAt, listed.revokedAt);
    });
  });

  describe('400', () => {
    const badBodies: Array<[unknown, string]> = [
      [{ label: 'x'.repeat(65) }, 'label'],
      [{ label: 42 }, 'label'],
      [{ expiresInDays: 0 }, 'expiresInDays'],
      [{ expiresInDays: 3651 }, 'expiresInDays'],
      [{ expiresInDays: 1.5 }, 'expiresInDays'],
      [{ expiresInDays: 'soon' }, 'expiresInDays'],
    ];
    for (const [payload, field] of badBodies) {
      it(`POST /keys ${JSON.stringify(payload).slice(0, 40)} names ${field} and creates nothing`, async () => {
        const ws = await api.workspace();
        const res = await ws.call({ method: 'POST', url: '/api/v1/keys', payload: payload as object });
        assertProblem(res, 400);
        assert.equal(res.json().type, 'urn:sandtrap:problem:validation-error');
        assert.equal(res.json().errors[0].path, field);
        assert.equal((await ws.call({ url: '/api/v1/keys' })).json().items.length, 1);
      });
    }

    it('GET /keys with a bad limit or cursor', async () => {
      const ws = await api.workspace();
      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['limit=x', 'limit'],
        ['cursor=%%%', 'cursor'],
        [`cursor=${Buffer.from('2020:not-a-uuid').toString('base64url')}`, 'cursor'],
      ]) {
        const res = await ws.call({ url: `/api/v1/keys?${query}` });
        assertProblem(res, 400);
        assert.equal(res.json().errors[0].path, field);
      }
    });

    it('DELETE /keys/{id} with a malformed id', async () => {
      const ws = await api.workspace();
      const res = await ws.call({ method: 'DELETE', url: '/api/v1/keys/123' });
      assertProblem(res, 400);
      assert.equal(res.json().errors[0].path, 'id');
    });
  });

  describe('401', () => {
    for (const [method, url] of [
      ['GET', '/api/v1/whoami'],
      ['GET', '/api/v1/account'],
      ['POST', '/api/v1/keys'],
      ['GET', '/api/v1/keys'],
      ['DELETE', '/api/v1/keys/00000000-0000-4000-8000-000000000000'],
    ] as const) {
      it(`${method} ${url} without a key`, async () => {
        const res = await api.app.inject({ method, url });
        assertProblem(res, 401);
        assert.ok(res.headers['www-authenticate']);
      });
    }
  });

  describe('404', () => {
    it("another workspace's key cannot be revoked or seen", async () => {
      const a = await api.workspace();
      const b = await api.workspace();
      const key = (await a.call({ method: 'POST', url: '/api/v1/keys', payload: { label: 'a' } })).json();
      const res = await b.call({ method: 'DELETE', url: `/api/v1/keys/${key.id}` });
      assertProblem(res, 404);
      assert.equal(res.json().type, 'urn:sandtrap:problem:not-found');
      const bKeys = (await b.call({ url: '/api/v1/keys' })).json().items;
      assert.ok(!bKeys.some((k: { id: string }) => k.id === key.id));
      const whoami = await api.app.inject({ url: '/api/v1/whoami', headers: { 'x-api-key': key.key } });
      assert.equal(whoami.statusCode, 200, 'still works: B did not revoke it');
    });

    it('an unknown key id', async () => {
      const ws = await api.workspace();
      assertProblem(
        await ws.call({ method: 'DELETE', url: '/api/v1/keys/00000000-0000-4000-8000-000000000000' }),
        404,
      );
    });

    it('an unknown endpoint under /api/v1', async () => {
      const ws = await api.workspace();
      const res = await ws.call({ url: '/api/v1/nothing-here' });
      assertProblem(res, 404);
      assert.match(res.json().detail, /No endpoint GET \/api\/v1\/nothing-here/);
    });
  });
});
