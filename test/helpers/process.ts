// Runs the real `sandtrap` CLI as child processes: a long-running `serve` with fresh ports and DATA_DIR, and
// one-shot commands run to completion. Every wait is bounded, and every child is tracked so tests can kill
// whatever is left in their `after` hooks (a process-exit hook kills stragglers as a last resort).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is test/helpers/process.ts). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Node 24 (type stripping): this process when it is Node 24+, else the pinned node_modules/.bin/node. */
export const NODE_BIN =
  Number(process.versions.node.split('.')[0]) >= 24
    ? process.execPath
    : join(REPO_ROOT, 'node_modules', '.bin', 'node');

const MAIN = join(REPO_ROOT, 'bin', 'sandtrap.js');
/**
 * The least time a helper waits for a process to start, print a line, answer /healthz or exit: on a busy
 * 2-core machine a plain start once took over 20 s, and at load average 32 (eight other sessions' tests and a
 * bench beside) `sandtrap migrate` on a fresh DATA_DIR took over 60 s. These bounds only end a test whose event
 * never comes.
 */
const MIN_WAIT_MS = 180_000;
const waitMs = (asked: number) => Math.max(asked, MIN_WAIT_MS);

const liveChildren = new Set<ChildProcess>();
const tempDirs = new Set<string>();

process.once('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
});

function track(child: ChildProcess): void {
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
}

/** A fresh empty directory under the OS temp dir, removed by `cleanupProcesses()`. */
export function tempDir(prefix = 'sandtrap-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/** Kills every child still running (SIGKILL) and removes every temp dir made by `tempDir()`. */
export async function cleanupProcesses(): Promise<void> {
  const exits = [...liveChildren].map(
    (child) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(resolve, 5_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGKILL');
      }),
  );
  await Promise.all(exits);
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

function listenOnZero(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function closeNet(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A TCP port on 127.0.0.1 that was free a moment ago (listen on 0, read the port, close). */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port as number;
}

/** `count` distinct free ports: all are held open until every one is known, so they cannot repeat. */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) servers.push(await listenOnZero());
    return servers.map((s) => (s.address() as AddressInfo).port);
  } finally {
    await Promise.all(servers.map(closeNet));
  }
}

/** The inherited environment without the variables that would change which store or key a test uses. */
function baseEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.DATABASE_URL;
  delete env.BOOTSTRAP_API_KEY;
  delete env.LOG_LEVEL;
  return env;
}

/** Resolves with `check()` once it is defined (re-checked on every change); rejects on timeout or exit. */
function waiter<T>(
  description: string,
  timeoutMs: number,
  check: () => T | undefined,
  subscribe: (onChange: () => void, onExit: () => void) => () => void,
  exitMessage: () => string,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const first = check();
    if (first !== undefined) return resolve(first);
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`Timed out after ${waitMs(timeoutMs)} ms waiting for ${description}`));
    }, waitMs(timeoutMs));
    const unsubscribe = subscribe(
      () => {
        const value = check();
        if (value === undefined) return;
        clearTimeout(timer);
        unsubscribe();
        resolve(value);
      },
      () => {
        const value = check();
        clearTimeout(timer);
        unsubscribe();
        if (value !== undefined) resolve(value);
        else reject(new Error(`The process exited while waiting for ${description}: ${exitMessage()}`));
      },
    );
  });
}

export interface ServerPorts {
  api: number;
  smtp: number;
  smtpInbound: number;
  capture: number;
}

export interface ServerProcess {
  child: ChildProcess;
  dataDir: string;
  ports: ServerPorts;
  /** http://127.0.0.1:<API_PORT> */
  apiUrl: string;
  /** Complete stdout lines so far. */
  stdoutLines: string[];
  /** Complete stderr lines so far (JSON log lines when stderr is not a TTY). */
  stderrLines: string[];
  /** All of stderr so far. */
  readonly stderr: string;
  /** Exit code once the process has exited (null while running or when killed by a signal). */
  readonly exitCode: number | null;
  /** stderr lines that parse as JSON objects. */
  logs(): Record<string, unknown>[];
  /** The first line (stdout by default) matching `regex`; waits for it. Rejects if the process exits first. */
  waitForLine(regex: RegExp, timeoutMs?: number, stream?: 'stdout' | 'stderr'): Promise<string>;
  /** Polls GET /healthz until it answers 200. Rejects if the process exits first. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** Waits for the process to exit on its own; resolves with its exit code (null when killed by a signal). */
  waitExit(timeoutMs?: number): Promise<number | null>;
  /** Sends `signal` and waits for the exit; SIGKILLs and rejects when it does not exit within `timeoutMs`. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
}

export interface StartOptions {
  /** Reuse a DATA_DIR (a fresh temp dir otherwise). */
  dataDir?: string;
  /** Extra environment variables (override the generated ones). */
  env?: Record<string, string>;
  /** CLI arguments; `['serve']` by default. */
  args?: string[];
  /** A command that runs node in its place, e.g. `['prlimit', '--nofile=2500:2500']` (it must exec node). */
  wrapper?: string[];
  /** The `sandtrap` entry point to run (this checkout's bin/sandtrap.js by default), e.g. an installed package's. */
  main?: string;
  /** Working directory (the repository root by default). */
  cwd?: string;
  /** The node binary to run it with (Node 24 by default). */
  node?: string;
}

/** The environment a test server gets: a DATA_DIR, HOST 127.0.0.1 and four fresh ports. */
export async function serverEnv(
  dataDir: string,
): Promise<{ env: Record<string, string>; ports: ServerPorts }> {
  const [api, smtp, smtpInbound, capture] = (await freePorts(4)) as [number, number, number, number];
  return {
    ports: { api, smtp, smtpInbound, capture },
    env: {
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      API_PORT: String(api),
      SMTP_PORT: String(smtp),
      SMTP_INBOUND_PORT: String(smtpInbound),
      CAPTURE_PORT: String(capture),
    },
  };
}

