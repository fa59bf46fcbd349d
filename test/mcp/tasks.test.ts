// The MCP Tasks extension (io.modelcontextprotocol/tasks, SEP-2663, 2026-07-28) over real Streamable HTTP: a
// wait started as a task outlives its connection and is read back from a new one, with the email sent after
// the first was gone; cancellation releases the waiter; another workspace cannot see the task; a client that
// does not declare the extension gets ordinary results. No published client starts tasks yet: the SDK v2
// client (2.4.0) refuses any `resultType: "task"` answer (UNSUPPORTED_RESULT_TYPE), so tasks are started with
// raw JSON-RPC over fetch, carrying the 2026-07-28 per-request `_meta` envelope and the SEP-2243 headers the SDK
// server checks (MCP-Protocol-Version, Mcp-Method, Mcp-Name); the SDK client reads them back with tasks/get.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { TaskStore } from '../../src/mcp/tasks/store.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { eventually } from '../helpers/poll.ts';
import { connectHttp, sendMail } from './client.ts';

const T = { timeout: 60_000 };
const TASKS = 'io.modelcontextprotocol/tasks';
const MODERN = '2026-07-28';
const DEFAULTS = new TaskStore();

interface RpcAnswer {
  status: number;
  result?: Record<string, any>;
  error?: { code: number; message: string; data?: any };
}

/** The reply's one JSON-RPC message, whether the server answered with JSON or an SSE stream. */
function messageOf(contentType: string, text: string): { result?: any; error?: any } {
  if (!contentType.includes('text/event-stream')) return JSON.parse(text);
  const data = text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .filter((line) => line !== '');
  return JSON.parse(data[data.length - 1] ?? 'null');
}

/**
 * One 2026-07-28 request as its own HTTP exchange (no session: each one is a new connection's first request).
 * `tasks` declares the extension in this request's client capabilities.
 */
