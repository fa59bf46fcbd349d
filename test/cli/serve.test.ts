// `sandtrap serve` as a real process on the embedded store: first-start key, docs, request ids, sandbox CRUD
// through the typed client, the DATA_DIR lock, graceful shutdown and restart, BOOTSTRAP_API_KEY, bad config,
// the SMTP listeners' greeting, and the capture listener's answer when no sandbox is addressed.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createSandtrapClient } from '../../src/client/index.ts';
import {
  cleanupProcesses,
  runCli,
  startServerProcess,
  tempDir,
  type ServerProcess,
} from '../helpers/process.ts';

const KEY_LINE = /^API key: (stk_[0-9A-Za-z]{38})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

after(cleanupProcesses);

function bearer(key: string): Record<string, string> {
  return { Authorization: `Bearer ${key}` };
}

/** Reads everything a TCP server sends until it closes the socket (bounded). */
function readUntilClose(port: number, timeoutMs = 5_000, afterGreeting?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          `port ${port} did not close the connection within ${timeoutMs} ms; got ${JSON.stringify(data)}`,
        ),
      );
    }, timeoutMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      if (data === '' && afterGreeting !== undefined) socket.write(afterGreeting);
      data += chunk;
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(data);
    });
  });
}

async function whoami(apiUrl: string, key: string) {
  const client = createSandtrapClient({ baseUrl: apiUrl, apiKey: key });
  return client.GET('/whoami');
}

