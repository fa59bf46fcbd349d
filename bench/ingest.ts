// Ingest benchmarks (design section 9): SMTP ingest over STARTTLS + AUTH and over the plain inbound port,
// mail through a provider's HTTP API (SendGrid v3) beside it, HTTP capture with autocannon (on the embedded store, and on PostgreSQL with --pg), and cold start to
// /healthz; peers (maildev, Mockoon CLI, WireMock standalone) on the same run with the same load generators. Everything listens and is driven on 127.0.0.1 only.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import nodemailer from 'nodemailer';
import {
  cpuSecondsOf,
  freePort,
  generateKey,
  percentile,
  spawnSandtrap,
  startSandtrap,
  type BenchServer,
} from './lib/sandtrap.ts';
import { freshDatabase } from './lib/pg.ts';
import { report, type Row } from './lib/report.ts';
import { defaultTemplateFile } from '../src/core/store/pgliteStart.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const SMTP_MESSAGES = 3_000;
/**
 * Warm-ups run before each measured phase and are reported on their own. A fresh process runs slower for its
 * first few thousand messages: V8 compiles PGlite's WASM (postgres) with its optimizing tier only as functions
 * get hot, on the same two cores. The measured phases are the steady state a running server stays in.
 */
const SMTP_WARMUP = 2_000;
const HTTP_WARMUP_SECONDS = 3;
const SMTP_CONNECTIONS = 8;
const HTTP_SECONDS = 10;
const HTTP_CONNECTIONS = 16;
const PEER_START_MS = 120_000;

/**
 * `--only smtp,provider,http,cold` runs just those workloads (each with its peer); `--no-peers` leaves the peers out.
 * `--no-embedded` skips the embedded store. All are for working on one path; a full run reports every row.
 */
const onlyArg = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const only = onlyArg === undefined ? undefined : new Set(onlyArg.split(','));
const wants = (part: 'smtp' | 'http' | 'provider' | 'cold') => only === undefined || only.has(part);
const peers = !process.argv.includes('--no-peers');
/** `--no-embedded` (with `--pg`): measure sandtrap on PostgreSQL only. */
const embeddedStore = !process.argv.includes('--no-embedded');
/** `--smtp-conns=4,8`: the plain inbound SMTP rows (and maildev's) at these connection counts (default 4 and 8). */
const smtpConnsArg = process.argv.find((a) => a.startsWith('--smtp-conns='))?.slice('--smtp-conns='.length);
const plainConnections = smtpConnsArg === undefined ? [4, 8] : smtpConnsArg.split(',').map((n) => Number(n));
/** `--smtp-kb=64`: the SMTP messages' size in KB (default 4). */
const SMTP_BYTES =
  1024 * Number(process.argv.find((a) => a.startsWith('--smtp-kb='))?.slice('--smtp-kb='.length) ?? 4);
const smtpSize = `${SMTP_BYTES / 1024} KB`;
/** `--plain-only`: leave out the STARTTLS + AUTH row (comparing designs on the plain path). */
const plainOnly = process.argv.includes('--plain-only');
/** `--server-env=NAME=value` (repeatable): extra environment for the sandtrap under test (A/B switches). */
const serverEnv = Object.fromEntries(
  process.argv
    .filter((a) => a.startsWith('--server-env='))
    .map((a) => {
      const kv = a.slice('--server-env='.length);
      const eq = kv.indexOf('=');
      return [kv.slice(0, eq), kv.slice(eq + 1)];
    }),
);

const rows: Row[] = [];
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const ms = (v: number) => `${v.toFixed(2)} ms`;
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

