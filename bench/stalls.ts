// Stalls and memory of a loaded embedded server (issue 34): how long /healthz goes unanswered while the store's
// own maintenance (VACUUM/ANALYZE, src/core/store/maintenance.ts) runs, at 200,000 and 1,000,000 stored
// messages and requests (seeded with SQL, as bench/list.ts does), and how resident memory moves over a soak
// from an empty store. Both under 300 captures/s and 50 mails/s; a worker thread probes /healthz one request
// after another (test/helpers/healthProber.ts), and the server's log says when each maintenance run was.
//
// `node bench/stalls.ts [--only=stalls|soak] [--sizes=200000,1000000] [--load-seconds=150] [--soak-minutes=10]
//   [--seed-cache=<dir>]`: --seed-cache keeps each seeded store there and copies it for later runs (seeding
// 1,000,000 of each takes minutes).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { sql } from 'kysely';
import nodemailer from 'nodemailer';
import { Agent, fetch as undiciFetch } from 'undici';
import { openStore } from '../src/core/store/openStore.ts';
import { healthProber, type Probe } from '../test/helpers/healthProber.ts';
import { freePort, generateKey, startSandtrap, type BenchServer } from './lib/sandtrap.ts';
import { report, type Row } from './lib/report.ts';
import { seedMessages, seedRequests } from './lib/seed.ts';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const only = arg('only');
const sizes = (arg('sizes') ?? '200000,1000000').split(',').map(Number);
const loadSeconds = Number(arg('load-seconds') ?? 150);
const soakMinutes = Number(arg('soak-minutes') ?? 10);
const seedCache = arg('seed-cache');

const CAPTURES_PER_SECOND = 300;
const MAILS_PER_SECOND = 50;
/** The load is sent in slices this often; a server that stalls gets what it missed afterwards, up to a cap. */
const SLICE_MS = 20;
const MAX_IN_FLIGHT = { captures: 400, mails: 60 };
/** design.md's budget for one turn of the event loop. */
const GAP_TARGET_MS = 100;

const rows: Row[] = [];
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
const thousands = (n: number) => n.toLocaleString('en');

/** The process's resident memory, and the part of it that is the WebAssembly heap (PGlite's postgres). */
function memoryOf(pid: number | undefined): { rss: number; wasm: number } {
  try {
    // The heap is the read-write mapping right below V8's reservation for it (8 GB, no access).
    let rss = 0;
    let wasm = 0;
    let previous: { end: number; rss: number } | undefined;
    let current: { start: number; end: number; rss: number; reserved: boolean } | undefined;
    for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
      const map = /^([0-9a-f]+)-([0-9a-f]+) (\S+)/.exec(line);
      if (map !== null) {
        if (current !== undefined) previous = current;
        const start = parseInt(map[1] as string, 16);
        const end = parseInt(map[2] as string, 16);
        current = { start, end, rss: 0, reserved: map[3] === '---p' && end - start >= 2 ** 32 };
        if (current.reserved && previous !== undefined && previous.end === start) wasm = previous.rss;
        continue;
      }
      const resident = /^Rss:\s+(\d+) kB/.exec(line);
      if (resident !== null && current !== undefined) {
        current.rss = Number(resident[1]) * 1024;
        rss += current.rss;
      }
    }
    return { rss, wasm };
  } catch {
    return { rss: 0, wasm: 0 };
  }
}

interface MaintenanceRun {
  end: number;
  ms: number;
  steps?: number;
  longestStepMs?: number;
  longestStepCpuMs?: number;
  longestStep?: string;
}

/**
 * The maintenance runs the server logged (start = end - ms), read from its log as they come; warnings and
 * errors are passed on.
 */
function maintenanceLog(server: BenchServer): MaintenanceRun[] {
  const runs: MaintenanceRun[] = [];
  const lines = createInterface({ input: server.child.stderr! });
  lines.on('line', (line) => {
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (typeof entry.level === 'number' && entry.level >= 40) console.error(line);
      if (entry.maintenance === undefined || typeof entry.ms !== 'number') return;
      runs.push({
        end: entry.time as number,
        ms: entry.ms,
        ...(typeof entry.steps === 'number' ? { steps: entry.steps } : {}),
        ...(typeof entry.longestStepMs === 'number' ? { longestStepMs: entry.longestStepMs } : {}),
        ...(typeof entry.longestStepCpuMs === 'number' ? { longestStepCpuMs: entry.longestStepCpuMs } : {}),
        ...(typeof entry.longestStep === 'string' ? { longestStep: entry.longestStep } : {}),
      });
    } catch {
      console.error(line); // not a log line
    }
  });
  return runs;
}

