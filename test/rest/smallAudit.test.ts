// Small findings of the security audit (issue 34), through the real surfaces on every store: a key sent in the
// query string never comes back in a 401 body (REST and /mcp), and the dashboard's "Copy as curl" command,
// run by the real curl, sends a captured body that starts with `@` as written instead of uploading a file.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { components } from '../../openapi/schema.d.ts';
import { curlCommand } from '../../src/web/views/requests/curl.ts';
import { sendRecorded } from '../helpers/captureClient.ts';
import { assertProblem } from '../helpers/responses.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

type Detail = components['schemas']['RequestDetail'];

const T = { timeout: 30_000 };

describeEachStore('Audit: small doors', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace();
  });
  after(() => server.close());

  describe('401', () => {
    it('never echoes a key sent in the query string', T, async () => {
      const revoked = ws.key; // a real, well-formed key: the most harmful thing to echo
      for (const path of [
        `/api/v1/whoami?api_key=${revoked}`,
        `/api/v1/sandboxes?key=${revoked}&limit=1`,
        `/mcp?access_token=${revoked}`,
      ]) {
        const res = await fetch(`${server.apiUrl}${path}`, {
          method: path.startsWith('/mcp') ? 'POST' : 'GET',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          ...(path.startsWith('/mcp') ? { body: '{}' } : {}),
        });
        const text = await res.clone().text();
        await assertProblem(res, 401, 'unauthorized');
        assert.ok(!text.includes(revoked), `${path}: ${text}`);
        assert.ok(!text.includes(revoked.slice(4, 20)), `${path}: no part of the key either`);
      }
    });
  });

  describe('Copy as curl', () => {
    it('sends a body starting with @ as written: curl reads no file', T, async () => {
      const sandbox = await ws.createSandbox({ name: 'curl' });
      const body = '@/etc/hostname';
      const first = await sendRecorded(server.ports.capture, sandbox.id, {
        method: 'POST',
        path: '/upload',
        headers: { 'Content-Type': 'text/plain' },
        body,
      });
      const detail = (await (
        await ws.api(`/sandboxes/${sandbox.id}/requests/${first.requestId}`)
      ).json()) as Detail;
      const command = curlCommand(detail, sandbox.captureUrl as string, detail.body);
      // Asynchronously: the server runs in this process and must keep answering while curl waits.
      const run = await promisify(execFile)('bash', ['-c', `${command} -s -o /dev/null -w '%{http_code}'`], {
        encoding: 'utf8',
        timeout: 20_000,
      });
      assert.equal(run.stdout, '200', `${command}\n${run.stderr}`);
      const list = (await (await ws.api(`/sandboxes/${sandbox.id}/requests?limit=1`)).json()) as {
        items: Array<{ id: string }>;
      };
      const replayedId = list.items[0]?.id as string;
      assert.notEqual(replayedId, first.requestId);
      const raw = await (await ws.api(`/sandboxes/${sandbox.id}/requests/${replayedId}/raw`)).text();
      assert.ok(raw.endsWith(`\r\n\r\n${body}`), raw);
    });

    it('sends HEAD with --head, so curl ends instead of waiting for a body', T, async () => {
      const sandbox = await ws.createSandbox({ name: 'curl-head' });
      const first = await sendRecorded(server.ports.capture, sandbox.id, { method: 'HEAD', path: '/probe' });
      const detail = (await (
        await ws.api(`/sandboxes/${sandbox.id}/requests/${first.requestId}`)
      ).json()) as Detail;
      const command = curlCommand(detail, sandbox.captureUrl as string, detail.body);
      assert.match(command, /^curl --head /);
      assert.doesNotMatch(command, /-X/);
      // `-X HEAD` exits 18 (or hangs until the timeout); --head exits 0 with the status line.
      const run = await promisify(execFile)('bash', ['-c', `${command} -s -o /dev/null -w '%{http_code}'`], {
        encoding: 'utf8',
        timeout: 20_000,
      });
      assert.equal(run.stdout, '200', `${command}\n${run.stderr}`);
      const list = (await (await ws.api(`/sandboxes/${sandbox.id}/requests?limit=1`)).json()) as {
        items: Array<{ id: string; method: string }>;
      };
      assert.equal(list.items[0]?.method, 'HEAD');
      assert.notEqual(list.items[0]?.id, first.requestId);
    });
  });
});
