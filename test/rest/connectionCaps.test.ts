// What one client address can hold on the API listener: at most API_MAX_CONNECTIONS_PER_IP connections (the
// next is answered 429 problem+json and closed, or dropped if it sends nothing); /healthz closes its
// connection after each answer and is rate-limited per address. And what the whole API port can hold: the
// process reads its open-file limit (Node raised the soft one to the hard one) and keeps FD_RESERVE of it out of
// the API listener's reach, so SMTP and capture answer while the API port is full; 20,000 keep-alive /healthz
// connections from one address leave them answering too. "Another address" is 127.0.0.2.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { after, afterEach, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { generateApiKey } from '../../src/core/apiKeyFormat.ts';
import { loadConfig } from '../../src/core/config.ts';
import {
  cleanupProcesses,
  startServerProcess,
  tempDir,
  type ServerProcess,
  type StartOptions,
} from '../helpers/process.ts';
import { RawHttp } from '../helpers/rawHttp.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { Wire } from '../helpers/smtpWire.ts';
import { describeEachStore, storeBackends } from '../helpers/stores.ts';

const OTHER = '127.0.0.2';

describeEachStore('API connection caps', (getStore) => {
  describe('per address (API_MAX_CONNECTIONS_PER_IP=3)', () => {
    let server: TestServer;
    let port: number;
    before(async () => {
      server = await startTestServer(
        { ...getStore(), close: async () => {} },
        { API_MAX_CONNECTIONS_PER_IP: '3' },
      );
      port = server.ports.api;
    });
    after(async () => {
      await server.close();
    });

    it('the 4th connection from one address is answered 429 problem+json and closed; another address is served; a closed one frees its place', async () => {
      const held: RawHttp[] = [];
      try {
        for (let i = 0; i < 3; i++) {
          const c = await RawHttp.open(port);
          assert.equal((await c.get('/api/v1/whoami')).status, 401, 'served (no key)');
          held.push(c);
        }
        const fourth = await RawHttp.open(port);
        const refused = await fourth.get('/api/v1/whoami');
        assert.equal(refused.status, 429);
        assert.match(refused.headers['content-type'] ?? '', /^application\/problem\+json/);
        assert.equal(refused.headers['retry-after'], '1');
        assert.equal(refused.headers.connection, 'close');
        const body = JSON.parse(refused.body) as Record<string, string>;
        assert.equal(body.type, 'urn:sandtrap:problem:rate-limited');
        assert.match(body.detail ?? '', /Too many connections from your address \(at most 3 at once\)/);
        assert.equal(body.requestId, refused.headers['x-request-id']);
        assert.ok(await fourth.waitClosed(), 'the refused connection is closed by the server');

        // The held connections are still served, keep-alive.
        assert.equal((await (held[0] as RawHttp).get('/api/v1/whoami')).status, 401);
        const other = await RawHttp.open(port, OTHER);
        assert.equal((await other.get('/api/v1/whoami')).status, 401, 'another address is served');
        other.close();

        // One closed: a new connection from the first address is served again.
        (held.pop() as RawHttp).close();
        let served = false;
        for (let attempt = 0; attempt < 100 && !served; attempt++) {
          const c = await RawHttp.open(port);
          const res = await c.get('/api/v1/whoami').catch(() => undefined);
          if (res?.status === 401) {
            served = true;
            held.push(c);
          } else {
            c.close();
            await sleep(20);
          }
        }
        assert.ok(served, 'the freed place is taken again');
      } finally {
        for (const c of held) c.close();
      }
    });

    it('an over-cap connection that sends nothing is dropped, while served ones that send nothing yet stay', async () => {
      // (An address of its own: the previous test's connections may still be closing on the server's side.)
      const held: RawHttp[] = [];
      try {
        for (let i = 0; i < 3; i++) held.push(await RawHttp.open(port, '127.0.0.6'));
        const silent = await RawHttp.open(port, '127.0.0.6');
        assert.ok(await silent.waitClosed(30_000), 'the over-cap connection was dropped');
        assert.ok(
          held.every((c) => !c.closed),
          'the served connections were not (their request timeout is longer)',
        );
        assert.equal((await (held[0] as RawHttp).get('/api/v1/whoami')).status, 401);
      } finally {
        for (const c of held) c.close();
      }
    });

    it('the default cap is 200, and RATE_LIMITS=off lifts it', () => {
      assert.equal(loadConfig({}).connectionsPerIp.api, 200);
      assert.equal(loadConfig({}).connectionsPerIp.smtp, 20);
      assert.equal(loadConfig({ RATE_LIMITS: 'off' }).connectionsPerIp.api, Infinity);
    });
  });

  describe('/healthz (RATE_LIMIT_HEALTHZ_PER_IP=3)', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(
        { ...getStore(), close: async () => {} },
        { RATE_LIMIT_HEALTHZ_PER_IP: '3' },
      );
    });
    after(async () => {
      await server.close();
    });

    it('closes a keep-alive connection after each answer; other routes keep theirs', async () => {
      const probe = await RawHttp.open(server.ports.api, '127.0.0.3');
      const res = await probe.get('/healthz', { connection: 'keep-alive' });
      assert.equal(res.status, 200);
      assert.equal(res.headers.connection, 'close');
      assert.ok(await probe.waitClosed(), 'the server closed the probe connection');

      const api = await RawHttp.open(server.ports.api, '127.0.0.3');
      assert.equal((await api.get('/api/v1/whoami', { connection: 'keep-alive' })).status, 401);
      assert.equal((await api.get('/api/v1/whoami', { connection: 'keep-alive' })).status, 401);
      assert.equal(api.closed, false);
      api.close();
    });

    it('past the limit an address gets 429 problem+json with Retry-After; another address still gets 200', async () => {
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 4; i++) {
        const c = await RawHttp.open(server.ports.api, '127.0.0.4');
        last = await c.get('/healthz');
        statuses.push(last.status);
        c.close();
      }
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      assert.ok(last !== undefined);
      assert.match(last.headers['content-type'] ?? '', /^application\/problem\+json/);
      assert.ok(Number(last.headers['retry-after']) >= 1);
      assert.equal(last.headers.connection, 'close');
      assert.equal((JSON.parse(last.body) as { type: string }).type, 'urn:sandtrap:problem:rate-limited');

      const other = await RawHttp.open(server.ports.api, '127.0.0.5');
      assert.equal((await other.get('/healthz')).status, 200);
      other.close();
      assert.equal(loadConfig({}).limits.healthzPerIp, 120, 'the default is 120 a minute');
    });
  });

  describe('/healthz with RATE_LIMITS=off', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(
        { ...getStore(), close: async () => {} },
        { RATE_LIMITS: 'off', RATE_LIMIT_HEALTHZ_PER_IP: '3' },
      );
    });
    after(async () => {
      await server.close();
    });

    it('is never limited', async () => {
      for (let i = 0; i < 10; i++) {
        const res = await fetch(`${server.apiUrl}/healthz`);
        assert.equal(res.status, 200);
        await res.arrayBuffer();
      }
    });
  });
});

