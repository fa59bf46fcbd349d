// Wait benchmarks (design section 9): wake-up latency from a committed arrival to the wait's response,
// in one process (embedded store) and across two processes (PostgreSQL, with --pg), 10,000 open waits, and
// while a burst of 2,000 new waits comes in, the server's longest event-loop turn and how long /healthz went
// unanswered, on the API port and on PROBE_PORT. `--only=burst` runs the burst rows alone.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Agent, fetch as undiciFetch } from 'undici';
import { freshDatabase } from './lib/pg.ts';
import { freePort, settled, SETTLE_MS, startSandtrap, type BenchServer } from './lib/sandtrap.ts';
import { loopMonitorEnv } from './lib/loopMonitor.ts';
import { latencyRows, report, type Row } from './lib/report.ts';

const usePg = process.argv.includes('--pg');
const burstOnly = process.argv.includes('--only=burst');

async function api(server: BenchServer, path: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(`${server.apiUrl}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
  });
  return res.status === 204 ? undefined : res.json();
}

/** Arrival committed (the capture reply is back) to the wait's response, `rounds` times. */
async function wakeLatency(waitOn: BenchServer, sendTo: BenchServer, rounds: number): Promise<number[]> {
  const sandbox = await api(waitOn, '/sandboxes', { method: 'POST', body: JSON.stringify({ name: 'wake' }) });
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const marker = `/wake-${i}`;
    const waiting = fetch(
      `${waitOn.apiUrl}/api/v1/sandboxes/${sandbox.id}/requests/wait?pathContains=${marker}&timeoutSeconds=10`,
      { headers: { authorization: `Bearer ${waitOn.key}` } },
    ).then(async (res) => {
      await res.arrayBuffer();
      return { status: res.status, at: performance.now() };
    });
    await new Promise((r) => setTimeout(r, 20)); // let the waiter register
    const sent = await fetch(`http://127.0.0.1:${sendTo.ports.capture}/${sandbox.id}${marker}`, {
      method: 'POST',
      body: '{}',
    });
    await sent.arrayBuffer();
    const committedAt = performance.now();
    const woke = await waiting;
    if (woke.status !== 200) throw new Error(`wait answered ${woke.status}`);
    samples.push(Math.max(0, woke.at - committedAt));
  }
  return samples.sort((a, b) => a - b);
}

/** A failed fetch as a status-like label: its cause's code (ECONNRESET, UND_ERR_SOCKET…). */
function failureOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string } }).cause;
  return cause?.code ?? (err instanceof Error ? err.message : String(err));
}

/** "200 ×9,990, ECONNRESET ×10". */
function tally(statuses: Array<number | string>): string {
  const counts = new Map<number | string, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts].map(([s, n]) => `${s} ×${n.toLocaleString('en')}`).join(', ');
}

async function openWaits(
  server: BenchServer,
  count: number,
): Promise<{ rss: number; baseline: number; openedMs: number; releaseMs: number }> {
  const sandbox = await api(server, '/sandboxes', {
    method: 'POST',
    body: JSON.stringify({ name: 'open-waits' }),
  });
  // At most 50 concurrent waits per key: spread them over enough keys.
  const keys: string[] = [];
  for (let i = 0; i < Math.ceil(count / 50); i++) {
    keys.push(
      (await api(server, '/keys', { method: 'POST', body: JSON.stringify({ label: `bench-${i}` }) })).key,
    );
  }
  const baseline = server.rssBytes();
  const agent = new Agent({ connections: count + 10, keepAliveTimeout: 60_000, pipelining: 0 });
  const url = `${server.apiUrl}/api/v1/sandboxes/${sandbox.id}/requests/wait?pathContains=/release&timeoutSeconds=120`;
  const waits: Array<Promise<number | string>> = [];
  const opening = performance.now();
  for (let i = 0; i < count; i++) {
    waits.push(
      undiciFetch(url, {
        headers: { authorization: `Bearer ${keys[Math.floor(i / 50)]}` },
        dispatcher: agent,
      }).then(
        async (res) => {
          await res.arrayBuffer();
          return res.status;
        },
        // Held as a status so the run ends with a count of what failed, never an unhandled rejection that
        // kills the bench before the others report (a loaded machine reset some of 10,000 connections).
        (err: unknown) => failureOf(err),
      ),
    );
    if (i % 250 === 249) await new Promise((r) => setTimeout(r, 50));
  }
  // RSS is read once the server has registered them all: opening a wait (auth, sandbox, a first look at the
  // store) runs behind the sends, so a fixed pause would read it with only some open.
  await settled(server.child.pid);
  const openedMs = performance.now() - opening - SETTLE_MS;
  const rss = server.rssBytes();
  const start = performance.now();
  await fetch(`http://127.0.0.1:${server.ports.capture}/${sandbox.id}/release`, { method: 'POST' });
  const statuses = await Promise.all(waits);
  const releaseMs = performance.now() - start;
  const ok = statuses.filter((s) => s === 200).length;
  if (ok !== count) throw new Error(`${count - ok} of ${count} waits did not answer 200: ${tally(statuses)}`);
  await agent.close();
  return { rss, baseline, openedMs, releaseMs };
}