describe('sandtrap serve: first start on an empty DATA_DIR', () => {
  let server: ServerProcess;
  let apiKey: string;

  before(async () => {
    server = await startServerProcess();
    const line = await server.waitForLine(/^API key: /, 20_000);
    apiKey = (KEY_LINE.exec(line) ?? [])[1] ?? assert.fail(`malformed key line: ${line}`);
    await server.waitHealthy(20_000);
  });

  test('prints exactly one "API key:" line on stdout; logs go to stderr as JSON', async () => {
    // The ready log line comes before the key is printed; wait for it so stderr has content.
    await server.waitForLine(/sandtrap is ready/, 10_000, 'stderr');
    const keyLines = server.stdoutLines.filter((l) => l.startsWith('API key:'));
    assert.equal(keyLines.length, 1, `stdout:\n${server.stdoutLines.join('\n')}`);
    assert.match(keyLines[0] as string, KEY_LINE);
    for (const line of server.stdoutLines) {
      assert.ok(!line.trimStart().startsWith('{'), `JSON on stdout: ${line}`);
    }
    const stderrLines = server.stderrLines.filter((l) => l.trim() !== '');
    assert.ok(stderrLines.length > 0, 'no logs on stderr');
    for (const line of stderrLines) {
      let parsed: unknown;
      assert.doesNotThrow(() => (parsed = JSON.parse(line)), `not JSON on stderr: ${line}`);
      assert.equal(typeof (parsed as { level?: unknown }).level, 'number', `no level: ${line}`);
    }
  });

  test('the printed key authenticates as workspace "default"', async () => {
    const { data, response } = await whoami(server.apiUrl, apiKey);
    assert.equal(response.status, 200);
    assert.equal(data?.workspaceName, 'default');
    assert.equal(data?.keyPrefix, apiKey.slice(0, 12));
  });

  test('GET /healthz is 200 {status:"ok"} without a key', async () => {
    const res = await fetch(`${server.apiUrl}/healthz`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ok' });
  });

  test('/openapi/v1.json is served: OpenAPI 3.1.1, version 1.0.0', async () => {
    const res = await fetch(`${server.apiUrl}/openapi/v1.json`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const doc = (await res.json()) as { openapi: string; info: { version: string }; paths: object };
    assert.equal(doc.openapi, '3.1.1');
    assert.equal(doc.info.version, '1.0.0');
    assert.ok('/whoami' in doc.paths);
  });

  test('/api-docs is HTML whose scripts and stylesheets load from this server (no CDN)', async () => {
    const res = await fetch(`${server.apiUrl}/api-docs`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const html = await res.text();
    assert.doesNotMatch(html, /cdn|unpkg|jsdelivr|cdnjs|googleapis/i);
    const refs = [...html.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)="([^"]+)"/gi)].map(
      (m) => m[1] as string,
    );
    const assets = refs.filter((r) => /\.(js|css)(\?|$)/.test(r));
    assert.ok(
      assets.some((r) => r.endsWith('.js')),
      `no script in: ${refs.join(', ')}`,
    );
    assert.ok(
      assets.some((r) => r.endsWith('.css')),
      `no stylesheet in: ${refs.join(', ')}`,
    );
    const origin = new URL(server.apiUrl).origin;
    for (const ref of assets) {
      const url = new URL(ref, res.url);
      assert.equal(url.origin, origin, `external asset ${ref}`);
      const asset = await fetch(url);
      assert.equal(asset.status, 200, `${url} answered ${asset.status}`);
      const body = await asset.text();
      assert.ok(body.length > 0, `${url} is empty`);
      assert.doesNotMatch(asset.headers.get('content-type') ?? '', /text\/html/, `${url} is HTML`);
    }
    // The UI is pointed at this server's spec.
    const initializer = assets.find((r) => r.includes('initializer'));
    if (initializer !== undefined) {
      const js = await (await fetch(new URL(initializer, res.url))).text();
      assert.match(js, /\/openapi\/v1\.json/);
    }
  });

  test('every response carries X-Request-Id (success, 401, 404, healthz, docs)', async () => {
    const urls = ['/healthz', '/api/v1/whoami', '/api/v1/nope', '/openapi/v1.json'];
    for (const path of urls) {
      const res = await fetch(`${server.apiUrl}${path}`);
      await res.arrayBuffer();
      assert.match(
        res.headers.get('x-request-id') ?? '',
        UUID,
        `${path}: ${res.headers.get('x-request-id')}`,
      );
    }
    const ok = await fetch(`${server.apiUrl}/api/v1/whoami`, { headers: bearer(apiKey) });
    await ok.arrayBuffer();
    assert.equal(ok.status, 200);
    assert.match(ok.headers.get('x-request-id') ?? '', UUID);
  });

  test('a well-formed incoming X-Request-Id is echoed and logged as requestId', async () => {
    const id = `abc-123.${Date.now()}_x`;
    const res = await fetch(`${server.apiUrl}/api/v1/whoami`, {
      headers: { ...bearer(apiKey), 'X-Request-Id': id },
    });
    await res.arrayBuffer();
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-request-id'), id);
    const line = await server.waitForLine(new RegExp(id.replace(/[.]/g, '\\.')), 10_000, 'stderr');
    assert.equal((JSON.parse(line) as { requestId?: string }).requestId, id);

    const plain = await fetch(`${server.apiUrl}/api/v1/whoami`, { headers: { 'X-Request-Id': 'abc-123' } });
    assert.equal(plain.headers.get('x-request-id'), 'abc-123');
    const problem = (await plain.json()) as { requestId?: string };
    assert.equal(plain.status, 401);
    assert.equal(problem.requestId, 'abc-123');

    const longest = 'a'.repeat(128);
    const kept = await fetch(`${server.apiUrl}/healthz`, { headers: { 'X-Request-Id': longest } });
    await kept.arrayBuffer();
    assert.equal(kept.headers.get('x-request-id'), longest);
  });

  test('a malformed incoming X-Request-Id is replaced by a UUID, which is the one logged', async () => {
    for (const bad of ['a'.repeat(200), 'has spaces in it', 'semi;colon', 'a'.repeat(129)]) {
      const res = await fetch(`${server.apiUrl}/api/v1/whoami`, {
        headers: { ...bearer(apiKey), 'X-Request-Id': bad },
      });
      await res.arrayBuffer();
      const got = res.headers.get('x-request-id') ?? '';
      assert.match(got, UUID, `for ${JSON.stringify(bad)} got ${JSON.stringify(got)}`);
      const line = await server.waitForLine(new RegExp(got), 10_000, 'stderr');
      assert.equal((JSON.parse(line) as { requestId?: string }).requestId, got);
    }
    assert.ok(!server.stderr.includes('has spaces in it'), 'the malformed id reached the logs');
  });

  test('sandbox lifecycle through the typed client: 201, 200, 200, 200, 200, 200, 204', async () => {
    const client = createSandtrapClient({ baseUrl: `${server.apiUrl}/api/v1`, apiKey });

    const created = await client.POST('/sandboxes', {
      body: { name: 'cli-serve', tags: { suite: 'serve' } },
    });
    assert.equal(created.response.status, 201, JSON.stringify(created.error));
    const sandbox = created.data ?? assert.fail('no body');
    assert.match(sandbox.id, UUID);
    assert.equal(sandbox.name, 'cli-serve');
    assert.deepEqual(sandbox.tags, { suite: 'serve' });
    assert.match(created.response.headers.get('x-request-id') ?? '', UUID);
    const id = sandbox.id;

    const listed = await client.GET('/sandboxes', { params: { query: { q: 'cli-serve' } } });
    assert.equal(listed.response.status, 200);
    assert.deepEqual(
      listed.data?.items.map((s) => s.id),
      [id],
    );

    const got = await client.GET('/sandboxes/{id}', { params: { path: { id } } });
    assert.equal(got.response.status, 200);
    assert.equal(got.data?.smtpPassword, sandbox.smtpPassword);

    const updated = await client.PUT('/sandboxes/{id}', {
      params: { path: { id } },
      body: { name: 'cli-serve-renamed', tags: { suite: 'serve', round: '2' } },
    });
    assert.equal(updated.response.status, 200, JSON.stringify(updated.error));
    assert.equal(updated.data?.name, 'cli-serve-renamed');
    assert.deepEqual(updated.data?.tags, { suite: 'serve', round: '2' });

    const mocked = await client.PUT('/sandboxes/{id}/mocks', {
      params: { path: { id } },
      body: {
        mocks: [
          { name: 'hook', method: 'POST', pattern: '/hooks/{event}', statusCode: 202, body: '{"ok":true}' },
          { isFallback: true, statusCode: 404, body: 'nothing here' },
        ],
      },
    });
    assert.equal(mocked.response.status, 200, JSON.stringify(mocked.error));
    assert.equal(mocked.data?.mocks.length, 2);
    assert.equal(mocked.data?.mocks[0]?.statusCode, 202);
    assert.match(mocked.data?.mocks[0]?.id ?? '', UUID);
    assert.equal(mocked.data?.mocks[1]?.isFallback, true);

    const reset = await client.POST('/sandboxes/{id}/secret/reset', { params: { path: { id } } });
    assert.equal(reset.response.status, 200, JSON.stringify(reset.error));
    assert.notEqual(reset.data?.smtpPassword, sandbox.smtpPassword);
    assert.equal(reset.data?.mocks.length, 2, 'a secret reset keeps the mocks');

    const deleted = await client.DELETE('/sandboxes/{id}', { params: { path: { id } } });
    assert.equal(deleted.response.status, 204);

    const gone = await client.GET('/sandboxes/{id}', { params: { path: { id } } });
    assert.equal(gone.response.status, 404);
    assert.match(gone.response.headers.get('content-type') ?? '', /^application\/problem\+json/);
  });

  test('the SMTP submission and inbound ports greet with 220 ESMTP and close on QUIT', async () => {
    for (const port of [server.ports.smtp, server.ports.smtpInbound]) {
      const text = await readUntilClose(port, 5_000, 'QUIT\r\n');
      assert.match(text, /^220 .*ESMTP/, `port ${port} sent ${JSON.stringify(text)}`);
      assert.match(text, /\r\n221 /);
    }
  });

  test('the capture port answers 404 problem+json for a path with no sandbox and sets no cookie', async () => {
    const res = await fetch(`http://127.0.0.1:${server.ports.capture}/some/hook?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    assert.equal(res.status, 404);
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.equal(res.headers.get('set-cookie'), null);
    const problem = (await res.json()) as { status: number; type: string; requestId: string };
    assert.equal(problem.status, 404);
    assert.equal(problem.type, 'urn:sandtrap:problem:not-found');
    assert.equal(res.headers.get('x-request-id'), problem.requestId);
  });

  test('a second server on the same DATA_DIR exits non-zero on its own, naming the lock', async () => {
    const second = await startServerProcess({ dataDir: server.dataDir });
    // It exits by itself (a generous bound: the process refuses as soon as it reads the lock).
    const code = await second.waitExit(20_000);
    assert.notEqual(code, 0);
    assert.equal(code, 2);
    assert.match(second.stderr, /another sandtrap process|lock/i);
    assert.match(second.stderr, new RegExp(`pid ${server.child.pid}`));
    assert.ok(!second.stdoutLines.some((l) => l.includes('API key')), 'the second process printed a key');
    // The first server is unaffected and still holds the lock.
    assert.ok(existsSync(join(server.dataDir, 'sandtrap.lock')));
    assert.equal((await whoami(server.apiUrl, apiKey)).response.status, 200);
  });

  test('SIGTERM exits 0 (before its own 10 s limit) and removes the lock; a restart prints no key and keeps the data', async () => {
    const client = createSandtrapClient({ baseUrl: server.apiUrl, apiKey });
    const kept = await client.POST('/sandboxes', { body: { name: 'survives-restart' } });
    assert.equal(kept.response.status, 201);
    const keptId = kept.data?.id ?? assert.fail('no id');

    // A shutdown still running after 10 s logs so and exits 1: exit code 0 is the shutdown finishing in time.
    const code = await server.stop('SIGTERM', 20_000);
    assert.equal(code, 0, `stderr:\n${server.stderr.slice(-2000)}`);
    assert.ok(!server.logs().some((l) => /shutdown took over 10 s/.test(String(l.msg))));
    assert.ok(!existsSync(join(server.dataDir, 'sandtrap.lock')), 'the lock file is still there');
    assert.ok(
      server.logs().some((l) => l.msg === 'stopped'),
      'no "stopped" log line',
    );

    const again = await startServerProcess({ dataDir: server.dataDir });
    await again.waitHealthy(20_000);
    const who = await whoami(again.apiUrl, apiKey);
    assert.equal(who.response.status, 200);
    assert.equal(who.data?.workspaceName, 'default');
    const client2 = createSandtrapClient({ baseUrl: again.apiUrl, apiKey });
    const got = await client2.GET('/sandboxes/{id}', { params: { path: { id: keptId } } });
    assert.equal(got.response.status, 200);
    assert.equal(got.data?.name, 'survives-restart');

    assert.equal(await again.stop('SIGTERM', 10_000), 0);
    // stdout is complete once the process has exited.
    assert.ok(
      !again.stdoutLines.some((l) => l.startsWith('API key:')),
      `a restart printed a key:\n${again.stdoutLines.join('\n')}`,
    );
    assert.ok(!existsSync(join(server.dataDir, 'sandtrap.lock')));
  });

  test('after kill -9 a restart takes the stale lock at once and every acknowledged write is there', async () => {
    const first = await startServerProcess({ dataDir: server.dataDir });
    await first.waitHealthy(20_000);
    const client = createSandtrapClient({ baseUrl: first.apiUrl, apiKey });
    const acknowledged: string[] = [];
    for (let i = 0; i < 5; i++) {
      const created = await client.POST('/sandboxes', { body: { name: `acked-${i}` } });
      assert.equal(created.response.status, 201);
      acknowledged.push(created.data?.id ?? assert.fail('no id'));
    }
    await first.stop('SIGKILL', 10_000);
    assert.ok(existsSync(join(server.dataDir, 'sandtrap.lock')), 'kill -9 cannot remove the lock file');

    const second = await startServerProcess({ dataDir: server.dataDir });
    await second.waitHealthy(20_000);
    const client2 = createSandtrapClient({ baseUrl: second.apiUrl, apiKey });
    for (const id of acknowledged) {
      const got = await client2.GET('/sandboxes/{id}', { params: { path: { id } } });
      assert.equal(got.response.status, 200, `sandbox ${id} was acknowledged but is gone`);
    }
    // SIGINT (Ctrl-C) shuts down as cleanly as SIGTERM.
    assert.equal(await second.stop('SIGINT', 10_000), 0);
    assert.ok(!existsSync(join(server.dataDir, 'sandtrap.lock')));
    assert.ok(!second.stdoutLines.some((l) => l.startsWith('API key:')));
  });
});

describe('sandtrap serve: a port already in use', () => {
  let blocker: NetServer;
  let busyPort: number;

  before(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    busyPort = (blocker.address() as AddressInfo).port;
  });

  after(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

  test('the start fails non-zero, releases the lock, and the first key is still shown exactly once', async () => {
    const dataDir = tempDir();
    const failed = await startServerProcess({ dataDir, env: { API_PORT: String(busyPort) } });
    const code = await failed.waitExit(15_000);
    assert.notEqual(code, 0);
    assert.match(failed.stderr, /EADDRINUSE|in use/i);
    assert.match(failed.stderr, new RegExp(String(busyPort)));
    assert.ok(!existsSync(join(dataDir, 'sandtrap.lock')), 'a failed start left its lock file');

    // The store's first key must reach the user once: either the failed start printed it, or the next one does.
    const next = await startServerProcess({ dataDir });
    await next.waitHealthy(20_000);
    assert.equal(await next.stop('SIGTERM', 10_000), 0);
    const keyLines = [...failed.stdoutLines, ...next.stdoutLines].filter((l) => l.startsWith('API key:'));
    assert.equal(
      keyLines.length,
      1,
      'a first start that failed after creating workspace "default" swallowed its only key: ' +
        `no start ever printed it (stdout of the retry: ${JSON.stringify(next.stdoutLines)})`,
    );
  });
});

describe('sandtrap serve: BOOTSTRAP_API_KEY', () => {
  test('a generated key is installed in workspace "default" and no key is printed', async () => {
    const generated = await runCli(['keys', 'generate']);
    assert.equal(generated.code, 0, generated.stderr);
    const key = generated.stdout.trim();
    assert.match(key, /^stk_[0-9A-Za-z]{38}$/);

    const server = await startServerProcess({ env: { BOOTSTRAP_API_KEY: key } });
    await server.waitHealthy(20_000);
    const who = await whoami(server.apiUrl, key);
    assert.equal(who.response.status, 200);
    assert.equal(who.data?.workspaceName, 'default');
    assert.equal(await server.stop('SIGTERM', 10_000), 0);
    assert.ok(
      !server.stdoutLines.some((l) => l.includes('API key')),
      `printed a key:\n${server.stdoutLines.join('\n')}`,
    );
  });

  test('a malformed BOOTSTRAP_API_KEY fails the start with exit code 2, naming the variable', async () => {
    const dir = tempDir();
    const server = await startServerProcess({ dataDir: dir, env: { BOOTSTRAP_API_KEY: 'stk_nope' } });
    const code = await server.waitExit(15_000);
    assert.equal(code, 2, `stderr:\n${server.stderr}`);
    assert.match(server.stderr, /BOOTSTRAP_API_KEY/);
    assert.ok(!server.stderr.includes('stk_nope'), 'the rejected key was echoed');
    assert.ok(!server.stdoutLines.some((l) => l.includes('API key')));
    assert.ok(!existsSync(join(dir, 'sandtrap.lock')));
  });
});

describe('sandtrap serve: invalid configuration', () => {
  test('API_PORT=notaport exits 2 naming the variable', async () => {
    const server = await startServerProcess({ env: { API_PORT: 'notaport' } });
    const code = await server.waitExit(15_000);
    assert.equal(code, 2, `stderr:\n${server.stderr}`);
    assert.match(server.stderr, /API_PORT/);
    assert.equal(server.stdoutLines.filter((l) => l !== '').length, 0);
  });

  test('a DATA_DIR it may not write exits 2 with one line naming it, not a stack trace', async () => {
    // Nobody, root included, may make a folder in /sys (a container's volume owned by another user is the same
    // refusal): EPERM here, EACCES for a user without the permission, EROFS on a read-only mount.
    const dataDir = '/sys/sandtrap-test-data';
    const server = await startServerProcess({ dataDir });
    const code = await server.waitExit(15_000);
    assert.equal(code, 2, `stderr:\n${server.stderr}`);
    const lines = server.stderr.trim().split('\n');
    assert.equal(lines.length, 1, server.stderr);
    assert.match(
      lines[0] ?? '',
      /^sandtrap: DATA_DIR \/sys\/sandtrap-test-data is not writable.*\((EPERM|EACCES|EROFS)\)/,
    );
    assert.doesNotMatch(server.stderr, /\n\s+at /);
  });

  test('an out-of-range port and a bad LOG_LEVEL are both named', async () => {
    const server = await startServerProcess({ env: { SMTP_PORT: '70000', LOG_LEVEL: 'loud' } });
    const code = await server.waitExit(15_000);
    assert.equal(code, 2, `stderr:\n${server.stderr}`);
    assert.match(server.stderr, /SMTP_PORT/);
    assert.match(server.stderr, /LOG_LEVEL/);
  });
});