function rssOf(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** CPU seconds of every PostgreSQL server process on this machine (the bench's database is the only load). */
function postgresCpuSeconds(): number {
  let sum = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres')
        sum += cpuSecondsOf(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return sum;
}

/** What a load generator reads off the server under test: its resident memory and its CPU time so far. */
interface Probe {
  rss(): number;
  cpuSeconds(): number;
  /** The database server's CPU seconds so far, when it is a separate process (PostgreSQL). */
  dbCpuSeconds?(): number;
}
const probeOf = (pid: number | undefined, withPostgres = false): Probe => ({
  rss: () => rssOf(pid),
  cpuSeconds: () => cpuSecondsOf(pid),
  ...(withPostgres ? { dbCpuSeconds: postgresCpuSeconds } : {}),
});

/**
 * The server's CPU per item over a measured phase, in microseconds (steadier than rates on a busy machine),
 * and PostgreSQL's (NaN on the embedded store, whose database runs inside the server).
 */
function cpuMeter(probe: Probe): { perItem(items: number): number; dbPerItem(items: number): number } {
  const start = probe.cpuSeconds();
  const dbStart = probe.dbCpuSeconds?.() ?? NaN;
  return {
    perItem: (items) => ((probe.cpuSeconds() - start) * 1e6) / items,
    dbPerItem: (items) => (((probe.dbCpuSeconds?.() ?? NaN) - dbStart) * 1e6) / items,
  };
}

/** A peer started through npx runs in a child of the pid we hold: its CPU is not measured (NaN). */
const cpuText = (us: number, dbUs: number, per: string) =>
  (Number.isNaN(us) ? '' : `; CPU ${us.toFixed(0)} µs/${per}`) +
  (Number.isNaN(dbUs) ? '' : ` + PostgreSQL ${dbUs.toFixed(0)} µs`);

/** Samples `rss()` every 100 ms until stopped; returns the peak. */
function peakSampler(rss: () => number): { stop(): number } {
  let peak = rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, rss());
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, rss());
    },
  };
}