async function rpc(
  apiUrl: string,
  key: string,
  method: string,
  params: Record<string, unknown>,
  { tasks = true }: { tasks?: boolean } = {},
): Promise<RpcAnswer> {
  const name =
    method === 'tools/call' ? params.name : method.startsWith('tasks/') ? params.taskId : undefined;
  const res = await fetch(`${apiUrl}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      // A new TCP connection each time: nothing of an earlier exchange carries over.
      connection: 'close',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'raw-tasks-test', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { [TASKS]: {} } } : {},
        },
      },
    }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  const message = messageOf(res.headers.get('content-type') ?? '', text);
  return { status: res.status, result: message.result, error: message.error };
}

/** An SDK v2 client pinned to 2026-07-28, declaring the Tasks extension (or not) on every request. */
async function sdkClient(apiUrl: string, key: string, tasks: boolean): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${apiUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: 'sdk-tasks-test', version: '1.0.0' }, {
    capabilities: tasks ? { extensions: { [TASKS]: {} } } : {},
    versionNegotiation: { mode: { pin: MODERN } },
  } as never);
  await client.connect(transport);
  return client;
}

const TaskResult = z.looseObject({
  taskId: z.string(),
  status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  ttlMs: z.number().nullable(),
  result: z.looseObject({}).optional(),
});

describeEachStore('MCP Tasks extension', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  const clients: Client[] = [];

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace('tasks');
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    server.api.server.closeAllConnections();
    await server.close();
  });

  async function newSandbox(): Promise<Record<string, any>> {
    const made = await rpc(server.apiUrl, ws.key, 'tools/call', {
      name: 'create_sandbox',
      arguments: { name: 'tasks test' },
    });
    assert.equal(made.result?.resultType, 'complete', JSON.stringify(made));
    return made.result?.structuredContent;
  }

  /** Starts wait_for_email as a task (raw JSON-RPC) and returns the CreateTaskResult. */
  async function startWait(sandboxId: string, key = ws.key): Promise<Record<string, any>> {
    const started = await rpc(server.apiUrl, key, 'tools/call', {
      name: 'wait_for_email',
      arguments: { sandbox_id: sandboxId, timeout_seconds: 300 },
    });
    assert.equal(started.status, 200);
    assert.equal(started.result?.resultType, 'task', JSON.stringify(started));
    return started.result as Record<string, any>;
  }

  it('advertises the extension in server/discover', T, async () => {
    const found = await rpc(server.apiUrl, ws.key, 'server/discover', {});
    assert.deepEqual(found.result?.capabilities?.extensions?.[TASKS], {});
  });

  it(
    'runs wait_for_email as a task that survives the connection and returns mail sent after it',
    T,
    async () => {
      const sb = await newSandbox();
      const before = server.core.waits.active();
      const task = await startWait(sb.sandbox_id);
      assert.match(task.taskId, /^[0-9a-f-]{36}$/);
      assert.equal(task.status, 'working');
      assert.equal(typeof task.createdAt, 'string');
      // The store's own figures: kept 15 min from creation (the longest wait is 300 s), polled every 2 s.
      assert.equal(task.ttlMs, DEFAULTS.ttlMs);
      assert.equal(task.pollIntervalMs, DEFAULTS.pollIntervalMs);
      // The exchange that created the task is over; the wait goes on without any connection.
      await eventually('the task wait to open', () => server.core.waits.active() === before + 1, 20_000, 20);
      const polled = await rpc(server.apiUrl, ws.key, 'tasks/get', { taskId: task.taskId });
      assert.equal(polled.result?.resultType, 'complete');
      assert.equal(polled.result?.status, 'working');
      assert.equal(polled.result?.result, undefined);

      await sendMail(server.ports.smtp, sb, {
        subject: 'Your code',
        text: 'Your verification code is 482913.',
      });

      // A new SDK client, a new connection: it reads the task back by its id alone.
      const reader = await sdkClient(server.apiUrl, ws.key, true);
      clients.push(reader);
      const done = await eventually(
        'the task to complete',
        async () => {
          const got = await reader.request(
            { method: 'tasks/get', params: { taskId: task.taskId } },
            TaskResult,
          );
          return got.status === 'working' ? undefined : got;
        },
        30_000,
        100,
      );
      assert.equal(done.status, 'completed', JSON.stringify(done));
      const result = done.result as Record<string, any>;
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.equal(result.structuredContent.status, 'received', JSON.stringify(result.structuredContent));
      assert.equal(result.structuredContent.email.otp.code, '482913');
      assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
      // A finished task reads the same on every poll.
      const again = await rpc(server.apiUrl, ws.key, 'tasks/get', { taskId: task.taskId });
      assert.deepEqual(again.result?.result, done.result);
    },
  );

  it('wait_for_request runs as a task too', T, async () => {
    const sb = await newSandbox();
    const before = server.core.waits.active();
    const started = await rpc(server.apiUrl, ws.key, 'tools/call', {
      name: 'wait_for_request',
      arguments: { sandbox_id: sb.sandbox_id, timeout_seconds: 300, method: 'POST' },
    });
    assert.equal(started.result?.resultType, 'task', JSON.stringify(started));
    await eventually('the task wait to open', () => server.core.waits.active() === before + 1, 20_000, 20);
    const res = await fetch(`${sb.capture_url}/hooks/stripe`, { method: 'POST', body: '{"id":"evt_1"}' });
    await res.text();
    const done = await eventually(
      'the task to complete',
      async () => {
        const got = await rpc(server.apiUrl, ws.key, 'tasks/get', { taskId: started.result?.taskId });
        return got.result?.status === 'working' ? undefined : got.result;
      },
      30_000,
      100,
    );
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.result.structuredContent.request.path, '/hooks/stripe');
  });

  it('cancels a task: it reads cancelled and its waiter is released', T, async () => {
    const sb = await newSandbox();
    const before = server.core.waits.active();
    const task = await startWait(sb.sandbox_id);
    await eventually('the task wait to open', () => server.core.waits.active() === before + 1, 20_000, 20);

    const cancelled = await rpc(server.apiUrl, ws.key, 'tasks/cancel', { taskId: task.taskId });
    assert.equal(cancelled.result?.resultType, 'complete', JSON.stringify(cancelled));
    const read = await rpc(server.apiUrl, ws.key, 'tasks/get', { taskId: task.taskId });
    assert.equal(read.result?.status, 'cancelled');
    assert.equal(read.result?.result, undefined);
    await eventually('the waiter to be released', () => server.core.waits.active() === before, 20_000, 20);

    // The mail the cancelled wait would have taken is still there for the next wait.
    await sendMail(server.ports.smtp, sb, { subject: 'Code', text: 'Your code is 771204.' });
    const next = await rpc(
      server.apiUrl,
      ws.key,
      'tools/call',
      { name: 'wait_for_email', arguments: { sandbox_id: sb.sandbox_id, timeout_seconds: 60 } },
      { tasks: false },
    );
    assert.equal(next.result?.structuredContent?.email?.otp?.code, '771204', JSON.stringify(next.result));
    // A cancelled task stays cancelled.
    const later = await rpc(server.apiUrl, ws.key, 'tasks/get', { taskId: task.taskId });
    assert.equal(later.result?.status, 'cancelled');
  });

  it("keeps a task from another workspace's key", T, async () => {
    const sb = await newSandbox();
    const task = await startWait(sb.sandbox_id);
    const other = await server.workspace('other');
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      const refused = await rpc(server.apiUrl, other.key, method, {
        taskId: task.taskId,
        inputResponses: {},
      });
      assert.equal(refused.result, undefined, `${method}: ${JSON.stringify(refused)}`);
      assert.equal(refused.error?.code, -32602, `${method}: ${JSON.stringify(refused)}`);
      assert.match(refused.error?.message ?? '', /Unknown task/);
    }
    // Through the SDK client as well.
    const stranger = await sdkClient(server.apiUrl, other.key, true);
    clients.push(stranger);
    await assert.rejects(
      stranger.request({ method: 'tasks/get', params: { taskId: task.taskId } }, TaskResult),
      /Unknown task/,
    );
    // The owner's task was not touched.
    const mine = await rpc(server.apiUrl, ws.key, 'tasks/get', { taskId: task.taskId });
    assert.equal(mine.result?.status, 'working');
    assert.deepEqual((await rpc(server.apiUrl, ws.key, 'tasks/cancel', { taskId: task.taskId })).result, {
      resultType: 'complete',
      _meta: mine.result?._meta,
    });
  });

  it('gives a client that does not declare the extension ordinary results', T, async () => {
    const sb = await newSandbox();
    await sendMail(server.ports.smtp, sb, { subject: 'Code', text: 'Your code is 305118.' });
    const raw = await rpc(
      server.apiUrl,
      ws.key,
      'tools/call',
      { name: 'wait_for_email', arguments: { sandbox_id: sb.sandbox_id, timeout_seconds: 30, peek: true } },
      { tasks: false },
    );
    assert.equal(raw.result?.resultType, 'complete', JSON.stringify(raw));
    assert.equal(raw.result?.structuredContent?.email?.otp?.code, '305118');

    const plain = await sdkClient(server.apiUrl, ws.key, false);
    clients.push(plain);
    const called: any = await plain.callTool({
      name: 'wait_for_email',
      arguments: { sandbox_id: sb.sandbox_id, timeout_seconds: 30 },
    });
    assert.ok(!called.isError, JSON.stringify(called));
    assert.equal(called.structuredContent.email.otp.code, '305118');

    // Without the declaration the task methods are refused with the missing capability named.
    const refused = await rpc(server.apiUrl, ws.key, 'tasks/get', { taskId: 'x' }, { tasks: false });
    assert.equal(refused.error?.code, -32021, JSON.stringify(refused));
    assert.deepEqual(refused.error?.data?.requiredCapabilities, { extensions: { [TASKS]: {} } });
  });

  it('answers the other tools directly even when the client declares the extension', T, async () => {
    const sb = await newSandbox();
    const got = await rpc(server.apiUrl, ws.key, 'tools/call', {
      name: 'get_sandbox',
      arguments: { sandbox_id: sb.sandbox_id },
    });
    assert.equal(got.result?.resultType, 'complete');
    assert.equal(got.result?.structuredContent?.sandbox_id, sb.sandbox_id);
    // A declaring SDK client calls them as before.
    const client = await sdkClient(server.apiUrl, ws.key, true);
    clients.push(client);
    const listed: any = await client.callTool({ name: 'list_sandboxes', arguments: {} });
    assert.ok(!listed.isError, JSON.stringify(listed));
    // Why the tasks are started with raw JSON-RPC: this client (2.4.0) cannot take a task handle yet.
    await assert.rejects(
      client.callTool({
        name: 'wait_for_email',
        arguments: { sandbox_id: sb.sandbox_id, timeout_seconds: 1 },
      }),
      (err: any) => err.code === 'UNSUPPORTED_RESULT_TYPE' && /'task'/.test(err.message),
    );
  });

  it('refuses bad arguments of a task-capable tool as the SDK does, without a task', T, async () => {
    const wrong = { sandbox_id: 'not-a-uuid', timeout_seconds: 'soon' };
    const raw = await rpc(server.apiUrl, ws.key, 'tools/call', { name: 'wait_for_email', arguments: wrong });
    assert.equal(raw.result?.resultType, 'complete', JSON.stringify(raw));
    assert.equal(raw.result?.isError, true);
    const text: string = raw.result?.content[0].text;
    assert.match(text, /^INVALID_INPUT: Invalid arguments for wait_for_email: .*timeout_seconds/);
    // The 2025 era (McpServer's own tools/call) words it the same.
    const legacy = await connectHttp(server.apiUrl, ws.key);
    try {
      const old: any = await legacy.callTool({ name: 'wait_for_email', arguments: wrong });
      assert.equal(old.content[0].text, text);
    } finally {
      await legacy.close();
    }
    const unknown = await rpc(server.apiUrl, ws.key, 'tools/call', { name: 'no_such_tool', arguments: {} });
    assert.equal(unknown.error?.code, -32602, JSON.stringify(unknown));
  });

  it(
    'has no tasks/result or tasks/list (removed by SEP-2663) and no task methods on the 2025 era',
    T,
    async () => {
      for (const method of ['tasks/result', 'tasks/list']) {
        const missing = await rpc(server.apiUrl, ws.key, method, { taskId: 'x' });
        assert.equal(missing.error?.code, -32601, `${method}: ${JSON.stringify(missing)}`);
      }
      const legacy = await connectHttp(server.apiUrl, ws.key);
      try {
        await assert.rejects(
          legacy.request({ method: 'tasks/get', params: { taskId: 'x' } }, z.looseObject({})),
          (err: any) => err.code === -32601,
        );
      } finally {
        await legacy.close();
      }
    },
  );
});
