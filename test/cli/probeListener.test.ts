// PROBE_PORT (issue 34, "no multi-second stalls"): /healthz, /livez and /readyz on a listener of their own,
// answering as the API port does. Node takes one new connection per listener per turn of the event loop, in
// arrival order, so a burst of connections to the API port queues a probe there behind all of them; on its own
// listener the probe is answered while the burst is still being served.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Agent, fetch as undiciFetch } from 'undici';
import { generateApiKey } from '../../src/core/apiKeyFormat.ts';
import { loadConfig } from '../../src/core/config.ts';
import { cleanupProcesses, freePort, startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

describe('PROBE_PORT configuration', () => {
  it('is off unless set; a port of its own when set', () => {
    assert.equal(loadConfig({}).probePort, undefined);
    assert.equal(loadConfig({ PROBE_PORT: '8027' }).probePort, 8027);
    assert.throws(() => loadConfig({ PROBE_PORT: '70000' }), /PROBE_PORT/);
  });
});

describeEachStore('probes on PROBE_PORT', (getStore) => {
  let server: TestServer;
  let probeUrl: string;
  before(async () => {
    server = await startTestServer(getStore(), { PROBE_PORT: '0' });
    assert.ok(typeof server.ports.probe === 'number' && server.ports.probe > 0);
    probeUrl = `http://127.0.0.1:${server.ports.probe}`;
  });
  after(() => server.close());

  it('answers /healthz, /livez and /readyz as the API port does, with no key, closing each connection', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const own = await fetch(`${probeUrl}${path}`);
      const api = await fetch(`${server.apiUrl}${path}`);
      assert.equal(own.status, 200, path);
      assert.equal(own.headers.get('connection'), 'close', path);
      assert.match(own.headers.get('content-type') ?? '', /^application\/json/, path);
      assert.deepEqual(await own.json(), await api.json(), path);
    }
  });

  it('/readyz counts the probe listener among the listeners', async () => {
    const body = (await (await fetch(`${probeUrl}/readyz`)).json()) as { checks: Record<string, string> };
    assert.deepEqual(body.checks, { start: 'ok', store: 'ok', smtp: 'ok', capture: 'ok', probe: 'ok' });
  });

  it('serves nothing else: another path is 404, another method 405, and HEAD answers', async () => {
    const other = await fetch(`${probeUrl}/api/v1/whoami`);
    assert.equal(other.status, 404);
    assert.match(await other.text(), /Only GET \/healthz, \/livez, \/readyz here/);
    const post = await fetch(`${probeUrl}/healthz`, { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    assert.equal((await fetch(`${probeUrl}/livez`, { method: 'HEAD' })).status, 200);
  });

  it('without PROBE_PORT there is no such listener', async () => {
    const plain = await startTestServer(getStore());
    try {
      assert.equal(plain.ports.probe, null);
    } finally {
      await plain.close();
    }
  });
});

describe('a probe on PROBE_PORT during a burst of API connections (sandtrap serve, embedded)', () => {
  const BURST = 1_500;
  const key = generateApiKey();
  let server: ServerProcess;
  let probePort: number;
  before(async () => {
    probePort = await freePort();
    server = await startServerProcess({
      env: { BOOTSTRAP_API_KEY: key, PROBE_PORT: String(probePort), RATE_LIMITS: 'off' },
    });
    await server.waitHealthy(180_000);
  });
  after(async () => {
    await server?.stop().catch(() => undefined);
    await cleanupProcesses();
  });

  it('is answered while the burst is still being served', async () => {
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = await fetch(`${server.apiUrl}/api/v1/sandboxes`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'burst' }),
    });
    assert.equal(created.status, 201);
    const sandbox = (await created.json()) as { id: string };
    const agent = new Agent({ connections: BURST + 10, pipelining: 0 });
    let answered = 0;
    try {
      const burst = Array.from({ length: BURST }, () =>
        undiciFetch(`${server.apiUrl}/api/v1/sandboxes/${sandbox.id}/requests?limit=1`, {
          headers: auth,
          dispatcher: agent,
        }).then(async (res) => {
          await res.arrayBuffer();
          answered++;
          return res.status;
        }),
      );
      // Sent at once, behind the burst's connections: on the API port this probe was answered after all
      // 1,500 requests (the listener takes their connections first); here after a handful.
      const probe = await fetch(`http://127.0.0.1:${probePort}/healthz`, {
        signal: AbortSignal.timeout(120_000),
      });
      const answeredBeforeProbe = answered;
      assert.equal(probe.status, 200);
      assert.deepEqual(await probe.json(), { status: 'ok' });
      assert.ok(
        answeredBeforeProbe < BURST,
        `the probe was answered only after all ${BURST} requests of the burst`,
      );
      const statuses = await Promise.all(burst);
      assert.deepEqual(
        statuses.filter((s) => s !== 200),
        [],
        'every request of the burst is answered 200',
      );
    } finally {
      await agent.close();
    }
  });
});