async function api(server: BenchServer, path: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(`${server.apiUrl}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
  });
  if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

/** A 4 KB (or `--smtp-kb`) RFC 5322 message (headers + body), unique per call. */
function message(from: string, to: string, i: number): string {
  const head =
    `From: ${from}\r\nTo: ${to}\r\nSubject: bench ${i}\r\n` +
    `Message-ID: <${i}.${randomBytes(6).toString('hex')}@bench.localhost>\r\n` +
    `Date: ${new Date().toUTCString()}\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n`;
  const line = 'The quick brown fox jumps over the lazy dog, again and again, for the benchmark.\r\n';
  let body = '';
  while (head.length + body.length + line.length <= SMTP_BYTES) body += line;
  return head + body + 'x'.repeat(SMTP_BYTES - head.length - body.length);
}

interface SmtpResult {
  /** Messages a second over the warm-up, from a fresh connection pool (and, for the first run, process). */
  warmupRate: number;
  rate: number;
  p50: number;
  p99: number;
  peakRss: number;
  /** The server process's CPU per message. */
  cpuUs: number;
  /** PostgreSQL's CPU per message (NaN on the embedded store and for peers). */
  dbCpuUs: number;
}

/**
 * 8 pooled connections, 8 messages in flight (one per connection, so a message's latency is its own
 * DATA-to-250 time, not queueing in the client), `SMTP_MESSAGES` sends all awaited after a warm-up.
 */
async function smtpLoad(
  transportOptions: Record<string, unknown>,
  to: string,
  probe: Probe,
  connections = SMTP_CONNECTIONS,
): Promise<SmtpResult> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    pool: true,
    maxConnections: connections,
    maxMessages: Infinity,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    ...transportOptions,
  } as any);
  const from = 'bench@sender.localhost';
  const send = (i: number) => transport.sendMail({ envelope: { from, to: [to] }, raw: message(from, to, i) });
  try {
    let next = 0;
    const worker = async (total: number, latencies: number[] | null) => {
      while (next < total) {
        const i = next++;
        const t0 = performance.now();
        await send(i);
        latencies?.push(performance.now() - t0);
      }
    };
    const warmupStart = performance.now();
    await Promise.all(Array.from({ length: connections }, () => worker(SMTP_WARMUP, null)));
    const warmupRate = SMTP_WARMUP / ((performance.now() - warmupStart) / 1000);
    next = 0;
    const latencies: number[] = [];
    const sampler = peakSampler(probe.rss);
    const cpu = cpuMeter(probe);
    const start = performance.now();
    await Promise.all(Array.from({ length: connections }, () => worker(SMTP_MESSAGES, latencies)));
    const elapsed = (performance.now() - start) / 1000;
    const peakRss = sampler.stop();
    latencies.sort((a, b) => a - b);
    return {
      warmupRate,
      rate: SMTP_MESSAGES / elapsed,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      peakRss,
      cpuUs: cpu.perItem(SMTP_MESSAGES),
      dbCpuUs: cpu.dbPerItem(SMTP_MESSAGES),
    };
  } finally {
    transport.close();
  }
}

const smtpMeasured = (r: SmtpResult) =>
  `${r.rate.toFixed(0)} msgs/s; p50 ${ms(r.p50)}, p99 ${ms(r.p99)}; peak RSS ${mb(r.peakRss)}${cpuText(r.cpuUs, r.dbCpuUs, 'msg')}; warm-up ${r.warmupRate.toFixed(0)} msgs/s`;

interface HttpResult {
  /** Requests a second over the warm-up. */
  warmupRate: number;
  rate: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  peakRss: number;
  /** The server process's CPU per request. */
  cpuUs: number;
  /** PostgreSQL's CPU per request (NaN on the embedded store and for peers). */
  dbCpuUs: number;
}

const CAPTURE_BODY = JSON.stringify({ event: 'bench', pad: 'x'.repeat(1024 - 30) }).slice(0, 1024);

async function httpLoad(
  url: string,
  probe: Probe,
  request: { body: string; headers?: Record<string, string>; connections?: number } = { body: CAPTURE_BODY },
): Promise<HttpResult> {
  const load = (duration: number) =>
    autocannon({
      url,
      method: 'POST',
      connections: request.connections ?? HTTP_CONNECTIONS,
      pipelining: 1,
      duration,
      headers: { 'content-type': 'application/json', ...request.headers },
      body: request.body,
    });
  const sampler = peakSampler(probe.rss);
  const warmup = await load(HTTP_WARMUP_SECONDS);
  const cpu = cpuMeter(probe);
  const result = await load(HTTP_SECONDS);
  return {
    warmupRate: warmup.requests.average,
    rate: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    // A failed request during the warm-up counts too.
    non2xx: warmup.non2xx + result.non2xx,
    errors: warmup.errors + warmup.timeouts + result.errors + result.timeouts,
    peakRss: sampler.stop(),
    cpuUs: cpu.perItem(result.requests.total),
    dbCpuUs: cpu.dbPerItem(result.requests.total),
  };
}

const httpMeasured = (r: HttpResult) =>
  `${r.rate.toFixed(0)} req/s; p50 ${r.p50} ms, p99 ${r.p99} ms; non-2xx ${r.non2xx}, errors ${r.errors}; peak RSS ${mb(r.peakRss)}${cpuText(r.cpuUs, r.dbCpuUs, 'req')}; warm-up ${r.warmupRate.toFixed(0)} req/s`;

/** A peer process in its own process group, so `npx` and what it starts are stopped together. */
interface Peer {
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * A clean environment for npx (none of `npm run`'s npm_* variables), keeping how this machine reaches the
 * registry: its CA bundle and proxy. Under the project's Node, npm looks for its global npmrc (where the
 * machine's `cafile` lives) beside that Node, so without NODE_EXTRA_CA_CERTS a first download of a peer failed
 * with SELF_SIGNED_CERT_IN_CHAIN.
 */
function peerEnv(): Record<string, string> {
  const kept = ['PATH', 'HOME', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR'];
  const proxies = Object.keys(process.env).filter((name) => /^(https?|no)_proxy$/i.test(name));
  return Object.fromEntries(
    [...kept, ...proxies].flatMap((name) => {
      const value = process.env[name];
      return value === undefined ? [] : [[name, value]];
    }),
  );
}

function spawnPeer(command: string, args: string[], cwd: string): Peer {
  const child = spawn(command, args, {
    cwd,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: peerEnv(),
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const onExit = () => killGroup('SIGKILL');
  process.once('exit', onExit);
  return {
    child,
    async stop() {
      process.off('exit', onExit);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        killGroup('SIGTERM');
        const t = setTimeout(() => killGroup('SIGKILL'), 5_000);
        await exited;
        clearTimeout(t);
      }
      killGroup('SIGKILL'); // leftovers in the group (npx's children)
    },
    get stderr() {
      return stderr;
    },
  } as Peer & { stderr: string };
}

/** Polls until `ready()` or the deadline; throws with the peer's stderr tail on failure. */
async function waitReady(peer: Peer, ready: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + PEER_START_MS;
  for (;;) {
    if (peer.child.exitCode !== null)
      throw new Error(`${what} exited with ${peer.child.exitCode}: ${(peer as any).stderr}`);
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline) {
      const said = String((peer as Peer & { stderr: string }).stderr)
        .trim()
        .slice(-300);
      throw new Error(
        `${what} did not start within ${PEER_START_MS / 1000} s${said ? `; it said: ${said}` : ''}`,
      );
    }
    await sleep(100);
  }
}

/** Time from spawn to the first /healthz 200, polled every 5 ms. */
async function coldStart(dataDir: string, key: string): Promise<number> {
  const ports = { api: await freePort(), smtp: await freePort(), capture: await freePort() };
  const start = performance.now();
  const child = spawnSandtrap(dataDir, ports, key);
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`sandtrap exited with ${child.exitCode}`);
      try {
        const res = await fetch(`http://127.0.0.1:${ports.api}/healthz`);
        await res.arrayBuffer();
        if (res.status === 200) return performance.now() - start;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error('sandtrap did not become healthy in 30 s');
      await sleep(5);
    }
  } finally {
    process.off('exit', kill);
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

// --- sandtrap: SMTP (STARTTLS + AUTH, and the plain inbound port) and HTTP capture ---------------

type Store = 'embedded' | 'PostgreSQL';
/** Each store's results, which the peers are compared with: plain SMTP by connection count. */
const measured: Record<Store, { plain: Map<number, SmtpResult>; http?: HttpResult }> = {
  embedded: { plain: new Map() },
  PostgreSQL: { plain: new Map() },
};
/** Issue 20's targets, by store. */
const TARGETS = {
  authRate: { embedded: 1_500, PostgreSQL: 2_000 },
  httpRate: { embedded: 8_000, PostgreSQL: 10_000 },
  /** sandtrap plain SMTP / maildev, at each connection count. */
  maildevRatio: 1.2,
  /** sandtrap HTTP capture / Mockoon CLI. */
  mockoonRatio: 5,
} as const;
const thousands = (n: number) => n.toLocaleString('en');

/** A ratio row (sandtrap's rate over the peer's, against `target`) for each store that measured the workload. */
function peerRatioRows(
  workload: (store: Store) => string,
  ours: (store: Store) => { rate: number } | undefined,
  peerRate: number,
  /** undefined: reported without a target. */
  target: number | undefined,
  unit: string,
): void {
  for (const store of ['embedded', 'PostgreSQL'] as const) {
    const mine = ours(store);
    if (mine === undefined) continue;
    const ratio = mine.rate / peerRate;
    rows.push({
      workload: workload(store),
      target: target === undefined ? '-' : `>= ${target}x`,
      measured: `${ratio.toFixed(2)}x (${mine.rate.toFixed(0)} / ${peerRate.toFixed(0)} ${unit})`,
      met: target === undefined ? null : ratio >= target,
      ratio,
    });
  }
}

async function measureSandtrap(store: Store, env: Record<string, string>) {
  const inboundPort = await freePort();
  const server = await startSandtrap({ ...env, ...serverEnv, SMTP_INBOUND_PORT: String(inboundPort) });
  try {
    const sandbox = await api(server, '/sandboxes', {
      method: 'POST',
      body: JSON.stringify({ name: 'ingest-bench' }),
    });
    const probe = probeOf(server.child.pid, store === 'PostgreSQL');
    if (wants('smtp')) await measureSmtp(store, server, sandbox, inboundPort, probe);
    if (wants('provider')) {
      const result = await providerLoad(server, sandbox, probe);
      rows.push({
        workload: `provider-API ingest (${store}), SendGrid v3 /v3/mail/send, ${smtpSize} text, ${SMTP_CONNECTIONS} conns, ${HTTP_SECONDS} s`,
        target: '-',
        measured: httpMeasured(result).replaceAll('req/s', 'msgs/s').replace('µs/req', 'µs/msg'),
        met: result.non2xx === 0 && result.errors === 0 ? null : false,
        ...result,
      });
    }
    if (wants('http')) {
      const http = await httpLoad(`http://127.0.0.1:${server.ports.capture}/${sandbox.id}/hook`, probe);
      const target = TARGETS.httpRate[store];
      rows.push({
        workload: `HTTP capture (${store}), 1 KB JSON POST, keep-alive, ${HTTP_CONNECTIONS} conns, ${HTTP_SECONDS} s`,
        target: `>= ${thousands(target)} req/s`,
        measured: httpMeasured(http),
        met: http.rate >= target && http.non2xx === 0 && http.errors === 0,
        ...http,
      });
      measured[store].http = http;
    }
  } catch (err) {
    rows.push({
      workload: `sandtrap ingest (${store})`,
      target: '-',
      measured: `FAILED: ${String(err)}`,
      met: false,
    });
  } finally {
    await server.stop();
  }
}

/**
 * Mail sent through a provider's HTTP API (issue 37): SendGrid's v3 JSON with a text body the size of the SMTP
 * rows' messages, on as many connections as the SMTP rows, so the two read side by side in one run.
 */
function providerLoad(
  server: BenchServer,
  sandbox: { smtpPassword: string },
  probe: Probe,
): Promise<HttpResult> {
  const text = 'The quick brown fox jumps over the lazy dog, again and again, for the benchmark.\r\n'.repeat(
    Math.max(1, Math.floor((SMTP_BYTES - 400) / 82)),
  );
  const body = JSON.stringify({
    personalizations: [{ to: [{ email: 'to@example.test' }] }],
    from: { email: 'bench@sender.example' },
    subject: 'bench',
    content: [{ type: 'text/plain', value: text }],
  });
  return httpLoad(`${server.apiUrl}/providers/sendgrid/v3/mail/send`, probe, {
    body,
    headers: { authorization: `Bearer ${sandbox.smtpPassword}` },
    connections: SMTP_CONNECTIONS,
  });
}

async function measureSmtp(
  store: Store,
  server: BenchServer,
  sandbox: { id: string; smtpUsername: string; smtpPassword: string },
  inboundPort: number,
  probe: Probe,
) {
  if (!plainOnly) {
    const auth = await smtpLoad(
      {
        port: server.ports.smtp,
        requireTLS: true,
        tls: { rejectUnauthorized: false },
        auth: { user: sandbox.smtpUsername, pass: sandbox.smtpPassword },
      },
      'to@example.test',
      probe,
    );
    rows.push({
      workload: `SMTP ingest (${store}), STARTTLS + AUTH, ${SMTP_CONNECTIONS} pooled conns, ${smtpSize}, ${SMTP_MESSAGES} msgs`,
      target: `>= ${thousands(TARGETS.authRate[store])} msgs/s`,
      measured: smtpMeasured(auth),
      met: auth.rate >= TARGETS.authRate[store],
      ...auth,
    });
  }

  for (const connections of plainConnections) {
    const result = await smtpLoad(
      { port: inboundPort, ignoreTLS: true },
      `x@${sandbox.id}.capture.localhost`,
      probe,
      connections,
    );
    rows.push({
      workload: `SMTP ingest (${store}), plain inbound port (no TLS/AUTH), ${connections} conns, ${smtpSize}, ${SMTP_MESSAGES} msgs`,
      target: '-',
      measured: smtpMeasured(result),
      met: null,
      ...result,
    });
    measured[store].plain.set(connections, result);
  }
}

if (embeddedStore && (wants('smtp') || wants('http') || wants('provider')))
  await measureSandtrap('embedded', {});
if (process.argv.includes('--pg') && (wants('smtp') || wants('http') || wants('provider'))) {
  const fresh = await freshDatabase();
  try {
    await measureSandtrap('PostgreSQL', { DATABASE_URL: fresh.url });
  } finally {
    await fresh.drop();
  }
}

// --- cold start ----------------------------------------------------------------------------------

if (wants('cold')) {
  // Single starts vary by a few hundred ms with the disk, so each row is the median of five.
  const RUNS = 5;
  const dirs: string[] = [];
  const newDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'sandtrap-bench-cold-'));
    dirs.push(d);
    return d;
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;
  const row = (workload: string, samples: number[]) => {
    const ms = median(samples);
    const all = samples.map((x) => (x / 1000).toFixed(2)).join(', ');
    rows.push({
      workload,
      target: '<= 1.5 s',
      measured: `${(ms / 1000).toFixed(2)} s median (${all})`,
      met: ms <= 1500,
      ms,
    });
  };
  try {
    const key = generateKey();
    const fresh: number[] = [];
    for (let i = 0; i < RUNS; i++) fresh.push(await coldStart(newDir(), key));
    row('cold start to /healthz 200, embedded store, fresh DATA_DIR', fresh);
    const existing = dirs[0] as string;
    const again: number[] = [];
    for (let i = 0; i < RUNS; i++) again.push(await coldStart(existing, key));
    row('cold start to /healthz 200, embedded store, existing DATA_DIR', again);
    // What a first start costs when nothing built the template at install time (npm ci does, in postinstall).
    rmSync(defaultTemplateFile(), { force: true });
    const first = await coldStart(newDir(), key);
    rows.push({
      workload:
        'first start of an installation without its template (it builds it; npm ci builds it beforehand)',
      target: '-',
      measured: `${(first / 1000).toFixed(2)} s`,
      met: null,
      ms: first,
    });
  } catch (err) {
    rows.push({ workload: 'cold start', target: '<= 1.5 s', measured: `FAILED: ${String(err)}`, met: false });
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

// --- peer: maildev (SMTP) --------------------------------------------------------------------------

if (peers && wants('smtp')) {
  let peer: Peer | null = null;
  try {
    const bin = join(root, 'node_modules/maildev/dist/bin/maildev.js');
    const smtpPort = await freePort();
    const webPort = await freePort();
    peer = spawnPeer(
      process.execPath,
      [
        bin,
        '--smtp',
        String(smtpPort),
        '--ip',
        '127.0.0.1',
        '--web',
        String(webPort),
        '--web-ip',
        '127.0.0.1',
      ],
      root,
    );
    const started = performance.now();
    await waitReady(peer, async () => (await fetch(`http://127.0.0.1:${webPort}/`)).status < 500, 'maildev');
    const startMs = performance.now() - started;
    const pid = peer.child.pid;
    for (const connections of plainConnections) {
      const r = await smtpLoad(
        { port: smtpPort, ignoreTLS: true },
        'to@example.test',
        probeOf(pid),
        connections,
      );
      rows.push({
        workload: `peer maildev SMTP ingest, PLAIN (no STARTTLS/AUTH: not enabled by default), ${connections} conns, ${smtpSize}`,
        target: '-',
        measured: `${smtpMeasured(r)}; up in ${(startMs / 1000).toFixed(1)} s`,
        met: null,
        ...r,
      });
      peerRatioRows(
        (store) => `ratio sandtrap plain SMTP (${store}) / maildev, ${connections} conns, ${smtpSize}`,
        (store) => measured[store].plain.get(connections),
        r.rate,
        TARGETS.maildevRatio,
        'msgs/s',
      );
    }
  } catch (err) {
    rows.push({
      workload: 'peer maildev SMTP ingest',
      target: '-',
      measured: `SKIPPED: ${String(err).slice(0, 200)}`,
      met: null,
    });
  } finally {
    await peer?.stop();
  }
}

// --- floors: the same loads against servers that store and parse nothing ---------------------------
// Built on what sandtrap's listeners are built on (smtp-server, node:http), they show what this machine
// allows at all, whatever a capture costs on top.

/** Resolves once the server at `port` sends its SMTP greeting. */
function smtpGreets(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('data', (d) => {
      socket.destroy();
      resolve(d.toString().startsWith('220'));
    });
    socket.once('error', () => resolve(false));
  });
}

