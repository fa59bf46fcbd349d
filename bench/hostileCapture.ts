// How long /healthz takes while a `serve` process matches and stores hostile captures: 99 regex rules just
// under the size limit on 2,048-character paths (the per-request budget), regex rules and a 60 KB path, a body
// nested 10,000 levels, and a 1 GiB gzip bomb. /healthz is probed one request after another from this process
// (the server is another one, so its stalls cannot stop the prober's clock). The tests assert that every probe
// answered and what each capture got; how fast is judged here, where a busy machine shows as a slow row.
import http from 'node:http';
import { createGzip } from 'node:zlib';
import { report, type Row } from './lib/report.ts';
import { percentile, startSandtrap, type BenchServer } from './lib/sandtrap.ts';

/** The longest /healthz answer the tests asserted before the bound moved here. */
const TARGET_MS = 100;
const ROUNDS = 40;

const HEAVY = 'regex:/(?:.*a){41}b';
const pathOfAs = (length: number) => `/${'a'.repeat(length - 1)}`;

async function api(server: BenchServer, path: string, method = 'GET', body?: unknown): Promise<any> {
  const res = await fetch(`${server.apiUrl}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

async function sandboxWith(server: BenchServer, mocks: unknown[]): Promise<string> {
  const sb = await api(server, '/sandboxes', 'POST', { name: 'hostile' });
  if (mocks.length > 0) await api(server, `/sandboxes/${sb.id}/mocks`, 'PUT', { mocks });
  return sb.id as string;
}

function capture(
  server: BenchServer,
  agent: http.Agent,
  path: string,
  method = 'GET',
  headers: Record<string, string> = {},
  body?: Buffer | string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.ports.capture, method, path, agent, headers });
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.end(body);
  });
}

/** Probes /healthz back to back until stopped; every probe's duration in ms. */
function prober(server: BenchServer) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples: number[] = [];
  let failures = 0;
  let stopping = false;
  const probe = () =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const req = http.get(`${server.apiUrl}/healthz`, { agent }, (res) => {
        res.resume();
        res.on('end', () => {
          samples.push(performance.now() - started);
          if (res.statusCode !== 200) failures++;
          resolve();
        });
      });
      req.on('error', () => {
        failures++;
        resolve();
      });
    });
  const loop = (async () => {
    while (!stopping) {
      await probe();
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  return {
    async stop() {
      stopping = true;
      await loop;
      agent.destroy();
      return { samples: samples.sort((a, b) => a - b), failures };
    },
  };
}

/** A gzip stream of `bytes` zeros (about 1 MB for 1 GiB at level 1). */
function gzipOfZeros(bytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const gz = createGzip({ level: 1, chunkSize: 64 * 1024 });
    const out: Buffer[] = [];
    gz.on('data', (c: Buffer) => out.push(c));
    gz.on('end', () => resolve(Buffer.concat(out)));
    gz.on('error', reject);
    const chunk = Buffer.alloc(1024 * 1024);
    let left = bytes;
    const write = () => {
      while (left > 0) {
        left -= chunk.length;
        if (!gz.write(chunk)) return void gz.once('drain', write);
      }
      gz.end();
    };
    write();
  });
}

const rows: Row[] = [];
const server = await startSandtrap();
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
try {
  const heavy = Array.from({ length: 99 }, (_, i) => ({
    name: `heavy-${i}`,
    pattern: HEAVY,
    statusCode: 201,
  }));
  const fallback = { name: 'fallback', isFallback: true, statusCode: 202, body: 'fell back' };
  const bomb = await gzipOfZeros(1024 * 1024 * 1024);
  const workloads: Array<[string, () => Promise<() => Promise<number>>]> = [
    [
      '99 heavy regex rules, 2,048-character paths (budget exhausted, fallback answers)',
      async () => {
        const id = await sandboxWith(server, [...heavy, fallback]);
        return () => capture(server, agent, `/${id}${pathOfAs(2048)}`);
      },
    ],
    [
      '5 heavy regex rules, 60 KB paths (not run: too long for regex)',
      async () => {
        const id = await sandboxWith(server, heavy.slice(0, 5));
        return () => capture(server, agent, `/${id}${pathOfAs(60 * 1024)}`);
      },
    ],
    [
      'JSON nested 10,000 levels, read by a template',
      async () => {
        const id = await sandboxWith(server, [{ name: 'echo', statusCode: 200, body: '{{body.a}}' }]);
        const body = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
        return () =>
          capture(server, agent, `/${id}/deep`, 'POST', { 'content-type': 'application/json' }, body);
      },
    ],
    [
      'gzip bomb, 1 GiB of zeros in about 1 MB, read by a template',
      async () => {
        const id = await sandboxWith(server, [{ name: 'keys', statusCode: 200, body: '{{body.email}}' }]);
        const headers = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
        return () => capture(server, agent, `/${id}/bomb`, 'POST', headers, bomb);
      },
    ],
  ];
  for (const [workload, prepare] of workloads) {
    const send = await prepare();
    await send(); // compiles the rules and warms the path once
    const probes = prober(server);
    for (let i = 0; i < ROUNDS; i++) {
      const status = await send();
      if (status === 503) throw new Error(`${workload}: the capture answered ${status}`);
    }
    const { samples, failures } = await probes.stop();
    const worst = samples.at(-1) ?? 0;
    rows.push({
      workload: `/healthz during ${ROUNDS} captures: ${workload}, longest`,
      target: `< ${TARGET_MS} ms`,
      measured: `${worst.toFixed(1)} ms`,
      met: worst < TARGET_MS && failures === 0,
      probes: samples.length,
      failures,
      p50: percentile(samples, 50),
      p99: percentile(samples, 99),
    });
  }
} finally {
  agent.destroy();
  await server.stop();
}
report('/healthz while hostile captures are matched and stored', rows);