interface LoadResult {
  captures: number;
  mails: number;
  failed: number;
  /** Slices' worth of load not sent because the server had too much in flight. */
  held: number;
}

/** 300 captures and 50 mails a second for `seconds`; `each` is called every second with the elapsed seconds. */
async function drive(
  server: BenchServer,
  sandboxId: string,
  inboundPort: number,
  seconds: number,
  each: (elapsedSeconds: number) => void = () => {},
): Promise<LoadResult> {
  const agent = new Agent({ connections: 16, keepAliveTimeout: 30_000 });
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: inboundPort,
    ignoreTLS: true,
    pool: true,
    maxConnections: 4,
    maxMessages: Infinity,
    socketTimeout: 60_000,
  } as never);
  const body = JSON.stringify({ event: 'bench', pad: 'x'.repeat(1000) });
  const captureUrl = `http://127.0.0.1:${server.ports.capture}/${sandboxId}/hook`;
  const to = `soak@${sandboxId}.capture.localhost`;
  const mail = (i: number) =>
    `From: bench@sender.localhost\r\nTo: ${to}\r\nSubject: Order #${i} is confirmed\r\n` +
    `Message-ID: <${i}.${Date.now()}@bench.localhost>\r\nContent-Type: text/plain\r\n\r\n` +
    `Your sign-in code is ${String((i * 7919) % 1_000_000).padStart(6, '0')}.\r\n${'lorem ipsum '.repeat(300)}\r\n`;
  const result: LoadResult = { captures: 0, mails: 0, failed: 0, held: 0 };
  const inFlight = { captures: 0, mails: 0 };
  const start = performance.now();
  let sentCaptures = 0;
  let sentMails = 0;
  let lastSecond = 0;
  const pending = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = (performance.now() - start) / 1000;
      if (elapsed >= seconds) {
        clearInterval(timer);
        resolve();
        return;
      }
      if (Math.floor(elapsed) > lastSecond) each((lastSecond = Math.floor(elapsed)));
      for (; sentCaptures < elapsed * CAPTURES_PER_SECOND; sentCaptures++) {
        if (inFlight.captures >= MAX_IN_FLIGHT.captures) {
          result.held++;
          break;
        }
        inFlight.captures++;
        track(
          undiciFetch(captureUrl, {
            method: 'POST',
            body,
            headers: { 'content-type': 'application/json' },
            dispatcher: agent,
          })
            .then(async (res) => {
              await res.arrayBuffer();
              if (res.status === 200) result.captures++;
              else result.failed++;
            })
            .catch(() => void result.failed++)
            .finally(() => void inFlight.captures--),
        );
      }
      for (; sentMails < elapsed * MAILS_PER_SECOND; sentMails++) {
        if (inFlight.mails >= MAX_IN_FLIGHT.mails) {
          result.held++;
          break;
        }
        inFlight.mails++;
        const i = sentMails;
        track(
          transport
            .sendMail({ envelope: { from: 'bench@sender.localhost', to: [to] }, raw: mail(i) })
            .then(() => void result.mails++)
            .catch(() => void result.failed++)
            .finally(() => void inFlight.mails--),
        );
      }
    }, SLICE_MS);
  });
  await Promise.allSettled([...pending]);
  transport.close();
  await agent.close();
  return result;
}

interface Gaps {
  /** The longest /healthz round trip that overlapped a maintenance run. */
  during: number;
  /** The longest over the whole load. */
  overall: number;
  runs: number;
  longestStep: MaintenanceRun | undefined;
  unanswered: number;
}

