// Mock scenarios with state per key (issue 40), through the real capture listener: concurrent
// `POST /orders/1/pay` and `/orders/2/pay` move two independent states created -> paid -> shipped, each
// exactly once however many requests race (a compare-and-set in the store), keys from a header and a JSON
// body field work alike, and the states are read and reset through REST. On PostgreSQL, two processes
// sharing one database race for the same states and still move each one once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { needsPostgres, useTwoServers } from '../helpers/twoServers.ts';

const T = { timeout: 60_000 };

const ORDER_RULES = [
  {
    name: 'create',
    method: 'POST',
    pattern: '/orders/{id}',
    statusCode: 201,
    body: '{"id":"{{path.id}}","status":"created"}',
    scenario: 'order',
    stateKey: 'path.id',
    requiredState: 'Started',
    newState: 'created',
  },
  {
    name: 'pay',
    method: 'POST',
    pattern: '/orders/{id}/pay',
    statusCode: 200,
    body: 'paid',
    scenario: 'order',
    stateKey: 'path.id',
    requiredState: 'created',
    newState: 'paid',
  },
  {
    name: 'ship',
    method: 'POST',
    pattern: '/orders/{id}/ship',
    statusCode: 200,
    body: 'shipped',
    scenario: 'order',
    stateKey: 'path.id',
    requiredState: 'paid',
    newState: 'shipped',
  },
  { name: 'status', method: 'GET', pattern: '/orders/{id}', statusCode: 200, body: 'seen' },
  { name: 'refused', method: 'POST', pattern: '/orders/**', statusCode: 409, body: 'not now' },
];

async function post(url: string, init: RequestInit = {}): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { method: 'POST', ...init });
  return { status: res.status, body: await res.text() };
}

/** `n` concurrent POSTs to each URL; the statuses per URL. */
async function race(urls: string[], n: number): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>(urls.map((u) => [u, []]));
  await Promise.all(
    urls.flatMap((u) => Array.from({ length: n }, async () => out.get(u)?.push((await post(u)).status))),
  );
  return out;
}

const count = (statuses: number[] | undefined, status: number) =>
  (statuses ?? []).filter((s) => s === status).length;

