// The `sandtrap` bin on a Node without type stripping (it hands over to the bundled Node 24, or says in one
// line what it needs), stopping `npm start` by signalling npm's pid, and `npm test -- <files>` running only
// those files. Real processes throughout: the machine's old Node (20 here), npm, and the bundled Node 24.
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { eventually } from '../helpers/poll.ts';
import {
  cleanupProcesses,
  NODE_BIN,
  REPO_ROOT,
  serverEnv,
  tempDir,
  type ServerPorts,
} from '../helpers/process.ts';

const BIN = join(REPO_ROOT, 'bin', 'sandtrap.js');
const BUNDLED_NODE = join(REPO_ROOT, 'node_modules', '.bin', 'node');
const T = { timeout: 360_000 };

/** Every pid a test started or saw below one it started: whatever is still alive is killed afterwards. */
const pids = new Set<number>();

/** Process groups of detached runs, killed as a whole afterwards. */
const groups = new Set<number>();

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // the group is gone
  }
}

after(async () => {
  for (const pgid of groups) killGroup(pgid);
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  await cleanupProcesses();
});

function nodeVersion(path: string): [number, number] | undefined {
  try {
    const out = execFileSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 180_000 });
    const [major, minor] = out.trim().split('.').map(Number);
    return [major as number, minor as number];
  } catch {
    return undefined;
  }
}

/** A Node that cannot strip types (older than 22.18): the machine's own, whatever node PATH finds first. */
function findOldNode(): string {
  const candidates = [
    '/usr/bin/node',
    '/usr/local/bin/node',
    ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'node')),
  ];
  for (const candidate of candidates) {
    const version = nodeVersion(candidate);
    if (version !== undefined && (version[0] < 22 || (version[0] === 22 && version[1] < 18)))
      return candidate;
  }
  throw new Error(`No Node older than 22.18 at ${candidates.join(', ')}; these tests need one`);
}

/** The environment a child gets: this one without what would change its store, key or test-runner mode. */
function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  for (const name of [
    'DATABASE_URL',
    'BOOTSTRAP_API_KEY',
    'LOG_LEVEL',
    'NODE_TEST_CONTEXT',
    'SANDTRAP_NODE_HANDOVER',
  ]) {
    delete env[name];
  }
  return { ...env, ...extra };
}

interface Run {
  child: ChildProcess;
  pid: number;
  stdout(): string;
  stderr(): string;
  /** Resolves once the process exited and every holder of its stdout/stderr (its children too) closed them. */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function run(
  command: string,
  args: string[],
  options: { env: Record<string, string>; cwd?: string; detached?: boolean },
): Run {
  const child = spawn(command, args, {
    cwd: options.cwd ?? REPO_ROOT,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  assert.ok(child.pid !== undefined, `${command} started`);
  pids.add(child.pid);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => {
      // Reaped: the pid may be reused from now on, so cleanup must not kill it.
      pids.delete(child.pid as number);
      resolve({ code, signal });
    });
  });
  return { child, pid: child.pid, stdout: () => stdout, stderr: () => stderr, closed };
}

/** `promise`, or a rejection naming `what` after `ms`. */
async function within<V>(promise: Promise<V>, ms: number, what: string): Promise<V> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function waitFor(condition: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  await eventually(what, condition, ms, 100);
}