function gaps(probes: Probe[], runs: MaintenanceRun[], from: number, to: number): Gaps {
  const answered = probes.filter((p) => p.start >= from && p.start <= to && p.status !== 0);
  const within = runs.filter((r) => r.end >= from && r.end - r.ms <= to);
  const overlaps = (p: Probe) => within.some((r) => p.start < r.end && p.end > r.end - r.ms);
  const longest = (ps: Probe[]) => ps.reduce((m, p) => Math.max(m, p.end - p.start), 0);
  return {
    during: longest(answered.filter(overlaps)),
    overall: longest(answered),
    runs: within.length,
    longestStep: within.reduce<MaintenanceRun | undefined>(
      (m, r) => ((r.longestStepMs ?? r.ms) > (m?.longestStepMs ?? m?.ms ?? -1) ? r : m),
      undefined,
    ),
    unanswered: probes.filter((p) => p.start >= from && p.start <= to && p.status === 0).length,
  };
}

const stepText = (run: MaintenanceRun | undefined) =>
  run === undefined
    ? 'no maintenance logged'
    : run.longestStepMs === undefined
      ? `the server's longest run ${run.ms} ms (one turn)`
      : `the server's longest step ${run.longestStepMs} ms, ${run.longestStepCpuMs} ms of CPU (${run.longestStep})`;