async function floor(
  script: string,
  ready: (port: number) => Promise<boolean>,
  measure: (port: number, probe: Probe) => Promise<void>,
) {
  const port = await freePort();
  const peer = spawnPeer(
    process.execPath,
    [fileURLToPath(new URL(`peers/${script}`, import.meta.url)), String(port)],
    root,
  );
  try {
    await waitReady(peer, () => ready(port), script);
    const pid = peer.child.pid;
    await measure(port, probeOf(pid));
  } catch (err) {
    rows.push({
      workload: `floor ${script}`,
      target: '-',
      measured: `FAILED: ${String(err).slice(0, 200)}`,
      met: null,
    });
  } finally {
    await peer.stop();
  }
}

if (peers && wants('smtp')) {
  await floor('floor-smtp.ts', smtpGreets, async (port, probe) => {
    const r = await smtpLoad(
      { port, requireTLS: true, tls: { rejectUnauthorized: false }, auth: { user: 'bench', pass: 'bench' } },
      'to@example.test',
      probe,
    );
    rows.push({
      workload: `floor: smtp-server, STARTTLS + AUTH, drains each message (no parse, no store), ${SMTP_CONNECTIONS} conns, ${smtpSize}`,
      target: '-',
      measured: smtpMeasured(r),
      met: null,
      ...r,
    });
  });
}

