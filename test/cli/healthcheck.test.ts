// bin/healthcheck.js, the container image's HEALTHCHECK: run as the image runs it (HOST and PROBE_PORT or
// API_PORT from the environment) against a real `sandtrap serve`. Ready is exit 0; a server whose store is
// down (a private PostgreSQL cluster stopped under it) or no server at all is exit 1 with one line naming
// what failed.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers/poll.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/privatePostgres.ts';
import {
  NODE_BIN,
  REPO_ROOT,
  cleanupProcesses,
  freePort,
  startServerProcess,
  type ServerProcess,
} from '../helpers/process.ts';

const HEALTHCHECK = join(REPO_ROOT, 'bin', 'healthcheck.js');

interface Probe {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the probe with only the variables a container would give it (plus PATH). */
function probe(env: Record<string, string>): Promise<Probe> {
  return new Promise((resolve, reject) => {
    execFile(
      NODE_BIN,
      [HEALTHCHECK],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 180_000 },
      (err, stdout, stderr) => {
        if (err !== null && typeof err.code !== 'number') return reject(err);
        resolve({ code: err === null ? 0 : (err.code as number), stdout, stderr });
      },
    );
  });
}

describe('bin/healthcheck.js on the embedded store', () => {
  let server: ServerProcess;
  let probePort: number;
  before(async () => {
    probePort = await freePort();
    server = await startServerProcess({ env: { PROBE_PORT: String(probePort) } });
    await server.waitHealthy(180_000);
  });
  after(async () => {
    await server?.stop().catch(() => undefined);
    await cleanupProcesses();
  });

  it('exits 0 against the configured HOST and API_PORT', async () => {
    const result = await probe({ HOST: '127.0.0.1', API_PORT: String(server.ports.api) });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `ready: http://127.0.0.1:${server.ports.api}/readyz\n`);
    assert.equal(result.stderr, '');
  });

  it('asks 127.0.0.1 when HOST is the wildcard 0.0.0.0, as in the image', async () => {
    const result = await probe({ HOST: '0.0.0.0', API_PORT: String(server.ports.api) });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^ready: http:\/\/127\.0\.0\.1:/);
  });

  it('asks PROBE_PORT when it is set, not API_PORT', async () => {
    // API_PORT names a port nothing listens on: only the probe listener can make this pass.
    const result = await probe({
      HOST: '127.0.0.1',
      API_PORT: String(await freePort()),
      PROBE_PORT: String(probePort),
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `ready: http://127.0.0.1:${probePort}/readyz\n`);
  });

  it('exits 1 naming the refused connection once the server has stopped', async () => {
    assert.equal(await server.stop('SIGTERM'), 0);
    const result = await probe({ HOST: '0.0.0.0', API_PORT: String(server.ports.api) });
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.equal(
      result.stderr,
      `not ready: http://127.0.0.1:${server.ports.api}/readyz did not answer (ECONNREFUSED)\n`,
    );
  });
});

describe('bin/healthcheck.js while PostgreSQL is stopped', () => {
  let pgc: PrivatePostgres;
  let server: ServerProcess;
  before(async () => {
    pgc = await startPrivatePostgres();
    server = await startServerProcess({ env: { DATABASE_URL: pgc.url, RATE_LIMITS: 'off' } });
    await server.waitHealthy(180_000);
  });
  after(async () => {
    await server?.stop().catch(() => undefined);
    await pgc?.destroy().catch(() => undefined);
    await cleanupProcesses();
  });

  it('exits 1 naming the store while it is down, and 0 again once it is back', async () => {
    const env = { HOST: '127.0.0.1', API_PORT: String(server.ports.api) };
    assert.equal((await probe(env)).code, 0);
    await pgc.stop('immediate');
    const down = await eventually(
      'the probe to fail',
      async () => {
        const result = await probe(env);
        return result.code === 0 ? undefined : result;
      },
      180_000,
      200,
    );
    assert.equal(down.code, 1);
    assert.match(down.stderr, /^not ready: http:\/\/127\.0\.0\.1:\d+\/readyz answered 503: store: /);
    assert.equal(down.stderr.split('\n').length, 2, 'one line');
    await pgc.start();
    await eventually(
      'the probe to pass again',
      async () => ((await probe(env)).code === 0 ? true : undefined),
      180_000,
      200,
    );
  });
});