// ---- whole-process tests: a real `sandtrap serve`, its own open-file limit, clients from several addresses ----

/** This process's hard RLIMIT_NOFILE (the server inherits it). */
function ownHardLimit(): number {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  return Number(line?.split(/\s+/)[4]);
}

const hasPrlimit =
  process.platform === 'linux' && spawnSync('prlimit', ['--version'], { stdio: 'ignore' }).status === 0;
const noPrlimit = hasPrlimit
  ? false
  : 'needs Linux and prlimit (util-linux) to start the server with a lower limit';

/** The process-level stores: the embedded one in DATA_DIR, and a fresh PostgreSQL database per suite. */
function processStores(): Array<{
  name: string;
  env(): Promise<Record<string, string>>;
  drop(): Promise<void>;
}> {
  return storeBackends().map((backend) => {
    if (backend.name === 'pglite') return { name: 'pglite', env: async () => ({}), drop: async () => {} };
    const base = process.env.TEST_DATABASE_URL as string;
    const database = `caps_${randomBytes(6).toString('hex')}`;
    const admin = () => new pg.Client({ connectionString: base, connectionTimeoutMillis: 5_000 });
    return {
      name: 'postgres',
      async env() {
        const client = admin();
        await client.connect();
        await client.query(`CREATE DATABASE "${database}"`);
        await client.end();
        const url = new URL(base);
        url.pathname = `/${database}`;
        return { DATABASE_URL: url.toString() };
      },
      async drop() {
        const client = admin();
        await client.connect();
        await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
        await client.end();
      },
    };
  });
}

/** `serve` started and healthy; a first start on a loaded machine may take longer than one waitHealthy. */
const running: ServerProcess[] = [];
/** After each test: its server stops even when the test failed (the next one needs the DATA_DIR lock). */
async function stopRunning(): Promise<void> {
  for (const server of running.splice(0)) await server.stop().catch(() => undefined);
}