describeEachStore('Mock scenarios with state per key', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let sandboxId: string;
  let base: string;

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace();
    sandboxId = (await ws.createSandbox({ name: 'scenarios' })).id as string;
    base = `http://127.0.0.1:${server.ports.capture}/${sandboxId}`;
  });
  after(() => server.close());

  const setRules = async (mocks: unknown[]) => {
    const res = await ws.api(`/sandboxes/${sandboxId}/mocks`, {
      method: 'PUT',
      body: JSON.stringify({ mocks }),
    });
    assert.equal(res.status, 200, await res.clone().text());
  };
  const states = async (scenario?: string) => {
    const q = scenario === undefined ? '' : `?scenario=${scenario}`;
    const res = await ws.api(`/sandboxes/${sandboxId}/scenarios${q}`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as { states: Array<{ scenario: string; key: string; state: string }> };
    return body.states.map((s) => `${s.scenario}/${s.key}=${s.state}`).sort();
  };

  it(
    'moves two orders through created -> paid -> shipped independently, once each under races',
    T,
    async () => {
      await setRules(ORDER_RULES);
      const created = await race([`${base}/orders/1`, `${base}/orders/2`], 6);
      for (const statuses of created.values()) {
        assert.equal(count(statuses, 201), 1, `one create wins: ${statuses.join(',')}`);
        assert.equal(count(statuses, 409), 5);
      }
      assert.deepEqual(await states(), ['order/1=created', 'order/2=created']);
      // Shipping before paying is refused: the rule requires paid.
      assert.equal((await post(`${base}/orders/1/ship`)).status, 409);

      const paid = await race([`${base}/orders/1/pay`, `${base}/orders/2/pay`], 8);
      for (const statuses of paid.values()) {
        assert.equal(count(statuses, 200), 1, `one payment wins: ${statuses.join(',')}`);
        assert.equal(count(statuses, 409), 7);
      }
      assert.deepEqual(await states('order'), ['order/1=paid', 'order/2=paid']);

      // Order 2 ships; order 1 stays paid: the keys do not share a state.
      assert.deepEqual(await post(`${base}/orders/2/ship`), { status: 200, body: 'shipped' });
      assert.equal((await post(`${base}/orders/2/ship`)).status, 409);
      assert.deepEqual(await states(), ['order/1=paid', 'order/2=shipped']);
      assert.deepEqual(await post(`${base}/orders/1/ship`), { status: 200, body: 'shipped' });
      assert.deepEqual(await states(), ['order/1=shipped', 'order/2=shipped']);
    },
  );

  it('reads and resets the states through REST', T, async () => {
    await setRules(ORDER_RULES);
    await post(`${base}/orders/7`);
    assert.ok((await states()).includes('order/7=created'));
    const res = await ws.api(`/sandboxes/${sandboxId}/scenarios?scenario=order`, { method: 'DELETE' });
    assert.equal(res.status, 200);
    assert.ok(((await res.json()) as { reset: number }).reset >= 1);
    assert.deepEqual(await states(), []);
    // Back in Started, order 7 can be created again.
    assert.equal((await post(`${base}/orders/7`)).status, 201);
    const other = await server.workspace();
    const foreign = await other.api(`/sandboxes/${sandboxId}/scenarios`);
    assert.equal(foreign.status, 404);
  });

  it('takes the key from a header or a JSON body field; a request without it falls through', T, async () => {
    await setRules([
      {
        name: 'by header',
        method: 'POST',
        pattern: '/h',
        statusCode: 200,
        body: 'first',
        scenario: 'h',
        stateKey: 'header.x-order',
        newState: 'seen',
        requiredState: 'Started',
      },
      {
        name: 'by body',
        method: 'POST',
        pattern: '/b',
        statusCode: 200,
        body: 'first',
        scenario: 'b',
        stateKey: 'body.order.id',
        newState: 'seen',
        requiredState: 'Started',
      },
      { name: 'else', statusCode: 299, body: 'again', isFallback: true },
    ]);
    const h = (order: string) => post(`${base}/h`, { headers: { 'x-order': order } });
    const b = (id: string) =>
      post(`${base}/b`, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ order: { id } }),
      });
    assert.deepEqual([(await h('A')).status, (await h('A')).status, (await h('B')).status], [200, 299, 200]);
    assert.deepEqual([(await b('x')).status, (await b('x')).status, (await b('y')).status], [200, 299, 200]);
    assert.equal((await post(`${base}/h`)).status, 299, 'no x-order header: the rule does not match');
    const keyed = (await states()).filter((s) => !s.startsWith('order/'));
    assert.deepEqual(keyed, ['b/x=seen', 'b/y=seen', 'h/A=seen', 'h/B=seen']);
  });
});

describe('Mock scenarios across two processes on one PostgreSQL database', { skip: needsPostgres }, () => {
  const servers = useTwoServers('mock_scenarios', { RATE_LIMITS: 'off', LOG_LEVEL: 'warn' });

  it('each order is paid once, whichever process the racing requests reach', T, async () => {
    const a = servers.a();
    const b = servers.b();
    const headers = { authorization: `Bearer ${servers.key()}`, 'content-type': 'application/json' };
    const created = await fetch(`${a.apiUrl}/api/v1/sandboxes`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'two' }),
    });
    const sandbox = (await created.json()) as { id: string };
    const put = await fetch(`${b.apiUrl}/api/v1/sandboxes/${sandbox.id}/mocks`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ mocks: ORDER_RULES }),
    });
    assert.equal(put.status, 200);
    const urls = (path: string) =>
      [a, b].map((s) => `http://127.0.0.1:${s.ports.capture}/${sandbox.id}${path}`);
    for (const order of ['1', '2']) {
      const created = await race(urls(`/orders/${order}`), 5);
      assert.equal(
        [...created.values()].reduce((n, s) => n + count(s, 201), 0),
        1,
      );
      const paid = await race(urls(`/orders/${order}/pay`), 5);
      assert.equal(
        [...paid.values()].reduce((n, s) => n + count(s, 200), 0),
        1,
      );
    }
  });
});
