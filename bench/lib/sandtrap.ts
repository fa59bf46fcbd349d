// Starts sandtrap as a real child process for a benchmark (rate limits off), and reads its RSS.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface BenchServer {
  child: ChildProcess;
  apiUrl: string;
  ports: { api: number; smtp: number; capture: number };
  key: string;
  rssBytes(): number;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export function generateKey(): string {
  return execFileSync(process.execPath, ['bin/sandtrap.js', 'keys', 'generate'], {
    cwd: root,
    encoding: 'utf8',
  }).trim();
}

/**
 * Spawns `serve` as `npm start` runs it (same V8 flags: a 4 MB young generation), rate limits off. `logs`: its
 * stderr (the JSON log, with LOG_LEVEL) is a pipe the caller reads, instead of this process's stderr.
 */
export function spawnSandtrap(
  dataDir: string,
  ports: { api: number; smtp: number; capture: number },
  key: string,
  env: Record<string, string> = {},
  logs = false,
): ChildProcess {
  // BENCH_CPU_PROF=<dir>: write a V8 CPU profile of each sandtrap process there (open in Chrome DevTools).
  const prof = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  return spawn(process.execPath, [...prof, '--max-semi-space-size=4', 'bin/sandtrap.js', 'serve'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: dataDir,
      API_PORT: String(ports.api),
      SMTP_PORT: String(ports.smtp),
      SMTP_INBOUND_PORT: '0',
      CAPTURE_PORT: String(ports.capture),
      RATE_LIMITS: 'off',
      LOG_LEVEL: 'warn',
      BOOTSTRAP_API_KEY: key,
      ...env,
    },
    stdio: ['ignore', 'ignore', logs ? 'pipe' : 'inherit'],
  });
}

/**
 * `keepDataDir`: serve from this DATA_DIR and leave it in place on stop (a benchmark seeds it offline). `logs`:
 * the server's log is `child.stderr` (spawnSandtrap).
 */
export async function startSandtrap(
  env: Record<string, string> = {},
  key = generateKey(),
  keepDataDir?: string,
  logs = false,
): Promise<BenchServer> {
  const dataDir = keepDataDir ?? mkdtempSync(join(tmpdir(), 'sandtrap-bench-'));
  const ports = { api: await freePort(), smtp: await freePort(), capture: await freePort() };
  const child = spawnSandtrap(dataDir, ports, key, env, logs);
  // A benchmark that dies must not leave its server running.
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  const apiUrl = `http://127.0.0.1:${ports.api}`;
  // Generous: on a shared 2-core machine under load, compiling PGlite's WebAssembly alone took over 30 s.
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`sandtrap exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${apiUrl}/healthz`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('sandtrap did not become healthy in 120 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    apiUrl,
    ports,
    key,
    rssBytes() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      if (keepDataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** CPU seconds (user + system) a process has used so far; 0 when it cannot be read. */
export function cpuSecondsOf(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}
/** How long `settled` wants a process quiet by default; subtract it from a time measured through `settled`. */
export const SETTLE_MS = 750;
/** Linux reports process times in clock ticks of 1/100 s on every architecture Node runs on. */
const CLOCK_TICKS = 100;

/**
 * Resolves once the process has used under 10% of a core (one clock tick is 4% of a step) for `quietMs` in a row: the work sent to it is done.
 * Throws after `maxMs`.
 */
export async function settled(pid: number | undefined, quietMs = SETTLE_MS, maxMs = 120_000): Promise<void> {
  const step = 250;
  const deadline = Date.now() + maxMs;
  let quiet = 0;
  let last = cpuSecondsOf(pid);
  while (quiet < quietMs) {
    if (Date.now() > deadline) throw new Error(`process ${pid} still busy after ${maxMs} ms`);
    await new Promise((r) => setTimeout(r, step));
    const now = cpuSecondsOf(pid);
    quiet = (now - last) * 1000 < step * 0.1 ? quiet + step : 0;
    last = now;
  }
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}