async function startServe(options: StartOptions): Promise<ServerProcess> {
  const server = await startServerProcess(options);
  running.push(server);
  for (let attempt = 1; ; attempt++) {
    try {
      await server.waitHealthy(20_000);
      return server;
    } catch (err) {
      if (attempt === 4 || server.exitCode !== null) throw err;
    }
  }
}

interface Sandbox {
  id: string;
  smtpUsername: string;
  smtpPassword: string;
}

async function createSandbox(server: ServerProcess, key: string): Promise<Sandbox> {
  const res = await fetch(`${server.apiUrl}/api/v1/sandboxes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'caps' }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as Sandbox;
}

/** A capture POST from `localAddress`: the status (200 only once the request is stored). */
function captureFrom(port: number, sandboxId: string, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: `/${sandboxId}/hook`, method: 'POST', localAddress, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end('{"from":"another address"}');
  });
}

/** From another address: the SMTP greeting on both ports, a message on each, and a capture; all answered. */
async function otherAddressIsServed(server: ServerProcess, sandbox: Sandbox, tag: string): Promise<void> {
  for (const port of [server.ports.smtp, server.ports.smtpInbound]) {
    const wire = await Wire.open(port, OTHER);
    assert.equal((await wire.command('EHLO other.test')).code, 250);
    wire.close();
  }
  const common = {
    host: '127.0.0.1',
    secure: false,
    tls: { rejectUnauthorized: false },
    localAddress: OTHER,
  };
  const submitted = await nodemailer
    .createTransport({
      ...common,
      port: server.ports.smtp,
      requireTLS: true,
      auth: { user: sandbox.smtpUsername, pass: sandbox.smtpPassword },
    })
    .sendMail({ from: 'app@example.com', to: 'user@example.com', subject: `submitted ${tag}`, text: 'x' });
  assert.match(submitted.response, /^250 /);
  const inbound = await nodemailer.createTransport({ ...common, port: server.ports.smtpInbound }).sendMail({
    from: 'x@stranger.test',
    to: `inbox@${sandbox.id}.capture.localhost`,
    subject: `inbound ${tag}`,
    text: 'x',
  });
  assert.match(inbound.response, /^250 /);
  assert.equal(await captureFrom(server.ports.capture, sandbox.id, OTHER), 200);
}

describe("the process's open-file limit (embedded store)", () => {
  // One DATA_DIR for the suite: its TLS pair is made once.
  let dataDir: string;
  before(() => {
    dataDir = tempDir();
  });
  afterEach(stopRunning);
  after(async () => {
    await cleanupProcesses();
  });

  it('serve reads the limit Node raised: here soft == hard (nothing to raise), and the API takes all but FD_RESERVE', async () => {
    const server = await startServe({ dataDir, env: { LOG_LEVEL: 'info' } });
    const ready = server.logs().find((l) => l.msg === 'sandtrap is ready');
    const hard = ownHardLimit();
    assert.equal(ready?.fdLimit, hard);
    assert.equal(ready?.apiMaxConnections, Math.min(20_000, hard - 2_000));
    assert.ok(
      !server.logs().some((l) => /soft limit is below/.test(String(l.msg))),
      'no warning: nothing was left to raise',
    );
    await server.stop();
  });

  it(
    'started with a soft limit of 1024 under a hard one of 4096, serve runs with 4096 (Node raised it)',
    { skip: noPrlimit },
    async () => {
      const server = await startServe({
        dataDir,
        env: { LOG_LEVEL: 'info' },
        wrapper: ['prlimit', '--nofile=1024:4096'],
      });
      const ready = server.logs().find((l) => l.msg === 'sandtrap is ready');
      assert.equal(ready?.fdLimit, 4096);
      assert.equal(ready?.apiMaxConnections, 4096 - 2_000);
      await server.stop();
    },
  );
});

for (const store of processStores()) {
  describe(`the API port full, and flooded from one address [${store.name}]`, () => {
    const key = generateApiKey();
    let env: Record<string, string>;
    let dataDir: string;
    before(async () => {
      env = { ...(await store.env()), BOOTSTRAP_API_KEY: key };
      dataDir = tempDir();
    });
    afterEach(stopRunning);
    after(async () => {
      await cleanupProcesses();
      await store.drop();
    });

    it(
      'the API port full (3,000 connections from 15 addresses into a 2,500-descriptor process): SMTP and capture answer another address',
      { skip: noPrlimit },
      async () => {
        const server = await startServe({ dataDir, env, wrapper: ['prlimit', '--nofile=2500:2500'] });
        const sandbox = await createSandbox(server, key);
        const flood: RawHttp[] = [];
        try {
          // 200 from each address (the per-address cap), far more than the 500 the API may hold here.
          const outcomes = await Promise.all(
            Array.from({ length: 15 }, async (_, a) => {
              const from = `127.0.1.${a + 1}`;
              let served = 0;
              for (let wave = 0; wave < 4; wave++) {
                const opened = await Promise.all(
                  Array.from({ length: 50 }, () =>
                    RawHttp.open(server.ports.api, from).catch(() => undefined),
                  ),
                );
                await Promise.all(
                  opened.map(async (c) => {
                    if (c === undefined) return;
                    flood.push(c);
                    const res = await c.get('/api/v1/whoami').catch(() => undefined);
                    if (res?.status === 401) served++;
                  }),
                );
              }
              return served;
            }),
          );
          // While the API port is full, another address is still served on SMTP and capture.
          await otherAddressIsServed(server, sandbox, 'api full');
          const served = outcomes.reduce((a, b) => a + b, 0);
          const held = flood.filter((c) => !c.closed).length;
          assert.ok(
            served <= 500 && held <= 500,
            `the API held at most 500 (served ${served}, open ${held})`,
          );
          assert.ok(served >= 400, `and it did fill up (served ${served})`);
        } finally {
          for (const c of flood) c.close();
        }
        await server.stop();
      },
    );

    it('20,000 keep-alive /healthz connections from one address: each is closed after its answer, and SMTP and capture answer another address meanwhile', async () => {
      const server = await startServe({ dataDir, env });
      const sandbox = await createSandbox(server, key);
      // Answered 200 or 429 (its rate, or the per-address cap); or dropped unanswered (over the cap, and no
      // request read within the grace: on a loaded machine the server reads late). Never left open.
      const counts = {
        ok: 0,
        rateLimited: 0,
        overCap: 0,
        dropped: 0,
        connectFailed: 0,
        other: 0,
        notClosed: 0,
      };
      const TOTAL = 20_000;
      const WAVE = 2_000;
      let flooding = true;
      const floodDone = (async () => {
        try {
          for (let sent = 0; sent < TOTAL; sent += WAVE) {
            await Promise.all(
              Array.from({ length: WAVE }, async () => {
                const c = await RawHttp.open(server.ports.api).catch(() => undefined);
                if (c === undefined) return void counts.connectFailed++;
                try {
                  const res = await c
                    .get('/healthz', { connection: 'keep-alive' }, 60_000)
                    .catch(() => undefined);
                  if (res?.status === 200) counts.ok++;
                  else if (res?.status === 429 && /connections/.test(res.body)) counts.overCap++;
                  else if (res?.status === 429) counts.rateLimited++;
                  else if (res === undefined) counts.dropped++;
                  else counts.other++;
                  if (!(await c.waitClosed(60_000))) counts.notClosed++;
                } finally {
                  c.close();
                }
              }),
            );
          }
        } finally {
          flooding = false;
        }
      })();
      // Meanwhile, from another address, mail on both ports and a capture, again and again.
      let rounds = 0;
      while (flooding) {
        await otherAddressIsServed(server, sandbox, `round ${++rounds}`);
      }
      await floodDone;
      await otherAddressIsServed(server, sandbox, 'after');

      const seen = JSON.stringify(counts);
      assert.equal(counts.other, 0, `every answer was 200 or 429 (${seen})`);
      assert.equal(counts.connectFailed, 0, `every connection was accepted (${seen})`);
      assert.equal(counts.notClosed, 0, `and closed by the server (${seen})`);
      assert.equal(counts.ok + counts.rateLimited + counts.overCap + counts.dropped, TOTAL);
      assert.ok(counts.ok >= 1 && counts.rateLimited > 0 && counts.overCap > 0, seen);
      // (The figures, for the record: they depend on how fast this machine accepts.)
      console.log(`20,000 /healthz connections from one address: ${seen}`);
      assert.ok(rounds >= 1);
      const res = await fetch(`${server.apiUrl}/api/v1/sandboxes/${sandbox.id}/messages`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const messages = ((await res.json()) as { items: Array<{ subject: string }> }).items;
      assert.ok(messages.some((m) => m.subject === 'inbound after'));
      assert.ok(messages.some((m) => m.subject === 'submitted after'));
      await server.stop();
    });
  });
}