/** Spawns `node bin/sandtrap.js serve` on fresh ports (and a fresh DATA_DIR unless one is given). */
export async function startServerProcess(options: StartOptions = {}): Promise<ServerProcess> {
  const dataDir = options.dataDir ?? tempDir();
  const { env, ports } = await serverEnv(dataDir);
  const [wrapper, ...wrapperArgs] = options.wrapper ?? [];
  const nodeArgs = [options.main ?? MAIN, ...(options.args ?? ['serve'])];
  const node = options.node ?? NODE_BIN;
  const child = spawn(wrapper ?? node, wrapper ? [...wrapperArgs, node, ...nodeArgs] : nodeArgs, {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...baseEnv(), ...env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);

  const stdoutLines: string[] = [];
  const stderrLines: string[] = [];
  let stderrText = '';
  let stdoutRest = '';
  let stderrRest = '';
  let exited = false;
  const listeners = new Set<() => void>();
  const exitListeners = new Set<() => void>();
  const notify = () => {
    for (const l of [...listeners]) l();
  };

  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    const parts = (stdoutRest + chunk).split('\n');
    stdoutRest = parts.pop() ?? '';
    stdoutLines.push(...parts);
    notify();
  });
  child.stderr?.on('data', (chunk: string) => {
    stderrText += chunk;
    const parts = (stderrRest + chunk).split('\n');
    stderrRest = parts.pop() ?? '';
    stderrLines.push(...parts);
    notify();
  });
  // 'close' fires once the process exited and its stdio streams are drained.
  const closed = new Promise<void>((resolve) => {
    child.once('close', () => {
      if (stdoutRest !== '') stdoutLines.push(stdoutRest);
      if (stderrRest !== '') stderrLines.push(stderrRest);
      stdoutRest = '';
      stderrRest = '';
      exited = true;
      notify();
      for (const l of [...exitListeners]) l();
      resolve();
    });
  });
  child.once('error', () => undefined);

  const subscribe = (onChange: () => void, onExit: () => void) => {
    if (exited) {
      queueMicrotask(onExit);
      return () => undefined;
    }
    listeners.add(onChange);
    exitListeners.add(onExit);
    return () => {
      listeners.delete(onChange);
      exitListeners.delete(onExit);
    };
  };
  const exitMessage = () =>
    `exit code ${child.exitCode}, signal ${child.signalCode}; stderr:\n${stderrText.slice(-2000)}`;

  const apiUrl = `http://127.0.0.1:${ports.api}`;

  async function waitExit(timeoutMs = 15_000): Promise<number | null> {
    const limit = waitMs(timeoutMs);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), limit);
    });
    const outcome = await Promise.race([closed.then(() => 'closed' as const), timeout]);
    clearTimeout(timer);
    if (outcome === 'timeout') throw new Error(`The process did not exit within ${limit} ms`);
    return child.exitCode;
  }

  return {
    child,
    dataDir,
    ports,
    apiUrl,
    stdoutLines,
    stderrLines,
    get stderr() {
      return stderrText;
    },
    get exitCode() {
      return child.exitCode;
    },
    logs() {
      const out: Record<string, unknown>[] = [];
      for (const line of stderrLines) {
        try {
          const value: unknown = JSON.parse(line);
          if (value !== null && typeof value === 'object') out.push(value as Record<string, unknown>);
        } catch {
          // not a JSON line
        }
      }
      return out;
    },
    waitForLine(regex, timeoutMs = 15_000, stream = 'stdout') {
      const lines = stream === 'stdout' ? stdoutLines : stderrLines;
      return waiter(
        `a ${stream} line matching ${regex}`,
        timeoutMs,
        () => lines.find((line) => regex.test(line)),
        subscribe,
        exitMessage,
      );
    },
    async waitHealthy(timeoutMs = 15_000) {
      const deadline = Date.now() + waitMs(timeoutMs);
      while (Date.now() < deadline) {
        if (exited) throw new Error(`The server exited before it was healthy: ${exitMessage()}`);
        try {
          const res = await fetch(`${apiUrl}/healthz`, { signal: AbortSignal.timeout(1_000) });
          await res.arrayBuffer();
          if (res.status === 200) return;
        } catch {
          // not listening yet
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(
        `The server was not healthy within ${waitMs(timeoutMs)} ms; stderr:\n${stderrText.slice(-2000)}`,
      );
    },
    waitExit,
    async stop(signal = 'SIGTERM', timeoutMs = 15_000) {
      if (exited) return child.exitCode;
      child.kill(signal);
      try {
        return await waitExit(timeoutMs);
      } catch (err) {
        child.kill('SIGKILL');
        await waitExit(5_000).catch(() => undefined);
        throw err;
      }
    },
  };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node bin/sandtrap.js ...args` to completion. `env` is added to the inherited environment; when it
 * has no DATA_DIR a fresh temp dir is used, so a command never touches the repository's ./data.
 * A command still running after `timeoutMs` is killed and the promise rejects.
 */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 20_000,
): Promise<CliResult> {
  const fullEnv = { ...baseEnv(), DATA_DIR: env.DATA_DIR ?? join(tempDir(), 'data'), ...env };
  return new Promise((resolve, reject) => {
    const child = spawn(NODE_BIN, [MAIN, ...args], {
      cwd: REPO_ROOT,
      env: fullEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    track(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (stdout += chunk));
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    const limit = waitMs(timeoutMs);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `sandtrap ${args.join(' ')} did not finish within ${limit} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`,
        ),
      );
    }, limit);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