/**
 * Probes GET /healthz one request after another from a worker thread (the bench's own event loop is busy
 * sending the burst) until told to stop, 10 ms apart (so the server stays quiet enough for `settled`); each
 * probe's start and end, on a clock shared across threads. /healthz closes its connection after each answer,
 * so every probe connects anew, as a liveness probe does.
 */
function healthProbes(apiUrl: string) {
  const worker = new Worker(
    `
    const { parentPort, workerData } = require('node:worker_threads');
    const http = require('node:http');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const clock = () => performance.timeOrigin + performance.now();
    const probes = [];
    let stopping = false;
    parentPort.on('message', () => { stopping = true; });
    const probe = () => new Promise((resolve) => {
      const start = clock();
      const req = http.get(workerData.url, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ start, end: clock(), status: res.statusCode }));
      });
      req.on('error', () => resolve({ start, end: clock(), status: 0 }));
    });
    (async () => {
      while (!stopping) {
        probes.push(await probe());
        await new Promise((r) => setTimeout(r, 10));
      }
      agent.destroy();
      parentPort.postMessage(probes);
    })();
    `,
    { eval: true, workerData: { url: `${apiUrl}/healthz` } },
  );
  const result = new Promise<Array<{ start: number; end: number; status: number }>>((resolve) =>
    worker.once('message', resolve),
  );
  return {
    async stop() {
      worker.postMessage('stop');
      const probes = await result;
      await worker.terminate();
      return probes;
    },
  };
}

const now = () => performance.timeOrigin + performance.now();

/** Where each server's loop monitor (bench/lib/loopMonitor.ts) writes. */
const loopDir = mkdtempSync(join(tmpdir(), 'sandtrap-bench-loop-'));
process.once('exit', () => rmSync(loopDir, { recursive: true, force: true }));
let servers = 0;
function monitored(env: Record<string, string> = {}) {
  const file = join(loopDir, `server-${++servers}.json`);
  return { env: { ...env, ...loopMonitorEnv(file) }, file };
}
const loopFiles = new Map<BenchServer, string>();
/** Each server's PROBE_PORT: the same /healthz on a listener of its own (src/cli/probeListener.ts). */
const probePorts = new Map<BenchServer, number>();

/** The server's longest event-loop turn since the previous call (the first call starts the count). */
async function longestTurn(server: BenchServer): Promise<number> {
  const file = loopFiles.get(server) as string;
  rmSync(file, { force: true });
  server.child.kill('SIGUSR2');
  for (let i = 0; !existsSync(file); i++) {
    if (i > 500) throw new Error('the server did not report its event-loop delay');
    await new Promise((r) => setTimeout(r, 10));
  }
  await new Promise((r) => setTimeout(r, 10));
  return (JSON.parse(readFileSync(file, 'utf8')) as { maxMs: number }).maxMs;
}

async function startMonitored(env?: Record<string, string>, key?: string): Promise<BenchServer> {
  const { env: withMonitor, file } = monitored(env);
  const probePort = await freePort();
  const server = await startSandtrap({ ...withMonitor, PROBE_PORT: String(probePort) }, key);
  loopFiles.set(server, file);
  probePorts.set(server, probePort);
  return server;
}

/**
 * Opens `count` waits at once (no pause between sends) while /healthz is probed from another thread: the
 * longest probe that overlapped the burst is how long the server answered nobody. Then one arrival releases
 * them, and every wait must answer 200. `plain`: the same burst of plain GETs, for comparison.
 */
