// The MCP `expect` tool through both doors, the SDK client over Streamable HTTP (core in-process) and the
// `sandtrap mcp` stdio process (the REST endpoint): pass and fail are results, never errors, and say in words
// what failed and on which item; closest items name the arguments they failed; refusals are isError.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { cleanupProcesses } from '../helpers/process.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { callTool, capture, connectHttp, fails, ok, sendMail, waitUntil, WITH_PROGRESS } from './client.ts';
import { startStdio } from './stdioClient.ts';

const T = { timeout: 90_000 };

describeEachStore('MCP expect over HTTP and stdio', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let http: Client;
  let stdio: Client;

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace();
    http = await connectHttp(server.apiUrl, ws.key);
    // A busy machine can take longer than the default 20 s to start the child process.
    stdio = (
      await startStdio([], { SANDTRAP_URL: server.apiUrl, SANDTRAP_API_KEY: ws.key }, { timeoutMs: 120_000 })
    ).client;
  });
  after(async () => {
    await http?.close().catch(() => undefined);
    await stdio?.close().catch(() => undefined);
    await cleanupProcesses();
    server.api.server.closeAllConnections();
    await server.close();
  });

  async function mail(sb: Record<string, any>, subject: string) {
    await sendMail(server.ports.smtp, sb, { subject, text: 'hello' });
    server.clock.advance(5);
  }

  async function hook(sb: Record<string, any>, method: string, path: string): Promise<string> {
    const { requestId } = await capture(sb.capture_url, path, {
      method,
      ...(method === 'GET' ? {} : { body: '{}' }),
    });
    server.clock.advance(5);
    return requestId;
  }

  /** Calls expect and returns once the server holds it open. */
  async function start(client: Client, args: Record<string, unknown>) {
    const before = server.core.waits.active();
    const call = callTool(client, 'expect', args, { ...WITH_PROGRESS, timeout: 30_000 });
    call.catch(() => undefined);
    await waitUntil(() => server.core.waits.active() > before, 'the expectation to be open');
    return call;
  }

  for (const door of ['http', 'stdio'] as const) {
    const client = () => (door === 'http' ? http : stdio);

    it(`${door}: passes for the mail, then the webhook, in order`, T, async () => {
      const sb = await ok(client(), 'create_sandbox', { name: 'expect' });
      const call = start(client(), {
        sandbox_id: sb.sandbox_id,
        conditions: [
          { stream: 'messages', filter: { subject_contains: 'Welcome' }, exactly: 1 },
          { stream: 'requests', filter: { method: 'POST', path_contains: '/webhooks' }, at_least: 1 },
        ],
        in_order: true,
        within_seconds: 20,
      });
      await mail(sb, 'Welcome to Acme');
      const id = await hook(sb, 'POST', '/webhooks/stripe');
      const { result, data } = await call;
      assert.notEqual(result.isError, true);
      assert.equal(data.result, 'pass', data.summary);
      assert.equal(data.failure, null);
      assert.equal(data.conditions[0].matched[0].subject, 'Welcome to Acme');
      assert.equal(data.conditions[1].matched[0].id, id);
      assert.match(data.hint, /^Pass: .*in order\.$/);
    });

    it(`${door}: exactly 1 with a quiet period fails on a second mail and says which`, T, async () => {
      const sb = await ok(client(), 'create_sandbox', { name: 'expect' });
      const since = new Date(server.clock.now().getTime() - 1).toISOString();
      await mail(sb, 'Welcome aboard');
      const call = start(client(), {
        sandbox_id: sb.sandbox_id,
        conditions: [{ stream: 'messages', filter: { subject_contains: 'welcome' }, exactly: 1 }],
        since,
        quiet_for_seconds: 2,
        within_seconds: 10,
      });
      await mail(sb, 'Welcome again');
      const { result, data } = await call;
      assert.notEqual(result.isError, true, 'a failed expectation is a result, not an error');
      assert.equal(data.result, 'fail');
      assert.equal(data.failure.problem, 'too_many');
      assert.equal(data.failure.item.subject, 'Welcome again');
      assert.match(data.summary, new RegExp(`one too many: message ${data.failure.item.id} "Welcome again"`));
      assert.match(data.hint, /get_email or get_request/);
    });

    it(`${door}: a missed deadline lists the closest items under the tool's argument names`, T, async () => {
      const sb = await ok(client(), 'create_sandbox', { name: 'expect' });
      // `since` from before the capture: without it, a capture that reaches the server before the call is let
      // in (a loaded machine) is outside the window and `since` joins its failed filters.
      const call = start(client(), {
        sandbox_id: sb.sandbox_id,
        conditions: [{ stream: 'requests', filter: { method: 'POST', path_contains: '/webhooks' } }],
        within_seconds: 1,
        since: new Date(Date.now() - 60_000).toISOString(),
      });
      const id = await hook(sb, 'POST', '/hooks/stripe');
      const { data } = await call;
      assert.equal(data.result, 'fail');
      assert.equal(data.failure.problem, 'too_few');
      const [closest, ...more] = data.conditions[0].closest;
      assert.deepEqual(more, []);
      assert.deepEqual(closest.failed_filters, ['path_contains']);
      assert.deepEqual(
        [closest.stream, closest.id, closest.method, closest.path],
        ['requests', id, 'POST', '/hooks/stripe'],
      );
      assert.match(data.hint, /loosen the filter named in its failed_filters/);
    });

    it(`${door}: refuses what cannot work as isError, naming the argument`, T, async () => {
      const sb = await ok(client(), 'create_sandbox', { name: 'expect' });
      const wrongStream = await fails(client(), 'expect', {
        sandbox_id: sb.sandbox_id,
        conditions: [{ stream: 'messages', filter: { method: 'POST' } }],
      });
      assert.match(wrongStream, /^INVALID_INPUT: .*conditions\[0\]\.filter/);
      const both = await fails(client(), 'expect', {
        sandbox_id: sb.sandbox_id,
        conditions: [{ stream: 'messages', exactly: 1, at_most: 2 }],
      });
      assert.match(both, /^INVALID_INPUT: .*conditions\[0\]\.exactly/);
      // No progress token: a call may last 50 s, and cutting the window would change the answer.
      const long = await fails(client(), 'expect', {
        sandbox_id: sb.sandbox_id,
        conditions: [{ stream: 'messages' }],
        within_seconds: 40,
        quiet_for_seconds: 20,
      });
      assert.match(long, /^INVALID_INPUT: within_seconds \+ quiet_for_seconds is 60 s/);
    });
  }
});
