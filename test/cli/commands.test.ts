// The one-shot CLI commands as real processes, each on its own embedded store in a fresh DATA_DIR:
// keys generate, migrate, workspaces create, keys create, the DATA_DIR lock, usage and help.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSandtrapClient } from '../../src/client/index.ts';
import { isValidApiKeyFormat } from '../../src/core/apiKeyFormat.ts';
import { cleanupProcesses, runCli, startServerProcess, tempDir, type CliResult } from '../helpers/process.ts';

const KEY = /^stk_[0-9A-Za-z]{38}$/;

after(cleanupProcesses);

function keyFrom(result: CliResult): string {
  const lines = result.stdout.split('\n').filter((l) => l.startsWith('API key: '));
  assert.equal(lines.length, 1, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
  const key = (lines[0] as string).slice('API key: '.length);
  assert.match(key, KEY);
  assert.ok(isValidApiKeyFormat(key), `${key} has a bad checksum`);
  return key;
}

/** `Workspace: NAME (subdomain, id)` */
function workspaceFrom(result: CliResult): { name: string; subdomain: string; id: string } {
  const match = /^Workspace: (.+) \(([a-z0-9-]+), ([0-9a-f-]{36})\)$/m.exec(result.stdout);
  assert.ok(match, `no workspace line in:\n${result.stdout}`);
  return { name: match[1] as string, subdomain: match[2] as string, id: match[3] as string };
}

describe('sandtrap keys generate', () => {
  test('prints one valid key and stores nothing; two runs differ', async () => {
    const [a, b] = await Promise.all([runCli(['keys', 'generate']), runCli(['keys', 'generate'])]);
    for (const r of [a, b]) {
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, '');
      const lines = r.stdout.split('\n').filter((l) => l !== '');
      assert.equal(lines.length, 1, r.stdout);
      assert.match(lines[0] as string, KEY);
      assert.ok(isValidApiKeyFormat(lines[0] as string));
    }
    assert.notEqual(a.stdout.trim(), b.stdout.trim());
  });
});

describe('sandtrap migrate', () => {
  test('on a fresh DATA_DIR exits 0', async () => {
    const dir = tempDir();
    const result = await runCli(['migrate'], { DATA_DIR: dir });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /up to date/i);
  });
});