if (peers && wants('http')) {
  await floor(
    'floor-http.ts',
    async (port) => (await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' })).status === 200,
    async (port, probe) => {
      const r = await httpLoad(`http://127.0.0.1:${port}/hook`, probe);
      rows.push({
        workload: `floor: node:http, reads the body, answers 200 {} (no parse, no store), ${HTTP_CONNECTIONS} conns, ${HTTP_SECONDS} s`,
        target: '-',
        measured: httpMeasured(r),
        met: null,
        ...r,
      });
    },
  );
}

// --- HTTP peers through npx: Mockoon CLI (Node 22) and WireMock standalone (the `wiremock` npm package's jar on
// the machine's Java), each serving the same catch-all POST -> 200 {} under the same load as sandtrap's capture.

interface HttpPeer {
  /** The npx binary's name, for waitReady's message. */
  bin: string;
  /** How rows name it. */
  name: string;
  /** npx's arguments for a peer on `port`. */
  args: (port: number) => string[];
  workload: string;
  ratioTarget: number | undefined;
}

async function benchHttpPeer(peerSpec: HttpPeer): Promise<void> {
  let peer: Peer | null = null;
  let cwd: string | null = null;
  try {
    const port = await freePort();
    // Run from a scratch directory so npx does not resolve against this project's node_modules.
    cwd = mkdtempSync(join(tmpdir(), `sandtrap-bench-${peerSpec.bin}-`));
    peer = spawnPeer('npx', peerSpec.args(port), cwd);
    const started = performance.now();
    const url = `http://127.0.0.1:${port}/bench/hook`;
    await waitReady(
      peer,
      async () => (await fetch(url, { method: 'POST', body: '{}' })).status === 200,
      peerSpec.bin,
    );
    const startMs = performance.now() - started;
    // npx -> (node@22 ->) the peer: the peer's RSS is that of npx's descendants.
    const npxPid = peer.child.pid as number;
    const r = await httpLoad(url, { rss: () => descendantsRss(npxPid), cpuSeconds: () => NaN });
    rows.push({
      workload: `peer ${peerSpec.workload}, ${HTTP_CONNECTIONS} conns, ${HTTP_SECONDS} s`,
      target: '-',
      measured: `${httpMeasured(r)}; up in ${(startMs / 1000).toFixed(1)} s`,
      met: null,
      ...r,
    });
    peerRatioRows(
      (store) => `ratio sandtrap HTTP capture (${store}) / ${peerSpec.name}`,
      (store) => measured[store].http,
      r.rate,
      peerSpec.ratioTarget,
      'req/s',
    );
  } catch (err) {
    rows.push({
      workload: `peer ${peerSpec.name} HTTP`,
      target: '-',
      measured: `SKIPPED: ${String(err).slice(0, 200)}`,
      met: null,
    });
  } finally {
    await peer?.stop();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  }
}

if (peers && wants('http')) {
  const envFile = fileURLToPath(new URL('peers/mockoon-env.json', import.meta.url));
  await benchHttpPeer({
    bin: 'mockoon-cli',
    name: 'Mockoon CLI',
    // The cached packages when there are any: a registry that answers slowly once made it miss its 120 s.
    args: (port) => [
      '--prefer-offline',
      '-y',
      '-p',
      'node@22',
      '-p',
      '@mockoon/cli',
      'mockoon-cli',
      'start',
      '--data',
      envFile,
      '--port',
      String(port),
      '--disable-log-to-file',
    ],
    workload: 'Mockoon CLI, catch-all POST -> 200 {} (stores nothing)',
    ratioTarget: TARGETS.mockoonRatio,
  });
  // mappings/catch-all.json: any POST -> 200 {} with Content-Type application/json, as Mockoon's.
  const rootDir = fileURLToPath(new URL('peers/wiremock', import.meta.url));
  await benchHttpPeer({
    bin: 'wiremock',
    name: 'WireMock standalone',
    args: (port) => [
      '--prefer-offline',
      '-y',
      '-p',
      'wiremock@3.13.2',
      'wiremock',
      '--port',
      String(port),
      '--bind-address',
      '127.0.0.1',
      '--root-dir',
      rootDir,
      '--disable-banner',
    ],
    // Its request journal (in memory, unbounded by default) is what it keeps: nothing survives a restart.
    workload: 'WireMock standalone 3.13.2 (Java 17), catch-all POST -> 200 {} (request journal in memory)',
    ratioTarget: undefined,
  });
}

function descendantsRss(pid: number): number {
  let sum = 0;
  try {
    for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(/\s+/))
      if (child) sum += rssOf(Number(child)) + descendantsRss(Number(child));
  } catch {
    // gone
  }
  return sum;
}

report('ingest', rows);