/** Waits for /healthz; on failure records what `proc` started, so cleanup can kill it. */
async function waitHealthy(port: number, proc: Run): Promise<void> {
  let exited = false;
  void proc.closed.then(() => (exited = true));
  await waitFor(
    async () => {
      if (exited) throw new Error(`exited before it was healthy; stderr:\n${proc.stderr().slice(-2000)}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1_000) });
        await res.arrayBuffer();
        return res.status === 200;
      } catch {
        return false;
      }
    },
    180_000,
    'GET /healthz answering 200',
  ).catch((err: unknown) => {
    descendants(proc.pid);
    throw err;
  });
}

/** Running (a zombie has exited: it only waits for a parent that is gone to reap it). */
function alive(pid: number): boolean {
  try {
    const stat = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    return stat !== '' && !stat.startsWith('Z');
  } catch {
    return false; // ps exits 1 when there is no such process
  }
}

/** Every process below `pid`, per `ps`; recorded for cleanup. */
function descendants(pid: number): number[] {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  let frontier = [pid];
  while (frontier.length > 0) {
    frontier = rows.filter(([, ppid]) => frontier.includes(ppid)).map(([child]) => child);
    found.push(...frontier);
  }
  for (const child of found) pids.add(child);
  return found;
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

async function assertAllGone(tree: number[], ports: number[]): Promise<void> {
  await waitFor(() => tree.every((pid) => !alive(pid)), 10_000, `processes ${tree.join(', ')} gone`);
  for (const pid of tree) pids.delete(pid);
  for (const port of ports) {
    assert.equal(await refusesConnections(port), true, `port ${port} no longer answers`);
  }
}

function listeners(ports: ServerPorts): number[] {
  return [ports.api, ports.smtp, ports.smtpInbound, ports.capture];
}

/**
 * Runs a command to completion in its own process group, so a run that hangs is killed with everything it
 * started (a test runner below npm, say), not only the process we spawned.
 */
async function execCollect(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd = REPO_ROOT,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = run(command, args, { env, cwd, detached: true });
  groups.add(proc.pid);
  try {
    const { code } = await within(proc.closed, 180_000, `${command} ${args.join(' ')} finishing`);
    groups.delete(proc.pid);
    return { code, stdout: proc.stdout(), stderr: proc.stderr() };
  } catch (err) {
    killGroup(proc.pid);
    throw new Error(`${(err as Error).message}\nstdout:\n${proc.stdout()}\nstderr:\n${proc.stderr()}`);
  }
}

describe('the sandtrap bin on a Node without type stripping', () => {
  let oldNode: string;
  before(() => {
    oldNode = findOldNode();
  });

  test('runs `help` through the bundled Node', T, async () => {
    const result = await execCollect(oldNode, [BIN, 'help'], childEnv());
    assert.equal(result.code, 0, `exit code 0; stderr: ${result.stderr}`);
    assert.match(result.stdout, /^Usage: sandtrap <command>\n/);
    assert.equal(result.stderr, '');
  });

  test('serves through the bundled Node and passes SIGTERM on for a graceful stop', T, async () => {
    const { env, ports } = await serverEnv(tempDir());
    const proc = run(oldNode, [BIN, 'serve'], { env: childEnv(env) });
    await waitHealthy(ports.api, proc);
    const tree = descendants(proc.pid);
    assert.equal(tree.length, 1, 'one child: the bundled Node');
    assert.equal(realpathSync(`/proc/${tree[0]}/exe`), realpathSync(BUNDLED_NODE));

    proc.child.kill('SIGTERM');
    const { code, signal } = await within(proc.closed, 180_000, 'exit after SIGTERM');
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, `stderr:\n${proc.stderr().slice(-2000)}`);
    assert.match(proc.stderr(), /"msg":"stopped"/);
    await assertAllGone(tree, listeners(ports));
  });

  test('the bundled Node stops by itself when the first process is killed outright', T, async () => {
    const { env, ports } = await serverEnv(tempDir());
    const proc = run(oldNode, [BIN, 'serve'], { env: childEnv(env) });
    await waitHealthy(ports.api, proc);
    const tree = descendants(proc.pid);
    assert.equal(tree.length, 1, 'one child: the bundled Node');

    proc.child.kill('SIGKILL');
    await assertAllGone(tree, listeners(ports));
    // stderr closes once the orphaned child exits, so its last log lines are in.
    await within(proc.closed, 180_000, 'stderr closed');
    assert.match(proc.stderr(), /"msg":"shutting down"/);
    assert.match(proc.stderr(), /"msg":"stopped"/);
  });

  test('leaves stdin and stdout to the MCP protocol (mcp --embedded)', T, async () => {
    const { env, ports } = await serverEnv(tempDir());
    const transport = new StdioClientTransport({
      command: oldNode,
      args: [BIN, 'mcp', '--embedded'],
      env: { ...env, SMTP_INBOUND_PORT: '0' },
      stderr: 'pipe',
      cwd: REPO_ROOT,
    });
    let stderr = '';
    (transport.stderr as Readable | null)
      ?.setEncoding('utf8')
      .on('data', (chunk: string) => (stderr += chunk));
    const errors: Error[] = [];
    const client = new Client({ name: 'sandtrap-node-version-test', version: '1.0.0' });
    client.onerror = (err) => errors.push(err);
    let tree: number[] = [];
    try {
      await client.connect(transport, { timeout: 180_000 });
      assert.ok(transport.pid !== null);
      pids.add(transport.pid);
      tree = [transport.pid, ...descendants(transport.pid)];
      assert.equal(tree.length, 2, 'the old Node and the bundled Node');
      const { tools } = await client.listTools();
      assert.ok(
        tools.some((tool) => tool.name === 'create_sandbox'),
        `create_sandbox is listed; stderr:\n${stderr}`,
      );
      assert.deepEqual(
        errors.map((e) => e.message),
        [],
        'every stdout line was a protocol frame',
      );
    } finally {
      await client.close();
    }
    await assertAllGone(tree, [ports.api, ports.smtp, ports.capture]);
  });
});

describe('the sandtrap bin with no Node that strips types', () => {
  let oldNode: string;
  before(() => {
    oldNode = findOldNode();
  });

  /** A package directory holding only a copy of bin/sandtrap.js, as when `npm ci` was never run. */
  function barePackage(): string {
    const dir = tempDir('sandtrap-bare-');
    mkdirSync(join(dir, 'bin'));
    copyFileSync(BIN, join(dir, 'bin', 'sandtrap.js'));
    return dir;
  }

  function assertOneLine(result: { code: number | null; stdout: string; stderr: string }): string {
    assert.notEqual(result.code, 0, 'a failing exit code');
    assert.equal(result.stdout, '', 'nothing on stdout');
    const lines = result.stderr.split('\n').filter((line) => line !== '');
    assert.equal(lines.length, 1, `one line on stderr, got:\n${result.stderr}`);
    const line = lines[0] as string;
    assert.doesNotMatch(line, /ERR_[A-Z]|Error\b|file:\/\/|node:internal/, 'no error name or stack frame');
    assert.match(line, /^sandtrap: needs Node >= 22\.18 or 24 /);
    assert.match(line, /this is Node v\d+\.\d+\.\d+/);
    assert.match(line, /`npm ci`.*node_modules\/\.bin\/node.*`npm start`.*`npx sandtrap`/);
    return line;
  }

  test('prints one line saying what it needs when no bundled Node is installed', T, async () => {
    const dir = barePackage();
    const result = await execCollect(oldNode, [join(dir, 'bin', 'sandtrap.js'), 'serve'], childEnv(), dir);
    const line = assertOneLine(result);
    assert.ok(line.includes(`there is no Node 24 at ${join(dir, 'node_modules', '.bin', 'node')}`), line);
  });

  test('does not hand over again when the bundled Node cannot strip types either', T, async () => {
    const dir = barePackage();
    mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
    const fake = join(dir, 'node_modules', '.bin', 'node');
    writeFileSync(fake, `#!/bin/sh\nexec '${oldNode}' "$@"\n`);
    chmodSync(fake, 0o755);
    const result = await execCollect(oldNode, [join(dir, 'bin', 'sandtrap.js'), 'mcp'], childEnv(), dir);
    const line = assertOneLine(result);
    assert.match(line, /run in place of the bundled Node/);
  });
});