describe('sandtrap workspaces create / keys create', () => {
  let dataDir: string;
  let acme: { name: string; subdomain: string; id: string };
  let acmeKey: string;
  let acme2: { name: string; subdomain: string; id: string };
  let ciKey: string;

  before(() => {
    dataDir = tempDir();
  });

  test('workspaces create Acme prints the workspace line and its first key', async () => {
    const result = await runCli(['workspaces', 'create', 'Acme'], { DATA_DIR: dataDir });
    assert.equal(result.code, 0, result.stderr);
    acmeKey = keyFrom(result);
    acme = workspaceFrom(result);
    assert.equal(acme.name, 'Acme');
    assert.equal(acme.subdomain, 'acme');
  });

  test('creating Acme again yields a different, unique subdomain', async () => {
    const result = await runCli(['workspaces', 'create', 'Acme'], { DATA_DIR: dataDir });
    assert.equal(result.code, 0, result.stderr);
    acme2 = workspaceFrom(result);
    assert.equal(acme2.name, 'Acme');
    assert.notEqual(acme2.subdomain, acme.subdomain);
    assert.match(acme2.subdomain, /^acme-[a-z0-9]+$/);
    assert.notEqual(acme2.id, acme.id);
    assert.notEqual(keyFrom(result), acmeKey);
  });

  test('keys create --workspace acme --label ci prints a new key', async () => {
    const result = await runCli(['keys', 'create', '--workspace', 'acme', '--label', 'ci'], {
      DATA_DIR: dataDir,
    });
    assert.equal(result.code, 0, result.stderr);
    ciKey = keyFrom(result);
    assert.notEqual(ciKey, acmeKey);
  });

  test('keys create without --workspace when 2+ workspaces exist exits 2 listing them', async () => {
    const result = await runCli(['keys', 'create'], { DATA_DIR: dataDir });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /--workspace/);
    assert.ok(result.stderr.includes(acme.subdomain), result.stderr);
    assert.ok(result.stderr.includes(acme2.subdomain), result.stderr);
    assert.ok(!result.stdout.includes('API key'));
  });

  test('keys create --workspace nope exits 2', async () => {
    const result = await runCli(['keys', 'create', '--workspace', 'nope'], { DATA_DIR: dataDir });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /nope/);
    assert.ok(!result.stdout.includes('API key'));
  });

  test('keys create --expires-in-days with a non-number exits 2 without opening the store', async () => {
    const result = await runCli(['keys', 'create', '--workspace', 'acme', '--expires-in-days', 'soon'], {
      DATA_DIR: dataDir,
    });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /--expires-in-days/);
  });

  test('a server on that DATA_DIR serves the keys; meanwhile workspaces create is refused by the lock', async () => {
    const server = await startServerProcess({ dataDir });
    try {
      await server.waitHealthy(20_000);

      const acmeClient = createSandtrapClient({ baseUrl: server.apiUrl, apiKey: acmeKey });
      const account = await acmeClient.GET('/account');
      assert.equal(account.response.status, 200);
      assert.equal(account.data?.name, 'Acme');
      assert.equal(account.data?.subdomain, 'acme');
      assert.equal(account.data?.orgId, acme.id);

      const ciClient = createSandtrapClient({ baseUrl: server.apiUrl, apiKey: ciKey });
      const who = await ciClient.GET('/whoami');
      assert.equal(who.response.status, 200);
      assert.equal(who.data?.workspaceId, acme.id);
      assert.equal(who.data?.workspaceName, 'Acme');
      assert.equal(who.data?.label, 'ci');
      const ciAccount = await ciClient.GET('/account');
      assert.equal(ciAccount.data?.subdomain, 'acme');

      const locked = await runCli(['workspaces', 'create', 'X'], { DATA_DIR: dataDir });
      assert.equal(locked.code, 2, locked.stderr);
      assert.match(locked.stderr, /another sandtrap process/);
      assert.match(locked.stderr, /DATA_DIR|DATABASE_URL/);
      assert.ok(!locked.stdout.includes('API key'));

      // The refused command created nothing.
      const lockedKeys = await runCli(['keys', 'create', '--workspace', 'acme'], { DATA_DIR: dataDir });
      assert.equal(lockedKeys.code, 2, lockedKeys.stderr);
      assert.match(lockedKeys.stderr, /another sandtrap process/);

      // The store was not empty, so the server created no "default" workspace and printed no key.
      assert.equal(await server.stop('SIGTERM', 10_000), 0);
      assert.ok(!server.stdoutLines.some((l) => l.startsWith('API key:')), server.stdoutLines.join('\n'));
    } finally {
      if (server.exitCode === null) await server.stop('SIGKILL', 5_000).catch(() => undefined);
    }
  });

  test('after the server stopped, the lock is free again', async () => {
    const result = await runCli(['keys', 'create', '--workspace', acme2.id], { DATA_DIR: dataDir });
    assert.equal(result.code, 0, result.stderr);
    keyFrom(result);
  });
});

describe('sandtrap usage', () => {
  test('an unknown command exits 2 with the usage text', async () => {
    const result = await runCli(['frobnicate']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /Unknown command "frobnicate"/);
    assert.match(result.stderr, /Usage: sandtrap <command>/);
    assert.match(result.stderr, /workspaces create NAME/);
    assert.equal(result.stdout, '');
  });

  test('help exits 0 with the usage text on stdout', async () => {
    for (const arg of ['help', '--help']) {
      const result = await runCli([arg]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Usage: sandtrap <command>/);
      assert.match(result.stdout, /keys generate/);
    }
  });

  test('an unknown or incomplete option is a usage error: exit 2, a one-line message, no stack trace', async () => {
    for (const args of [
      ['keys', 'create', '--bogus'],
      ['keys', 'create', '--workspace'],
    ]) {
      const result = await runCli(args);
      assert.equal(result.code, 2, `${args.join(' ')}: exit ${result.code}\n${result.stderr}`);
      assert.match(result.stderr, /--bogus|--workspace/);
      assert.doesNotMatch(
        result.stderr,
        /^\s+at /m,
        `a stack trace for ${args.join(' ')}:\n${result.stderr}`,
      );
    }
  });

  test('malformed subcommands exit 2 with their usage', async () => {
    const ws = await runCli(['workspaces', 'create']);
    assert.equal(ws.code, 2);
    assert.match(ws.stderr, /Usage: sandtrap workspaces create NAME/);
    const keys = await runCli(['keys', 'rotate']);
    assert.equal(keys.code, 2);
    assert.match(keys.stderr, /Usage: sandtrap keys/);
  });
});