async function burst(
  server: BenchServer,
  count: number,
  kind: 'waits' | 'plain',
): Promise<{ longestMs: number; probePortMs: number; turnMs: number; admittedMs: number; refused: number }> {
  const sandbox = await api(server, '/sandboxes', {
    method: 'POST',
    body: JSON.stringify({ name: 'burst' }),
  });
  const keys: string[] = [];
  for (let i = 0; i < Math.ceil(count / 50); i++) {
    keys.push(
      (await api(server, '/keys', { method: 'POST', body: JSON.stringify({ label: `burst-${i}` }) })).key,
    );
  }
  const marker = `/release-${kind}`;
  const url =
    kind === 'waits'
      ? `${server.apiUrl}/api/v1/sandboxes/${sandbox.id}/requests/wait?pathContains=${marker}&timeoutSeconds=120`
      : `${server.apiUrl}/api/v1/sandboxes/${sandbox.id}/requests?limit=1`;
  const agent = new Agent({ connections: count + 10, keepAliveTimeout: 60_000, pipelining: 0 });
  const probes = healthProbes(server.apiUrl);
  const ownProbes = healthProbes(`http://127.0.0.1:${probePorts.get(server) as number}`);
  await new Promise((r) => setTimeout(r, 200));
  await longestTurn(server);
  const from = now();
  const answers: Array<Promise<number | string>> = [];
  for (let i = 0; i < count; i++) {
    answers.push(
      undiciFetch(url, {
        headers: { authorization: `Bearer ${keys[Math.floor(i / 50)]}` },
        dispatcher: agent,
      }).then(
        async (res) => {
          await res.arrayBuffer();
          return res.status;
        },
        (err: unknown) => failureOf(err),
      ),
    );
  }
  if (kind === 'waits') await settled(server.child.pid, 500);
  else await Promise.all(answers);
  const admitted = now();
  const turnMs = await longestTurn(server);
  const [seen, ownSeen] = await Promise.all([probes.stop(), ownProbes.stop()]);
  if (kind === 'waits') {
    await fetch(`http://127.0.0.1:${server.ports.capture}/${sandbox.id}${marker}`, { method: 'POST' });
  }
  const statuses = await Promise.all(answers);
  const refused = statuses.filter((s) => s !== 200).length;
  await agent.close();
  const overlapping = (all: typeof seen) => all.filter((p) => p.end >= from && p.start <= admitted);
  const during = overlapping(seen);
  const ownDuring = overlapping(ownSeen);
  if ([...during, ...ownDuring].some((p) => p.status !== 200))
    throw new Error('a /healthz probe failed during the burst');
  const longestMs = Math.max(0, ...during.map((p) => p.end - p.start));
  const probePortMs = Math.max(0, ...ownDuring.map((p) => p.end - p.start));
  return {
    longestMs,
    probePortMs,
    turnMs,
    admittedMs: admitted - from - (kind === 'waits' ? 500 : 0),
    refused,
  };
}

const rows: Row[] = [];

function burstRow(store: string, kind: 'waits' | 'plain', b: Awaited<ReturnType<typeof burst>>): void {
  rows.push({
    workload: `burst of 2,000 new ${kind === 'waits' ? 'waits' : 'plain GETs'}, longest event-loop turn / longest /healthz answer (${store})`,
    // The API port's /healthz waits behind the burst's connections (one is taken per turn, in arrival
    // order); PROBE_PORT's does not.
    target: 'turn < 100 ms',
    measured:
      `turn ${b.turnMs.toFixed(0)} ms; /healthz ${b.longestMs.toFixed(0)} ms (API port), ${b.probePortMs.toFixed(0)} ms (PROBE_PORT); all ${kind === 'waits' ? 'admitted' : 'answered'} in ${b.admittedMs.toFixed(0)} ms` +
      (b.refused === 0 ? '' : `; ${b.refused} of 2,000 not answered 200`),
    met: b.turnMs < 100 && b.refused === 0,
    turnMs: Math.round(b.turnMs),
    healthzMs: Math.round(b.longestMs),
    probePortHealthzMs: Math.round(b.probePortMs),
  });
}

/** The p50 row (against its target) and the p99 row of one wake-up measurement, sorted samples in ms. */
function wakeRows(where: string, sorted: number[], targetMs: number): void {
  rows.push(...latencyRows(`wait wake-up, ${where}`, sorted, targetMs));
}

function openWaitsRow(store: string, open: Awaited<ReturnType<typeof openWaits>>): void {
  const mb = open.rss / 1024 / 1024;
  rows.push({
    workload: `10,000 open waits, server RSS (${store})`,
    target: '< 600 MB',
    measured: `${mb.toFixed(0)} MB (idle ${(open.baseline / 1024 / 1024).toFixed(0)} MB); all open in ${open.openedMs.toFixed(0)} ms, released in ${open.releaseMs.toFixed(0)} ms`,
    met: mb < 600,
  });
}

const single = await startMonitored();
try {
  if (!burstOnly) {
    const s = await wakeLatency(single, single, 200);
    wakeRows('one process (embedded)', s, 5);
    openWaitsRow('embedded', await openWaits(single, 10_000));
  }
  burstRow('embedded', 'waits', await burst(single, 2_000, 'waits'));
  burstRow('embedded', 'plain', await burst(single, 2_000, 'plain'));
} finally {
  await single.stop();
}

if (usePg) {
  const fresh = await freshDatabase();
  const a = await startMonitored({ DATABASE_URL: fresh.url });
  const b = await startMonitored({ DATABASE_URL: fresh.url }, a.key);
  try {
    if (!burstOnly) {
      const s = await wakeLatency(a, b, 200);
      wakeRows('two processes (PostgreSQL)', s, 50);
      openWaitsRow('PostgreSQL', await openWaits(a, 10_000));
    }
    burstRow('PostgreSQL', 'waits', await burst(a, 2_000, 'waits'));
    burstRow('PostgreSQL', 'plain', await burst(a, 2_000, 'plain'));
  } finally {
    await Promise.all([a.stop(), b.stop()]);
    await fresh.drop();
  }
}

report('waits', rows);