describe('npm start', () => {
  async function startNpm(detached = false): Promise<{ npm: Run; tree: number[]; ports: ServerPorts }> {
    const { env, ports } = await serverEnv(tempDir());
    const npm = run('npm', ['start'], { env: childEnv(env), detached });
    if (detached) groups.add(npm.pid);
    await waitHealthy(ports.api, npm);
    const tree = descendants(npm.pid);
    // The script execs node in place of sh, so npm's forwarded signals land on the server itself.
    assert.equal(tree.length, 1, "the server is npm's only child");
    assert.match(execFileSync('ps', ['-o', 'args=', '-p', String(tree[0])], { encoding: 'utf8' }), /^node /);
    return { npm, tree, ports };
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`stops the server gracefully on ${signal} to npm's pid`, T, async () => {
      const { npm, tree, ports } = await startNpm();
      process.kill(npm.pid, signal);
      await within(npm.closed, 180_000, `npm exit after ${signal}`);
      await assertAllGone(tree, listeners(ports));
      assert.match(npm.stderr(), /"msg":"stopped"/, `graceful; stderr:\n${npm.stderr().slice(-2000)}`);
    });
  }

  test('stops gracefully on Ctrl-C, which reaches npm and the server both', T, async () => {
    const { npm, tree, ports } = await startNpm(true);
    process.kill(-npm.pid, 'SIGINT'); // the whole process group, as a terminal does
    await within(npm.closed, 180_000, 'npm exit after SIGINT to the group');
    await assertAllGone(tree, listeners(ports));
    groups.delete(npm.pid);
    assert.match(npm.stderr(), /"msg":"stopped"/, `graceful; stderr:\n${npm.stderr().slice(-2000)}`);
  });

  test('stops the server when npm is killed outright', T, async () => {
    const { npm, tree, ports } = await startNpm();
    process.kill(npm.pid, 'SIGKILL');
    await assertAllGone(tree, listeners(ports));
    await within(npm.closed, 180_000, 'stderr closed');
    assert.match(npm.stderr(), /"msg":"stopped"/, `graceful; stderr:\n${npm.stderr().slice(-2000)}`);
  });
});

