// Probes (issue 38): /livez answers while the process runs; /readyz checks the store, the start and every
// listener, and names what fails with a 503: here a private PostgreSQL cluster is stopped under a running
// `sandtrap serve` and started again, and /readyz follows it without a restart. Both are rate-limited per
// address as /healthz is, and need no key.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers/poll.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/privatePostgres.ts';
import { cleanupProcesses, startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import pino from 'pino';
import { buildApi } from '../../src/rest/app.ts';

type Ready = { status: string; failing?: string[]; checks: Record<string, string> };

async function readyz(apiUrl: string): Promise<{ status: number; body: Ready }> {
  const res = await fetch(`${apiUrl}/readyz`, { signal: AbortSignal.timeout(30_000) });
  return { status: res.status, body: (await res.json()) as Ready };
}

describeEachStore('probes', (getStore) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(getStore(), { RATE_LIMIT_HEALTHZ_PER_IP: '1000000' });
  });
  after(() => server.close());

  it('/livez answers 200 with no key', async () => {
    const res = await fetch(`${server.apiUrl}/livez`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ok' });
  });

  it('/readyz is 200 and lists the store, the start and each listener as ok', async () => {
    const { status, body } = await readyz(server.apiUrl);
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.status, 'ready');
    assert.equal(body.failing, undefined);
    assert.deepEqual(body.checks, { start: 'ok', store: 'ok', smtp: 'ok', capture: 'ok' });
  });

  it('/readyz is 503 naming a listener that does not accept connections', async () => {
    // The API of the same core, told that its capture listener is down: the route names the part.
    const app = await buildApi({
      core: server.core,
      logger: pino({ level: 'silent' }),
      listeners: () => [
        { part: 'smtp', ok: true },
        { part: 'capture', ok: false },
      ],
    });
    try {
      const res = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(res.statusCode, 503);
      const body = res.json() as Ready;
      assert.deepEqual(body.failing, ['capture: not accepting connections']);
      assert.equal(body.checks.store, 'ok');
    } finally {
      await app.close();
    }
  });
});

describeEachStore('probes: rate limit', (getStore) => {
  it('/livez and /readyz share /healthz’s per-address budget (429 beyond it)', async () => {
    const server = await startTestServer(getStore(), { RATE_LIMIT_HEALTHZ_PER_IP: '3' });
    try {
      const statuses: number[] = [];
      for (const path of ['/livez', '/readyz', '/healthz', '/livez']) {
        statuses.push((await fetch(`${server.apiUrl}${path}`)).status);
      }
      assert.deepEqual(statuses, [200, 200, 200, 429]);
    } finally {
      await server.close();
    }
  });
});

describe('/readyz while PostgreSQL is stopped', () => {
  let pgc: PrivatePostgres;
  let server: ServerProcess;
  before(async () => {
    pgc = await startPrivatePostgres();
    server = await startServerProcess({ env: { DATABASE_URL: pgc.url, RATE_LIMITS: 'off' } });
    await server.waitHealthy(60_000);
  });
  after(async () => {
    await server?.stop().catch(() => undefined);
    await pgc?.destroy().catch(() => undefined);
    await cleanupProcesses();
  });

  it('turns 503 naming the store, /livez stays 200, and it is 200 again once the database is back', async () => {
    assert.equal((await readyz(server.apiUrl)).status, 200);
    await pgc.stop('immediate');
    const down = await eventually(
      '/readyz to answer 503',
      async () => {
        const r = await readyz(server.apiUrl);
        return r.status === 503 ? r : undefined;
      },
      60_000,
      200,
    );
    assert.equal(down.body.status, 'not ready');
    assert.match(down.body.checks.store ?? '', /store/);
    assert.ok(
      down.body.failing?.some((f) => f.startsWith('store: ')),
      JSON.stringify(down.body),
    );
    assert.equal(down.body.checks.capture, 'ok');
    assert.equal((await fetch(`${server.apiUrl}/livez`)).status, 200);
    await pgc.start();
    await eventually(
      '/readyz to answer 200 again',
      async () => ((await readyz(server.apiUrl)).status === 200 ? true : undefined),
      60_000,
      200,
    );
  });
});
