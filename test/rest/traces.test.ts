// Traces (issue 38): with an in-memory exporter registered in this process, the server's spans (SMTP transaction,
// capture, store commit, wait, MCP tool call) are exported with their attributes, a traceparent arriving in a
// mail's or a captured request's headers is stored and returned (null when invalid), and a wait started by an
// agent's tool call (its `_meta.traceparent`) or a REST request (its `traceparent` header) is a child of that
// trace and links to the returned item's context.
import assert from 'node:assert/strict';
import { after, before, beforeEach, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { sandboxTransport } from '../helpers/mail.ts';
import { eventually } from '../helpers/poll.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { connectHttp } from '../mcp/client.ts';

// Global: provider, AsyncLocalStorage context manager and the W3C propagator, as the Node SDK would register.
const exporter = new InMemorySpanExporter();
new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).register();

const T = { timeout: 30_000 };

function newTraceparent(): { traceparent: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

const spans = (name: string) => exporter.getFinishedSpans().filter((s) => s.name === name);
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

describeEachStore('traces', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let sb: Record<string, any>;

  before(async () => {
    // The variable turns the API's request spans on; the SDK is this file's provider (src/cli starts the real one).
    server = await startTestServer(getStore(), { OTEL_TRACES_EXPORTER: 'otlp' });
    ws = await server.workspace();
    sb = await ws.createSandbox({ name: 'traced' });
  });
  after(async () => {
    await server.close();
  });
  beforeEach(() => exporter.reset());

  async function sendMail(headers: Record<string, string>, subject: string): Promise<void> {
    const t = sandboxTransport(server.ports.smtp, sb);
    try {
      await t.sendMail({ from: 'app@acme.test', to: 'user@example.test', subject, text: 'hi', headers });
    } finally {
      t.close();
    }
    server.clock.advance(5);
  }

  async function capture(headers: Record<string, string>): Promise<string> {
    const res = await fetch(`http://127.0.0.1:${server.ports.capture}/${sb.id}/hook?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: '{"a":1}',
    });
    await res.arrayBuffer();
    const id = res.headers.get('x-sandtrap-request-id');
    assert.ok(id !== null, `recorded, got ${res.status}`);
    server.clock.advance(5);
    return id;
  }

  async function messageBySubject(subject: string): Promise<Record<string, any>> {
    const res = await ws.api(`/sandboxes/${sb.id}/messages?q=${encodeURIComponent(subject)}`);
    assert.equal(res.status, 200);
    const [item] = ((await res.json()) as { items: Array<Record<string, any>> }).items;
    assert.ok(item !== undefined, `the message "${subject}" is listed`);
    return item;
  }

  it(
    'a mail traceparent is stored and returned in the summary and the detail; an invalid one is null',
    T,
    async () => {
      const { traceparent } = newTraceparent();
      await sendMail({ traceparent }, 'stored traceparent');
      await sendMail({ traceparent: '00-00000000000000000000000000000000-0000000000000000-01' }, 'zero ids');
      await sendMail({ traceparent: 'not-a-traceparent' }, 'garbage');
      const summary = await messageBySubject('stored traceparent');
      assert.equal(summary.traceparent, traceparent);
      const detail = (await (await ws.api(`/sandboxes/${sb.id}/messages/${summary.id}`)).json()) as any;
      assert.equal(detail.traceparent, traceparent);
      assert.equal((await messageBySubject('zero ids')).traceparent, null);
      assert.equal((await messageBySubject('garbage')).traceparent, null);

      // One transaction span per mail, with its listener, recipients, size and reply.
      const smtp = spans('smtp transaction');
      assert.equal(smtp.length, 3);
      for (const s of smtp) {
        assert.equal(s.attributes['sandtrap.smtp.listener'], 'submission');
        assert.equal(s.attributes['sandtrap.smtp.recipients'], 1);
        assert.equal(s.attributes['sandtrap.smtp.reply_code'], 250);
        assert.ok((s.attributes['sandtrap.smtp.message.size'] as number) > 0);
      }
      const commits = spans('store commit').filter((s) => s.attributes['db.collection.name'] === 'messages');
      assert.ok(commits.length >= 1, 'the messages were committed in traced batches');
      const committed = commits.reduce((n, s) => n + (s.attributes['db.operation.batch.size'] as number), 0);
      assert.equal(committed, 3, 'every message is in one committed batch');
      assert.ok(
        commits.every((s) => s.parentSpanContext === undefined),
        'a batch is a root span',
      );
    },
  );

  it(
    'a captured request traceparent is stored and returned; the capture span continues its trace',
    T,
    async () => {
      const { traceparent, traceId, spanId } = newTraceparent();
      const id = await capture({ traceparent });
      const bad = await capture({ traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}` });
      const list = (await (await ws.api(`/sandboxes/${sb.id}/requests`)).json()) as { items: any[] };
      assert.equal(list.items.find((r) => r.id === id)?.traceparent, traceparent);
      assert.equal(list.items.find((r) => r.id === bad)?.traceparent, null);
      const detail = (await (await ws.api(`/sandboxes/${sb.id}/requests/${id}`)).json()) as any;
      assert.equal(detail.traceparent, traceparent);

      const captured = await eventually('both capture spans are exported', () => {
        const found = spans('capture request');
        return found.length === 2 ? found : undefined;
      });
      const child = captured.find((s) => s.spanContext().traceId === traceId);
      assert.ok(child !== undefined, 'the capture span is in the sender trace');
      assert.equal(parentOf(child), spanId);
      assert.equal(child.attributes['http.request.method'], 'POST');
      assert.equal(child.attributes['url.path'], `/${sb.id}/hook`);
      assert.equal(child.attributes['http.response.status_code'], 200);
      const commits = spans('store commit').filter((s) => s.attributes['db.collection.name'] === 'requests');
      assert.equal(
        commits.reduce((n, s) => n + (s.attributes['db.operation.batch.size'] as number), 0),
        2,
      );
    },
  );

  it(
    'wait_for_email with _meta.traceparent: the tool span is its child, the wait span links the mail',
    T,
    async () => {
      const sent = newTraceparent();
      await sendMail({ traceparent: sent.traceparent }, 'for the agent');
      const message = await messageBySubject('for the agent');
      const agent = newTraceparent();
      const client: Client = await connectHttp(server.apiUrl, ws.key);
      try {
        exporter.reset();
        const result = await client.callTool({
          name: 'wait_for_email',
          arguments: { sandbox_id: sb.id, subject_contains: 'for the agent', timeout_seconds: 5 },
          _meta: { traceparent: agent.traceparent },
        });
        assert.notEqual(result.isError, true, JSON.stringify(result.content));
        const email = (result.structuredContent as any).email;
        assert.equal(email.id, message.id);
        assert.equal(email.traceparent, sent.traceparent, 'the MCP result carries the stored traceparent');
      } finally {
        await client.close();
      }
      const [tool] = spans('tools/call wait_for_email');
      assert.ok(tool !== undefined, 'the tool call has a span');
      assert.equal(tool.spanContext().traceId, agent.traceId);
      assert.equal(parentOf(tool), agent.spanId);
      assert.equal(tool.attributes['gen_ai.tool.name'], 'wait_for_email');
      assert.equal(tool.attributes['mcp.method.name'], 'tools/call');
      assert.equal(tool.attributes['sandtrap.mcp.is_error'], false);

      const [wait] = spans('wait');
      assert.ok(wait !== undefined, 'the wait has a span');
      assert.equal(wait.spanContext().traceId, agent.traceId);
      assert.equal(parentOf(wait), tool.spanContext().spanId);
      assert.equal(wait.attributes['sandtrap.wait.kind'], 'message');
      assert.equal(wait.attributes['sandtrap.wait.outcome'], 'found');
      assert.deepEqual(
        wait.links.map((l) => [l.context.traceId, l.context.spanId]),
        [[sent.traceId, sent.spanId]],
      );
    },
  );

  it('a tool call that fails is marked isError on its span', T, async () => {
    const client: Client = await connectHttp(server.apiUrl, ws.key);
    try {
      const result = await client.callTool({
        name: 'get_email',
        arguments: { sandbox_id: sb.id, email_id: '00000000-0000-4000-8000-000000000000' },
      });
      assert.equal(result.isError, true);
    } finally {
      await client.close();
    }
    const [tool] = spans('tools/call get_email');
    assert.ok(tool !== undefined);
    assert.equal(tool.attributes['sandtrap.mcp.is_error'], true);
    assert.equal(tool.attributes['error.type'], 'tool_error');
  });

  it('a REST wait continues the request traceparent and links the returned request', T, async () => {
    const sent = newTraceparent();
    const id = await capture({ traceparent: sent.traceparent });
    const caller = newTraceparent();
    const res = await ws.api(`/sandboxes/${sb.id}/requests/wait?timeoutSeconds=5`, {
      headers: { traceparent: caller.traceparent },
    });
    assert.equal(res.status, 200);
    const body = (await res.json()) as any;
    assert.equal(body.id, id);
    assert.equal(body.traceparent, sent.traceparent);
    const wait = await eventually('the wait span is exported', () => spans('wait')[0]);
    assert.equal(wait.spanContext().traceId, caller.traceId, 'the wait is in the caller trace');
    assert.equal(wait.attributes['sandtrap.wait.kind'], 'request');
    assert.deepEqual(
      wait.links.map((l) => [l.context.traceId, l.context.spanId]),
      [[sent.traceId, sent.spanId]],
    );
  });
});