describe('npm test', () => {
  let dir: string;
  before(() => {
    dir = tempDir('sandtrap-npm-test-');
    const header = "import test from 'node:test';\nimport assert from 'node:assert/strict';\n";
    writeFileSync(
      join(dir, 'pick.test.ts'),
      `${header}test('alpha passes', () => {});\ntest('beta fails', () => assert.equal(1, 2));\n`,
    );
    writeFileSync(join(dir, 'other.test.ts'), `${header}test('gamma passes', () => {});\n`);
  });

  test('-- <file> --test-name-pattern … runs only that file and the matching test', T, async () => {
    const file = join(dir, 'pick.test.ts');
    const result = await execCollect(
      'npm',
      ['test', '--', file, '--test-name-pattern', 'alpha', '--test-reporter=tap'],
      childEnv(),
    );
    assert.equal(result.code, 0, `exit code 0; output:\n${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /^# tests 1$/m);
    assert.match(result.stdout, /^# pass 1$/m);
    assert.match(result.stdout, /^ok 1 - alpha passes/m);
    assert.doesNotMatch(result.stdout, /gamma|beta/);
  });

  test('-- <files> runs just those and exits with the runner’s failing code', T, async () => {
    const result = await execCollect(
      'npm',
      ['test', '--', join(dir, 'pick.test.ts'), join(dir, 'other.test.ts')],
      childEnv(),
    );
    assert.equal(result.code, 1, `exit code 1; output:\n${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /^\S+ tests 3$/m);
    assert.match(result.stdout, /^\S+ pass 2$/m);
    assert.match(result.stdout, /^\S+ fail 1$/m);
  });

  test('with no file runs every test/**/*.test.ts below the working directory', T, async () => {
    const root = tempDir('sandtrap-npm-test-all-');
    mkdirSync(join(root, 'test', 'a', 'deep'), { recursive: true });
    const passing = "import test from 'node:test';\ntest('passes', () => {});\n";
    writeFileSync(join(root, 'test', 'one.test.ts'), passing);
    writeFileSync(join(root, 'test', 'a', 'deep', 'two.test.ts'), passing);
    writeFileSync(join(root, 'test', 'a', 'helper.ts'), "throw new Error('not a test file');\n");
    const result = await execCollect(NODE_BIN, [join(REPO_ROOT, 'scripts', 'test.ts')], childEnv(), root);
    assert.equal(result.code, 0, `exit code 0; output:\n${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /^\S+ tests 2$/m);
  });
});