async function api(server: BenchServer, path: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(`${server.apiUrl}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
  });
  if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/** A DATA_DIR with `count` messages and `count` requests in one sandbox, settled (vacuumed and analyzed). */
async function seededStore(count: number): Promise<{ dataDir: string; key: string; sandboxId: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandtrap-bench-stalls-'));
  const cached = seedCache === undefined ? undefined : join(seedCache, `seed-${count}`);
  if (cached !== undefined && existsSync(join(cached, 'seed.json'))) {
    execFileSync('cp', ['-a', `${cached}/.`, dataDir]);
    return { dataDir, ...JSON.parse(readFileSync(join(cached, 'seed.json'), 'utf8')) };
  }
  const key = generateKey();
  const server = await startSandtrap({}, key, dataDir);
  const sandbox = await api(server, '/sandboxes', {
    method: 'POST',
    body: JSON.stringify({ name: 'stalls' }),
  });
  await server.stop();
  const t0 = performance.now();
  const store = await openStore({ kind: 'pglite', dataDir });
  try {
    await seedMessages(store.db, sandbox.id, count);
    await seedRequests(store.db, sandbox.id, count);
    // A store that has been running for a while: its tables vacuumed and analyzed, the WAL checkpointed.
    await sql`vacuum (analyze) messages`.execute(store.db);
    await sql`vacuum (analyze) requests`.execute(store.db);
    await sql`checkpoint`.execute(store.db);
  } finally {
    await store.close();
  }
  console.log(
    `seeded ${thousands(count)} messages and requests in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
  const seeded = { key, sandboxId: sandbox.id as string };
  if (cached !== undefined) {
    mkdirSync(cached, { recursive: true });
    execFileSync('cp', ['-a', `${dataDir}/.`, cached]);
    writeFileSync(join(cached, 'seed.json'), JSON.stringify(seeded));
  }
  return { dataDir, ...seeded };
}

/** A server under load with /healthz probed throughout; returns the probes, the logged runs and the load. */
async function underLoad(
  seeded: { dataDir: string; key: string; sandboxId: string } | undefined,
  seconds: number,
  each?: (server: BenchServer, elapsedSeconds: number) => void,
) {
  const inboundPort = await freePort();
  const server = await startSandtrap(
    { SMTP_INBOUND_PORT: String(inboundPort), LOG_LEVEL: 'info' },
    seeded?.key,
    seeded?.dataDir,
    true,
  );
  try {
    const runs = maintenanceLog(server);
    const sandboxId: string =
      seeded?.sandboxId ??
      (await api(server, '/sandboxes', { method: 'POST', body: JSON.stringify({ name: 'soak' }) })).id;
    const prober = healthProber(`${server.apiUrl}/healthz`);
    await prober.started;
    const from = performance.timeOrigin + performance.now();
    const load = await drive(server, sandboxId, inboundPort, seconds, (s) => each?.(server, s));
    const to = performance.timeOrigin + performance.now();
    const probes = await prober.stop(to);
    return { probes, runs, load, from, to, memory: memoryOf(server.child.pid), loadAverage: loadavg()[0] };
  } finally {
    await server.stop();
  }
}

/** What the server took, and how busy the machine was (the other processes' load stretches every gap). */
const loadText = (load: LoadResult, seconds: number, loadAverage: number | undefined) =>
  `${(load.captures / seconds).toFixed(0)} captures/s, ${(load.mails / seconds).toFixed(0)} mails/s` +
  (load.failed + load.held > 0 ? `, ${load.failed} failed, ${load.held} slices held back` : '') +
  `; machine load average ${loadAverage?.toFixed(1)}`;

if (only === undefined || only === 'stalls') {
  for (const count of sizes) {
    const workload = `longest /healthz gap during maintenance, embedded, ${thousands(count)} messages + ${thousands(count)} requests stored, ${CAPTURES_PER_SECOND} captures/s + ${MAILS_PER_SECOND} mails/s for ${loadSeconds} s`;
    let dataDir: string | undefined;
    try {
      const seeded = await seededStore(count);
      dataDir = seeded.dataDir;
      const { probes, runs, load, from, to, memory, loadAverage } = await underLoad(seeded, loadSeconds);
      const g = gaps(probes, runs, from, to);
      rows.push({
        workload,
        target: `< ${GAP_TARGET_MS} ms`,
        measured:
          `${g.during.toFixed(0)} ms over ${g.runs} runs; ${stepText(g.longestStep)}; longest gap outside ` +
          `them ${g.overall.toFixed(0)} ms; ${g.unanswered} probes unanswered; ${loadText(load, loadSeconds, loadAverage)}; ` +
          `RSS ${mb(memory.rss)} (WebAssembly heap ${mb(memory.wasm)})`,
        met: g.runs > 0 && g.during < GAP_TARGET_MS && g.unanswered === 0,
        gapDuringMs: g.during,
        gapOverallMs: g.overall,
        maintenanceRuns: g.runs,
        longestStepMs: g.longestStep?.longestStepMs ?? g.longestStep?.ms,
      });
    } catch (err) {
      rows.push({
        workload,
        target: `< ${GAP_TARGET_MS} ms`,
        measured: `FAILED: ${String(err)}`,
        met: false,
      });
    } finally {
      if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

if (only === undefined || only === 'soak') {
  const workload = `resident memory over a ${soakMinutes}-minute soak from an empty embedded store, ${CAPTURES_PER_SECOND} captures/s + ${MAILS_PER_SECOND} mails/s: minute 1 -> minute ${soakMinutes}`;
  try {
    const samples: Array<{ second: number; rss: number; wasm: number }> = [];
    const { probes, runs, load, from, to, memory, loadAverage } = await underLoad(
      undefined,
      soakMinutes * 60,
      (server, second) => {
        if (second % 5 === 0 || second === 60) samples.push({ second, ...memoryOf(server.child.pid) });
      },
    );
    samples.push({ second: soakMinutes * 60, ...memory });
    const at = (second: number) =>
      samples.reduce((best, s) => (Math.abs(s.second - second) < Math.abs(best.second - second) ? s : best));
    const first = at(60);
    const last = at(soakMinutes * 60);
    const half = at((soakMinutes * 60) / 2);
    const peak = samples.reduce((m, s) => Math.max(m, s.rss), 0);
    const g = gaps(probes, runs, from, to);
    // Settled: the second half of the soak adds at most a tenth of what the process held at its middle.
    const settledGrowth = (last.rss - half.rss) / half.rss;
    rows.push({
      workload,
      target: 'second half adds <= 10%',
      measured:
        `RSS ${mb(first.rss)} -> ${mb(half.rss)} (minute ${soakMinutes / 2}) -> ${mb(last.rss)}, peak ${mb(peak)}; ` +
        `WebAssembly heap ${mb(first.wasm)} -> ${mb(half.wasm)} -> ${mb(last.wasm)}; ` +
        `${loadText(load, soakMinutes * 60, loadAverage)}; longest /healthz gap ${g.overall.toFixed(0)} ms ` +
        `(${g.during.toFixed(0)} ms during ${g.runs} maintenance runs; ${stepText(g.longestStep)})`,
      met: settledGrowth <= 0.1,
      rssMinute1: first.rss,
      rssEnd: last.rss,
      wasmMinute1: first.wasm,
      wasmEnd: last.wasm,
      samples,
    });
  } catch (err) {
    rows.push({
      workload,
      target: 'second half adds <= 10%',
      measured: `FAILED: ${String(err)}`,
      met: false,
    });
  }
}

report('stalls', rows);
