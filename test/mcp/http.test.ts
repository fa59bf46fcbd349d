// The MCP server over real Streamable HTTP (POST /mcp on the API listener), driven by the v1
// @modelcontextprotocol/sdk Client: the tool list with its schemas and annotations, every tool with realistic
// arguments (mail in through real SMTP, requests through the real capture listener), waits that see arrivals,
// time out as results, report progress and release their waiter on abort, error results that name the next
// step, and the route's auth and Host/Origin checks.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { after, before, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { generateApiKey } from '../../src/core/apiKeyFormat.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { endWaitsAfterArrival, NEVER_SECONDS } from '../helpers/waitEnd.ts';
import {
  callTool,
  capture,
  connectHttp,
  fails,
  ok,
  sendMail,
  TOOL_NAMES,
  UUID_RE,
  waitUntil,
  WITH_PROGRESS,
} from './client.ts';

/** Every test finishes well inside this; a hung call fails the test instead of the run. */
const T = { timeout: 30_000 };

const NEXT_STEP_RE = /list_sandboxes|create_sandbox/;

/** A raw POST /mcp (node:http, so Host and Origin can be set freely). */
function rawMcp(
  apiUrl: string,
  headers: Record<string, string>,
  method = 'POST',
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const url = new URL(`${apiUrl}/mcp`);
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1.0.0' },
    },
  });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        headers: {
          accept: 'application/json, text/event-stream',
          ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        timeout: 5_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('raw /mcp request timed out')));
    req.on('error', reject);
    if (method === 'POST') req.end(body);
    else req.end();
  });
}

describeEachStore('MCP over Streamable HTTP', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let client: Client;
  const clients: Client[] = [];

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace('mcp');
    client = await connectHttp(server.apiUrl, ws.key);
    clients.push(client);
  });

  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    // Aborted calls can leave idle keep-alive sockets behind; do not let them hold the close.
    server.api.server.closeAllConnections();
    await server.close();
  });

  /** A fresh sandbox through the tool; returns its structuredContent. */
  async function newSandbox(args: Record<string, unknown> = {}): Promise<Record<string, any>> {
    return ok(client, 'create_sandbox', { name: 'mcp test', ...args });
  }

  // ---- tools/list and instructions ----

  it('lists exactly every tool, each with input and output schemas and honest annotations', T, async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', `${tool.name} inputSchema`);
      assert.ok(tool.outputSchema !== undefined, `${tool.name} declares an outputSchema`);
      assert.equal(tool.outputSchema.type, 'object', `${tool.name} outputSchema`);
      assert.ok(
        Object.keys(tool.outputSchema.properties ?? {}).includes('hint'),
        `${tool.name} outputSchema has hint`,
      );
      assert.ok((tool.description ?? '').length > 20, `${tool.name} has a description`);
      assert.ok(tool.annotations !== undefined, `${tool.name} has annotations`);
    }
    const readOnly = [
      'extract_otp',
      'extract_from_body',
      'list_sandboxes',
      'get_sandbox',
      'list_emails',
      'get_email',
      'list_requests',
      'get_request',
    ];
    for (const name of readOnly) {
      assert.equal(byName.get(name)?.annotations?.readOnlyHint, true, `${name} is readOnlyHint`);
    }
    // The waits mark what they return read, so an agent never gets the same code twice.
    for (const name of [
      'create_sandbox',
      'delete_sandbox',
      'set_mock_rules',
      'wait_for_email',
      'wait_for_request',
    ]) {
      assert.equal(byName.get(name)?.annotations?.readOnlyHint, false, `${name} is not read-only`);
    }
    const del = byName.get('delete_sandbox')?.annotations;
    assert.equal(del?.destructiveHint, true);
    assert.equal(del?.idempotentHint, true);
    const create = byName.get('create_sandbox')?.annotations;
    assert.equal(create?.idempotentHint, false);
    assert.equal(create?.destructiveHint, false);
    // snake_case parameters
    const wait = byName.get('wait_for_email');
    assert.ok(Object.keys(wait?.inputSchema.properties ?? {}).includes('sandbox_id'));
    assert.ok(Object.keys(wait?.inputSchema.properties ?? {}).includes('timeout_seconds'));
    assert.deepEqual(wait?.inputSchema.required, ['sandbox_id']);
  });

  it('gives instructions that describe the create -> wait flow', T, () => {
    const instructions = client.getInstructions() ?? '';
    assert.match(instructions, /create_sandbox/);
    assert.match(instructions, /wait_for_email/);
    assert.match(instructions, /capture_url/);
    assert.ok(
      instructions.indexOf('create_sandbox') < instructions.indexOf('wait_for_email'),
      'create comes before wait',
    );
    assert.equal(client.getServerVersion()?.name, 'sandtrap');
  });

  // ---- sandboxes ----

  it(
    'create_sandbox defaults: ephemeral for 60 minutes, credentials, address, capture URL, hint',
    T,
    async () => {
      const before = server.clock.now().getTime();
      const sb = await ok(client, 'create_sandbox', {});
      const after = server.clock.now().getTime();
      assert.match(sb.sandbox_id, UUID_RE);
      assert.equal(sb.name, 'agent sandbox');
      assert.equal(sb.email_address, `inbox@${sb.sandbox_id}.capture.localhost`);
      assert.equal(sb.email_domain, `${sb.sandbox_id}.capture.localhost`);
      assert.equal(sb.smtp.host, '127.0.0.1');
      assert.equal(sb.smtp.port, server.ports.smtp);
      assert.equal(typeof sb.smtp.username, 'string');
      assert.ok(sb.smtp.username.length > 0);
      assert.ok(sb.smtp.password.length >= 16, 'a real password');
      assert.equal(sb.smtp.starttls, true);
      assert.equal(sb.capture_url, `http://127.0.0.1:${server.ports.capture}/${sb.sandbox_id}`);
      const created = Date.parse(sb.created_at);
      assert.ok(before <= created && created <= after, `created_at ${sb.created_at} is during the call`);
      assert.equal(Date.parse(sb.expires_at) - created, 60 * 60_000, 'expires 60 minutes after creation');
      assert.deepEqual(sb.tags, {});
      assert.deepEqual(sb.mock_rules, []);
      assert.ok(sb.hint.includes(sb.sandbox_id), 'the hint names the sandbox');
      assert.match(sb.hint, /wait_for_email/);
      // The REST API sees the same sandbox.
      const res = await ws.api(`/sandboxes/${sb.sandbox_id}`);
      assert.equal(res.status, 200);
      const rest = (await res.json()) as Record<string, any>;
      assert.equal(rest.smtpPassword, sb.smtp.password);
      assert.equal(rest.isEphemeral, true);
    },
  );

  it('create_sandbox with name, tags, ttl and mock_rules: the capture URL answers them', T, async () => {
    const sb = await newSandbox({
      name: 'signup flow',
      ttl_minutes: 5,
      tags: { branch: 'feature-otp' },
      mock_rules: [
        {
          name: 'signup',
          method: 'POST',
          pattern: '/api/signup',
          status_code: 201,
          headers: { 'X-Mock': 'signup' },
          body: '{"ok":true,"email":"{{body.email}}"}',
        },
      ],
    });
    assert.equal(sb.name, 'signup flow');
    assert.deepEqual(sb.tags, { branch: 'feature-otp' });
    assert.equal(Date.parse(sb.expires_at) - Date.parse(sb.created_at), 5 * 60_000);
    assert.equal(sb.mock_rules.length, 1);
    assert.equal(sb.mock_rules[0].name, 'signup');
    assert.equal(sb.mock_rules[0].method, 'POST');
    assert.equal(sb.mock_rules[0].status_code, 201);
    assert.match(sb.mock_rules[0].id, UUID_RE);

    const reply = await capture(sb.capture_url, '/api/signup', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ada@example.test' }),
    });
    assert.equal(reply.status, 201);
    assert.equal(reply.headers.get('x-mock'), 'signup');
    assert.deepEqual(JSON.parse(reply.body), { ok: true, email: 'ada@example.test' });
  });

  it('create_sandbox with ttl_minutes null keeps the sandbox until deleted', T, async () => {
    const sb = await newSandbox({ ttl_minutes: null });
    assert.equal(sb.expires_at, null);
    const rest = (await (await ws.api(`/sandboxes/${sb.sandbox_id}`)).json()) as Record<string, any>;
    assert.equal(rest.isEphemeral, false);
  });

  it('get_sandbox returns the sandbox with its mock rules', T, async () => {
    const sb = await newSandbox({ name: 'get me', tags: { team: 'growth' } });
    const got = await ok(client, 'get_sandbox', { sandbox_id: sb.sandbox_id });
    assert.equal(got.sandbox_id, sb.sandbox_id);
    assert.equal(got.name, 'get me');
    assert.equal(got.email_address, sb.email_address);
    assert.deepEqual(got.smtp, sb.smtp);
    assert.equal(got.capture_url, sb.capture_url);
    assert.equal(got.expires_at, sb.expires_at);
    assert.deepEqual(got.tags, { team: 'growth' });
    assert.deepEqual(got.mock_rules, []);
  });

  it('list_sandboxes lists newest first and searches name, id and tags', T, async () => {
    const marker = `lst-${randomUUID().slice(0, 8)}`;
    const a = await newSandbox({ name: `${marker} alpha` });
    const b = await newSandbox({ name: 'unrelated', tags: { suite: marker } });
    await newSandbox({ name: 'other' });
    const found = await ok(client, 'list_sandboxes', { query: marker });
    assert.deepEqual(
      found.sandboxes.map((s: any) => s.sandbox_id),
      [b.sandbox_id, a.sandbox_id],
    );
    assert.equal(found.next_cursor, null);
    assert.equal(found.sandboxes[1].name, `${marker} alpha`);
    assert.equal(found.sandboxes[1].email_address, a.email_address);
    const byId = await ok(client, 'list_sandboxes', { query: a.sandbox_id });
    assert.deepEqual(
      byId.sandboxes.map((s: any) => s.sandbox_id),
      [a.sandbox_id],
    );
    const none = await ok(client, 'list_sandboxes', { query: `${marker}-nothing` });
    assert.deepEqual(none.sandboxes, []);
    // Paging: limit 1 gives a cursor that reaches the second one.
    const first = await ok(client, 'list_sandboxes', { query: marker, limit: 1 });
    assert.equal(first.sandboxes.length, 1);
    assert.equal(typeof first.next_cursor, 'string');
    const second = await ok(client, 'list_sandboxes', { query: marker, limit: 1, cursor: first.next_cursor });
    assert.deepEqual(
      second.sandboxes.map((s: any) => s.sandbox_id),
      [a.sandbox_id],
    );
  });

  it('set_mock_rules replaces the rules and the capture URL answers them', T, async () => {
    const sb = await newSandbox();
    const set = await ok(client, 'set_mock_rules', {
      sandbox_id: sb.sandbox_id,
      rules: [
        {
          name: 'user',
          method: 'GET',
          pattern: '/users/{id}',
          status_code: 200,
          headers: { 'Content-Type': 'application/json' },
          body: '{"id":"{{path.id}}","role":"admin"}',
        },
        { name: 'teapot', pattern: '/brew', status_code: 418, body: 'short and stout' },
        { name: 'rest', is_fallback: true, status_code: 404, body: '{"error":"no rule"}' },
      ],
    });
    assert.equal(set.sandbox_id, sb.sandbox_id);
    assert.equal(set.capture_url, sb.capture_url);
    assert.deepEqual(
      set.mock_rules.map((r: any) => [r.name, r.method, r.pattern, r.status_code, r.is_fallback]),
      [
        ['user', 'GET', '/users/{id}', 200, false],
        // An omitted method is stored as ANY, an omitted pattern as /** (any path).
        ['teapot', 'ANY', '/brew', 418, false],
        ['rest', 'ANY', '/**', 404, true],
      ],
    );
    assert.ok(set.hint.includes(sb.capture_url));

    const user = await capture(sb.capture_url, '/users/42');
    assert.equal(user.status, 200);
    assert.deepEqual(JSON.parse(user.body), { id: '42', role: 'admin' });
    const brew = await capture(sb.capture_url, '/brew', { method: 'POST', body: 'x' });
    assert.equal(brew.status, 418);
    assert.equal(brew.body, 'short and stout');
    const other = await capture(sb.capture_url, '/nowhere');
    assert.equal(other.status, 404);
    assert.deepEqual(JSON.parse(other.body), { error: 'no rule' });

    // get_sandbox shows the same list; an empty list restores the default reply.
    const got = await ok(client, 'get_sandbox', { sandbox_id: sb.sandbox_id });
    assert.deepEqual(got.mock_rules, set.mock_rules);
    const cleared = await ok(client, 'set_mock_rules', { sandbox_id: sb.sandbox_id, rules: [] });
    assert.deepEqual(cleared.mock_rules, []);
    const dflt = await capture(sb.capture_url, '/users/42');
    assert.equal(dflt.status, 200);
    assert.deepEqual(JSON.parse(dflt.body), {});
  });

  it('set_mock_rules refuses two fallback rules with an isError naming the problem', T, async () => {
    const sb = await newSandbox();
    const text = await fails(client, 'set_mock_rules', {
      sandbox_id: sb.sandbox_id,
      rules: [{ is_fallback: true }, { is_fallback: true }],
    });
    assert.match(text, /^INVALID_INPUT: /);
    assert.match(text, /fallback/i);
  });

  it('delete_sandbox removes it; get_sandbox is then NOT_FOUND', T, async () => {
    const sb = await newSandbox();
    const del = await ok(client, 'delete_sandbox', { sandbox_id: sb.sandbox_id });
    assert.equal(del.deleted, true);
    assert.equal(del.sandbox_id, sb.sandbox_id);
    assert.match(del.hint, /create_sandbox/);
    const text = await fails(client, 'get_sandbox', { sandbox_id: sb.sandbox_id });
    assert.match(text, /^NOT_FOUND: /);
    assert.match(text, NEXT_STEP_RE);
    const listed = await ok(client, 'list_sandboxes', { query: sb.sandbox_id });
    assert.deepEqual(listed.sandboxes, []);
  });

  // ---- emails ----

  it('list_emails and get_email read mail sent over SMTP, with the code and links extracted', T, async () => {
    const sb = await newSandbox();
    const empty = await ok(client, 'list_emails', { sandbox_id: sb.sandbox_id });
    assert.deepEqual(empty.emails, []);
    assert.equal(empty.next_cursor, null);
    assert.match(empty.hint, /wait_for_email/);

    await sendMail(server.ports.smtp, sb, {
      to: 'ada@example.test',
      subject: 'Welcome aboard',
      text: 'Hi Ada, thanks for joining.',
    });
    await sendMail(server.ports.smtp, sb, {
      to: 'bob@example.test',
      subject: 'Confirm your account',
      text: 'Your verification code is 615243.\n\nOr confirm here: https://app.example.test/verify?token=abc123',
      html:
        '<p>Your verification code is <b>615243</b>.</p>' +
        '<p><a href="https://app.example.test/verify?token=abc123">Verify email</a></p>',
    });

    const list = await ok(client, 'list_emails', { sandbox_id: sb.sandbox_id });
    assert.deepEqual(
      list.emails.map((e: any) => e.subject),
      ['Confirm your account', 'Welcome aboard'],
    );
    const newest = list.emails[0];
    assert.match(newest.id, UUID_RE);
    assert.equal(newest.from, 'Acme <no-reply@acme.test>');
    assert.deepEqual(newest.to, ['bob@example.test']);
    assert.deepEqual(newest.captured_for, ['bob@example.test']);
    assert.equal(newest.is_read, false);
    assert.equal(newest.attachment_count, 0);
    assert.match(newest.preview, /615243/);
    assert.match(list.hint, /get_email/);

    const searched = await ok(client, 'list_emails', { sandbox_id: sb.sandbox_id, query: 'welcome' });
    assert.deepEqual(
      searched.emails.map((e: any) => e.subject),
      ['Welcome aboard'],
    );
    const forAda = await ok(client, 'list_emails', { sandbox_id: sb.sandbox_id, to: 'ada@example.test' });
    assert.deepEqual(
      forAda.emails.map((e: any) => e.subject),
      ['Welcome aboard'],
    );

    const got = await ok(client, 'get_email', { sandbox_id: sb.sandbox_id, email_id: newest.id });
    const email = got.email;
    assert.equal(email.id, newest.id);
    assert.equal(email.subject, 'Confirm your account');
    assert.match(email.text, /Your verification code is 615243/);
    assert.equal(email.has_html, true);
    assert.equal(email.otp.status, 'found');
    assert.equal(email.otp.code, '615243');
    assert.ok(email.otp.confidence > 0.5);
    const verify = email.links.find((l: any) => l.url === 'https://app.example.test/verify?token=abc123');
    assert.ok(verify !== undefined, `the verify link is extracted: ${JSON.stringify(email.links)}`);
    assert.equal(verify.kind, 'verify');
    assert.deepEqual(email.attachments, []);
    assert.equal(email.parse_error, null, 'a mail read whole has no parse_error');
    assert.match(got.hint, /615243/);

    const missing = await fails(client, 'get_email', { sandbox_id: sb.sandbox_id, email_id: randomUUID() });
    assert.match(missing, /^NOT_FOUND: /);
  });

  it(
    'wait_for_email returns mail that arrives during the wait, with its code and links extracted',
    T,
    async () => {
      const sb = await newSandbox();
      // A 300 s wait answered inside the test's timeout: the arrival ended it, not its timer.
      const pending = ok(client, 'wait_for_email', {
        sandbox_id: sb.sandbox_id,
        timeout_seconds: NEVER_SECONDS,
      });
      await waitUntil(() => server.core.waits.active() >= 1, 'the wait to open');
      await sendMail(server.ports.smtp, sb, {
        subject: 'Verify your email',
        text: 'Your verification code is 482913\n\nOr open https://app.example.test/verify?token=t0k3n to confirm.',
      });
      const result = await pending;
      assert.equal(result.status, 'received');
      assert.equal(result.non_matching_arrivals, 0);
      assert.equal(result.email.subject, 'Verify your email');
      assert.equal(result.email.from, 'Acme <no-reply@acme.test>');
      assert.equal(result.email.otp.code, '482913');
      assert.equal(result.email.otp.status, 'found');
      assert.ok(
        result.email.links.some(
          (l: any) => l.url === 'https://app.example.test/verify?token=t0k3n' && l.kind === 'verify',
        ),
        `links extracted: ${JSON.stringify(result.email.links)}`,
      );
      assert.match(result.hint, /482913/);
      assert.ok(result.hint.includes(result.email.id), 'the hint names the id to pass as after');

      // A second wait after that email does not return it again.
      const again = await ok(client, 'wait_for_email', {
        sandbox_id: sb.sandbox_id,
        timeout_seconds: 1,
        after: result.email.id,
      });
      assert.equal(again.status, 'timeout');
      assert.equal(again.email, null);

      // Without `after`, unread_only: false brings the newest existing match back at once, read or not.
      const existing = await ok(client, 'wait_for_email', {
        sandbox_id: sb.sandbox_id,
        timeout_seconds: 0,
        unread_only: false,
      });
      assert.equal(existing.status, 'received');
      assert.equal(existing.email.id, result.email.id);

      // The next email after it is found, with its own code.
      const next = ok(client, 'wait_for_email', {
        sandbox_id: sb.sandbox_id,
        timeout_seconds: NEVER_SECONDS,
        after: result.email.id,
      });
      await waitUntil(() => server.core.waits.active() >= 1, 'the second wait to open');
      await sendMail(server.ports.smtp, sb, { subject: 'New code', text: 'Your login code: 771204' });
      const second = await next;
      assert.equal(second.status, 'received');
      assert.notEqual(second.email.id, result.email.id);
      assert.equal(second.email.otp.code, '771204');
    },
  );

  it('wait_for_email filters by subject and counts arrivals that did not match', T, async () => {
    const sb = await newSandbox();
    const pending = ok(
      client,
      'wait_for_email',
      { sandbox_id: sb.sandbox_id, timeout_seconds: NEVER_SECONDS, subject_contains: 'password reset' },
      WITH_PROGRESS,
    );
    await waitUntil(() => server.core.waits.active() >= 1, 'the wait to open');
    // Ended as by its timeout once it has seen the arrival, however long the send took.
    await endWaitsAfterArrival(server, ws, sb.sandbox_id, 'messages', () =>
      sendMail(server.ports.smtp, sb, { subject: 'Weekly newsletter', text: 'News 1234' }),
    );
    const result = await pending;
    assert.equal(result.status, 'timeout');
    assert.equal(result.email, null);
    assert.equal(result.non_matching_arrivals, 1);
    assert.match(result.hint, /did not match/);

    const pending2 = ok(client, 'wait_for_email', {
      sandbox_id: sb.sandbox_id,
      timeout_seconds: NEVER_SECONDS,
      subject_contains: 'PASSWORD RESET',
    });
    await waitUntil(() => server.core.waits.active() >= 1, 'the wait to open');
    await sendMail(server.ports.smtp, sb, {
      subject: 'Your password reset link',
      html: '<a href="https://app.example.test/reset-password?t=r35et">Reset password</a>',
    });
    const found = await pending2;
    assert.equal(found.status, 'received');
    assert.equal(found.email.subject, 'Your password reset link');
    assert.equal(found.email.links[0]?.kind, 'reset');
  });

  it('a wait that times out is a normal result with status "timeout" and a hint', T, async () => {
    const sb = await newSandbox();
    let seenOpen = false;
    const call = callTool(client, 'wait_for_email', { sandbox_id: sb.sandbox_id, timeout_seconds: 1 });
    // Seen open before it answered (the poll's timer is due before the wait's 1 s one): it waited.
    await waitUntil(() => (seenOpen = server.core.waits.active() === 1), 'the wait to open');
    const out = await call;
    assert.ok(seenOpen);
    assert.ok(!out.result.isError, `not an error: ${out.text}`);
    assert.equal(out.data.status, 'timeout');
    assert.equal(out.data.email, null);
    assert.equal(out.data.non_matching_arrivals, 0);
    assert.match(out.data.hint, /Nothing arrived/);
    assert.equal(server.core.waits.active(), 0);

    const req = await callTool(client, 'wait_for_request', { sandbox_id: sb.sandbox_id, timeout_seconds: 1 });
    assert.ok(!req.result.isError, `not an error: ${req.text}`);
    assert.equal(req.data.status, 'timeout');
    assert.equal(req.data.request, null);
    assert.ok(req.data.hint.length > 0);
  });

  // ---- requests ----

  it('list_requests and get_request read a capture', T, async () => {
    const sb = await newSandbox();
    const empty = await ok(client, 'list_requests', { sandbox_id: sb.sandbox_id });
    assert.deepEqual(empty.requests, []);
    assert.match(empty.hint, /wait_for_request/);

    const sent = await capture(sb.capture_url, '/webhooks/stripe?attempt=1&attempt=2', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Signature': 'sig-abc' },
      body: JSON.stringify({ type: 'invoice.paid', data: { id: 'in_1', amount: 4200 } }),
    });
    assert.equal(sent.status, 200);
    await capture(sb.capture_url, '/health');

    const list = await ok(client, 'list_requests', { sandbox_id: sb.sandbox_id });
    assert.deepEqual(
      list.requests.map((r: any) => [r.method, r.path]),
      [
        ['GET', '/health'],
        ['POST', '/webhooks/stripe'],
      ],
    );
    const summary = list.requests[1];
    assert.equal(summary.id, sent.requestId);
    assert.equal(summary.query, 'attempt=1&attempt=2');
    assert.equal(summary.mock_status_code, 200);
    assert.equal(summary.mock_name, null);
    assert.match(list.hint, /get_request/);

    const searched = await ok(client, 'list_requests', { sandbox_id: sb.sandbox_id, query: 'stripe' });
    assert.deepEqual(
      searched.requests.map((r: any) => r.id),
      [sent.requestId],
    );

    const got = await ok(client, 'get_request', {
      sandbox_id: sb.sandbox_id,
      request_id: sent.requestId,
      include: ['json'],
    });
    const r = got.request;
    assert.equal(r.id, sent.requestId);
    assert.equal(r.method, 'POST');
    assert.equal(r.path, '/webhooks/stripe');
    assert.deepEqual(r.query_params, [
      { name: 'attempt', value: '1' },
      { name: 'attempt', value: '2' },
    ]);
    assert.ok(
      r.headers.some((h: any) => h.name.toLowerCase() === 'x-signature' && h.value === 'sig-abc'),
      'headers kept',
    );
    assert.deepEqual(r.json, { type: 'invoice.paid', data: { id: 'in_1', amount: 4200 } });
    assert.equal(r.body, JSON.stringify({ type: 'invoice.paid', data: { id: 'in_1', amount: 4200 } }));
    assert.equal(r.body_truncated, false);
    assert.match(got.hint, /extract_from_body/);

    const missing = await fails(client, 'get_request', {
      sandbox_id: sb.sandbox_id,
      request_id: randomUUID(),
    });
    assert.match(missing, /^NOT_FOUND: /);
  });

  it('wait_for_request returns a matching request that arrives during the wait', T, async () => {
    const sb = await newSandbox();
    const pending = ok(client, 'wait_for_request', {
      sandbox_id: sb.sandbox_id,
      timeout_seconds: NEVER_SECONDS,
      method: 'post',
      path_contains: '/hooks/',
      include: ['json'],
    });
    await waitUntil(() => server.core.waits.active() >= 1, 'the wait to open');
    await capture(sb.capture_url, '/hooks/signup'); // GET: wrong method
    await capture(sb.capture_url, '/other', { method: 'POST', body: 'x' }); // wrong path
    const sent = await capture(sb.capture_url, '/hooks/signup?src=test', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ada@example.test', code: '129034' }),
    });
    const result = await pending;
    assert.equal(result.status, 'received');
    assert.equal(result.request.id, sent.requestId);
    assert.equal(result.request.method, 'POST');
    assert.equal(result.request.path, '/hooks/signup');
    assert.equal(result.request.query, 'src=test');
    assert.deepEqual(result.request.json, { email: 'ada@example.test', code: '129034' });
    assert.ok(result.hint.includes(sent.requestId));

    const again = await ok(client, 'wait_for_request', {
      sandbox_id: sb.sandbox_id,
      timeout_seconds: 1,
      method: 'POST',
      path_contains: '/hooks/',
      after: sent.requestId,
    });
    assert.equal(again.status, 'timeout');
    assert.equal(again.request, null);

    const miss = ok(
      client,
      'wait_for_request',
      {
        sandbox_id: sb.sandbox_id,
        timeout_seconds: NEVER_SECONDS,
        path_contains: '/never',
        after: sent.requestId,
      },
      WITH_PROGRESS,
    );
    await waitUntil(() => server.core.waits.active() >= 1, 'the wait to open');
    await endWaitsAfterArrival(server, ws, sb.sandbox_id, 'requests', () =>
      capture(sb.capture_url, '/elsewhere'),
    );
    const missed = await miss;
    assert.equal(missed.status, 'timeout');
    assert.equal(missed.non_matching_arrivals, 1);
    assert.match(missed.hint, /did not match/);
  });

  // ---- extraction ----

  it(
    'extract_otp: newest email by default, a given email, a request body, a pattern, not_found',
    T,
    async () => {
      const sb = await newSandbox();
      const none = await fails(client, 'extract_otp', { sandbox_id: sb.sandbox_id });
      assert.match(none, /^NOT_FOUND: /);
      assert.match(none, /wait_for_email/);

      await sendMail(server.ports.smtp, sb, {
        subject: 'Your sign-in code',
        text: 'Your one-time passcode is 305518. It expires in 10 minutes.',
      });
      const older = (await ok(client, 'list_emails', { sandbox_id: sb.sandbox_id })).emails[0];
      await sendMail(server.ports.smtp, sb, {
        subject: 'Order shipped',
        text: 'Order #88123455 shipped on 2024-05-01. Your verification code is 904417. Call 555-0100 for help.',
      });
      const newest = (await ok(client, 'list_emails', { sandbox_id: sb.sandbox_id })).emails[0];
      assert.notEqual(newest.id, older.id);

      const dflt = await ok(client, 'extract_otp', { sandbox_id: sb.sandbox_id });
      assert.equal(dflt.status, 'found');
      assert.equal(dflt.code, '904417');
      assert.equal(dflt.email_id, newest.id);
      assert.equal(dflt.request_id, null);
      assert.ok(dflt.confidence > 0.5 && dflt.confidence <= 1);
      assert.equal(dflt.source, 'text');
      assert.match(dflt.context, /904417/);
      assert.equal(dflt.candidates[0]?.code, '904417');
      assert.ok(
        !dflt.candidates.some((c: any) => c.code === '88123455'),
        'the order number is not a candidate',
      );
      assert.match(dflt.hint, /904417/);

      const byId = await ok(client, 'extract_otp', { sandbox_id: sb.sandbox_id, email_id: older.id });
      assert.equal(byId.code, '305518');
      assert.equal(byId.email_id, older.id);

      const patterned = await ok(client, 'extract_otp', {
        sandbox_id: sb.sandbox_id,
        pattern: 'Order #([0-9]+)',
      });
      assert.equal(patterned.status, 'found');
      assert.equal(patterned.code, '88123455');

      const req = await capture(sb.capture_url, '/sms/send', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ to: '+15550100', message: 'Your Acme verification code is 66120' }),
      });
      const fromRequest = await ok(client, 'extract_otp', {
        sandbox_id: sb.sandbox_id,
        request_id: req.requestId,
      });
      assert.equal(fromRequest.status, 'found');
      assert.equal(fromRequest.code, '66120');
      assert.equal(fromRequest.request_id, req.requestId);
      assert.equal(fromRequest.email_id, null);

      await sendMail(server.ports.smtp, sb, {
        subject: 'Hello',
        text: 'Thanks for visiting our store today!',
      });
      const plain = await ok(client, 'extract_otp', { sandbox_id: sb.sandbox_id });
      assert.equal(plain.status, 'not_found');
      assert.equal(plain.code, null);
      assert.match(plain.hint, /get_email|pattern/);

      const both = await fails(client, 'extract_otp', {
        sandbox_id: sb.sandbox_id,
        email_id: older.id,
        request_id: req.requestId,
      });
      assert.match(both, /^INVALID_INPUT: .*Pass only one/);
    },
  );

  /** A sandbox holding one sign-in email with a magic link, a reference and an unsubscribe link. */
  async function signInMail(): Promise<{ sb: Record<string, any>; email: Record<string, any> }> {
    const sb = await newSandbox();
    await sendMail(server.ports.smtp, sb, {
      subject: 'Sign in to Acme',
      text:
        'Click to sign in: https://app.example.test/magic-login?token=ML-7781\n' +
        'Reference: REF-2024-XY\n' +
        'Unsubscribe: https://app.example.test/unsubscribe?u=1',
      html:
        '<p><a href="https://app.example.test/magic-login?token=ML-7781">Sign in to Acme</a></p>' +
        '<p>Reference: REF-2024-XY</p>' +
        '<p><a href="https://app.example.test/unsubscribe?u=1">Unsubscribe</a></p>',
    });
    const email = (await ok(client, 'list_emails', { sandbox_id: sb.sandbox_id })).emails[0];
    return { sb, email };
  }

  it('extract_from_body links: every link with its anchor text and kind', T, async () => {
    // The v1 SDK client checks structuredContent against the declared outputSchema, so every field the
    // result carries (here each link's kind) must be declared.
    const { sb, email } = await signInMail();
    const links = await ok(client, 'extract_from_body', { sandbox_id: sb.sandbox_id, mode: 'links' });
    assert.equal(links.status, 'found');
    assert.equal(links.email_id, email.id);
    assert.equal(links.request_id, null);
    const urls = links.matches.map((m: any) => m.value);
    assert.ok(urls.includes('https://app.example.test/magic-login?token=ML-7781'), JSON.stringify(urls));
    assert.ok(urls.includes('https://app.example.test/unsubscribe?u=1'));
    assert.equal(new Set(urls).size, urls.length, 'de-duplicated');
    const magic = links.matches.find((m: any) => m.value.includes('magic-login'));
    assert.equal(magic.context, 'Sign in to Acme', 'the anchor text');
    assert.equal(magic.kind, 'magic_login');
    const unsubscribe = links.matches.find((m: any) => m.value.includes('unsubscribe'));
    assert.equal(unsubscribe.kind, 'unsubscribe');
  });

  it('extract_from_body: regex, json_path, header and text', T, async () => {
    const { sb, email } = await signInMail();

    const regex = await ok(client, 'extract_from_body', {
      sandbox_id: sb.sandbox_id,
      email_id: email.id,
      mode: 'regex',
      pattern: 'REF-([0-9]{4}-[A-Z]+)',
    });
    assert.equal(regex.status, 'found');
    assert.equal(regex.matches[0].value, '2024-XY');

    const nothing = await ok(client, 'extract_from_body', {
      sandbox_id: sb.sandbox_id,
      mode: 'regex',
      pattern: 'INVOICE-([0-9]+)',
    });
    assert.equal(nothing.status, 'not_found');
    assert.deepEqual(nothing.matches, []);
    assert.match(nothing.hint, /text/);

    const text = await ok(client, 'extract_from_body', { sandbox_id: sb.sandbox_id, mode: 'text' });
    assert.equal(text.matches.length, 1);
    assert.match(text.matches[0].value, /^Click to sign in: https:\/\/app\.example\.test\/magic-login/);

    const subject = await ok(client, 'extract_from_body', {
      sandbox_id: sb.sandbox_id,
      mode: 'text',
      part: 'subject',
    });
    assert.equal(subject.matches[0].value, 'Sign in to Acme');

    const req = await capture(sb.capture_url, '/api/tokens', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Signature': 't=1,v1=deadbeef' },
      body: JSON.stringify({ data: { token: 'tok_live_123', items: [{ id: 'a1' }, { id: 'b2' }] } }),
    });
    const token = await ok(client, 'extract_from_body', {
      sandbox_id: sb.sandbox_id,
      request_id: req.requestId,
      mode: 'json_path',
      pattern: '$.data.token',
    });
    assert.equal(token.status, 'found');
    assert.equal(token.request_id, req.requestId);
    assert.equal(token.email_id, null);
    assert.deepEqual(
      token.matches.map((m: any) => m.value),
      ['tok_live_123'],
    );
    const ids = await ok(client, 'extract_from_body', {
      sandbox_id: sb.sandbox_id,
      request_id: req.requestId,
      mode: 'json_path',
      pattern: '$.data.items[*].id',
    });
    assert.deepEqual(
      ids.matches.map((m: any) => m.value),
      ['a1', 'b2'],
    );

    const header = await ok(client, 'extract_from_body', {
      sandbox_id: sb.sandbox_id,
      request_id: req.requestId,
      mode: 'header',
      pattern: 'x-signature',
    });
    assert.deepEqual(
      header.matches.map((m: any) => m.value),
      ['t=1,v1=deadbeef'],
    );
  });

  // ---- errors ----

  it('an unknown sandbox is an isError NOT_FOUND whose text names the next step', T, async () => {
    const id = randomUUID();
    const calls: Array<[string, Record<string, unknown>]> = [
      ['get_sandbox', { sandbox_id: id }],
      ['wait_for_email', { sandbox_id: id, timeout_seconds: 1 }],
      ['wait_for_request', { sandbox_id: id, timeout_seconds: 1 }],
      ['list_emails', { sandbox_id: id }],
      ['list_requests', { sandbox_id: id }],
      ['extract_otp', { sandbox_id: id }],
      ['extract_from_body', { sandbox_id: id, mode: 'links' }],
      ['set_mock_rules', { sandbox_id: id, rules: [] }],
      ['delete_sandbox', { sandbox_id: id }],
    ];
    for (const [name, args] of calls) {
      const text = await fails(client, name, args);
      assert.match(text, /^NOT_FOUND: /, `${name}: ${text}`);
      assert.match(text, NEXT_STEP_RE, `${name} names the next step: ${text}`);
    }
  });

  it('bad arguments are isError results that say what is wrong', T, async () => {
    const sb = await newSandbox();
    const badId = await fails(client, 'wait_for_email', { sandbox_id: 'nope' });
    assert.match(badId, /sandbox_id/);
    assert.match(badId, /UUID/i);

    const tooLong = await fails(client, 'wait_for_email', {
      sandbox_id: sb.sandbox_id,
      timeout_seconds: 301,
    });
    assert.match(tooLong, /timeout_seconds/);
    assert.match(tooLong, /300/);

    const badMode = await fails(client, 'extract_from_body', { sandbox_id: sb.sandbox_id, mode: 'xml' });
    assert.match(badMode, /mode/);
    assert.match(badMode, /links/);

    await sendMail(server.ports.smtp, sb, { subject: 'Regex target', text: 'token=abc' });
    const badRegex = await fails(client, 'extract_from_body', {
      sandbox_id: sb.sandbox_id,
      mode: 'regex',
      pattern: 'token=(abc',
    });
    assert.match(badRegex, /^INVALID_[A-Z]+: /);
    assert.match(badRegex, /pattern/);
    assert.match(badRegex, /regular expression|regex/i);

    const noPattern = await fails(client, 'extract_from_body', {
      sandbox_id: sb.sandbox_id,
      mode: 'json_path',
    });
    assert.match(noPattern, /^INVALID_[A-Z]+: /);
    assert.match(noPattern, /needs a pattern/);

    const badAfter = await fails(client, 'wait_for_email', {
      sandbox_id: sb.sandbox_id,
      timeout_seconds: 0,
      after: 'yesterday',
    });
    assert.match(badAfter, /^INVALID_INPUT: after "yesterday"/);

    const unknownAfter = await fails(client, 'wait_for_email', {
      sandbox_id: sb.sandbox_id,
      timeout_seconds: 0,
      after: randomUUID(),
    });
    assert.match(unknownAfter, /^NOT_FOUND: /);
  });

  it('argument validation errors follow `<CODE>: <what went wrong>. <what to do next>`', T, async () => {
    // Design section 7 and issue 6: bad arguments are isError results whose text names the next step.
    const sb = await newSandbox();
    const cases: Array<[string, Record<string, unknown>]> = [
      ['wait_for_email', { sandbox_id: 'nope' }],
      ['wait_for_email', { sandbox_id: sb.sandbox_id, timeout_seconds: 301 }],
      ['extract_from_body', { sandbox_id: sb.sandbox_id, mode: 'xml' }],
    ];
    for (const [name, args] of cases) {
      const text = await fails(client, name, args);
      assert.match(text, /^[A-Z_]+: \S.*\. \S.*/s, `${name} ${JSON.stringify(args)}: ${text}`);
    }
  });

  it('an error text states what went wrong once', T, async () => {
    const sb = await newSandbox();
    await sendMail(server.ports.smtp, sb, { subject: 'Regex target', text: 'token=abc' });
    const text = await fails(client, 'extract_from_body', {
      sandbox_id: sb.sandbox_id,
      mode: 'regex',
      pattern: 'token=(abc',
    });
    const occurrences = text.split('missing closing )').length - 1;
    assert.equal(occurrences, 1, `the parser message appears once: ${text}`);
  });

  // ---- progress and cancellation ----

  it('progress notifications arrive during a 12 s wait, before its timeout result', T, async () => {
    const sb = await newSandbox();
    const progress: Array<Progress & { afterResult: boolean }> = [];
    let resultIn = false;
    const out = await callTool(
      client,
      'wait_for_email',
      { sandbox_id: sb.sandbox_id, timeout_seconds: 12 },
      { onprogress: (p) => progress.push({ ...p, afterResult: resultIn }), timeout: 30_000 },
    );
    resultIn = true;
    assert.equal(out.data.status, 'timeout');
    // Every 5 s on the server, whose 12 s timeout timer is due after the second one.
    assert.ok(progress.length >= 2, `at least 2 progress notifications, got ${JSON.stringify(progress)}`);
    for (const p of progress) {
      assert.equal(p.afterResult, false, 'before the result');
      assert.equal(p.total, 12);
      assert.ok(p.progress > 0 && p.progress <= 12);
      assert.match(p.message ?? '', /Waiting for an email/);
    }
    assert.ok(
      progress.every((p, i) => i === 0 || p.progress > (progress[i - 1] as Progress).progress),
      'progress increases',
    );
  });

  it('a wait called without a progress token gets no progress and still answers', T, async () => {
    const sb = await newSandbox();
    const out = await ok(client, 'wait_for_request', { sandbox_id: sb.sandbox_id, timeout_seconds: 1 });
    assert.equal(out.status, 'timeout');
  });

  it('an aborted wait_for_email call releases its waiter', T, async () => {
    const sb = await newSandbox();
    assert.equal(server.core.waits.active(), 0, 'no wait open before');
    const controller = new AbortController();
    const pending = client
      .callTool(
        { name: 'wait_for_email', arguments: { sandbox_id: sb.sandbox_id, timeout_seconds: NEVER_SECONDS } },
        undefined,
        { signal: controller.signal, timeout: 15_000 },
      )
      .then(
        () => 'resolved',
        (err: Error) => `rejected: ${err.message}`,
      );
    try {
      await waitUntil(() => server.core.waits.active() === 1, 'the wait to open');
      controller.abort();
      assert.match(await pending, /^rejected: .*abort/i, 'the client call rejects on abort');
      // Only the abort can end a 300 s wait inside the test's timeout.
      await waitUntil(() => server.core.waits.active() === 0, 'the waiter to be released after abort');
    } finally {
      // Do not let a leaked waiter disturb the tests after this one.
      server.core.waits.endAll();
    }
  });

  it('closing the client (the stream) releases an open waiter', T, async () => {
    const sb = await newSandbox();
    const other = await connectHttp(server.apiUrl, ws.key);
    clients.push(other);
    const pending = other
      .callTool({
        name: 'wait_for_email',
        arguments: { sandbox_id: sb.sandbox_id, timeout_seconds: NEVER_SECONDS },
      })
      .then(
        () => 'resolved',
        (err: Error) => `rejected: ${err.message}`,
      );
    try {
      await waitUntil(() => server.core.waits.active() === 1, 'the wait to open');
      await other.close();
      assert.match(await pending, /^rejected/);
      await waitUntil(() => server.core.waits.active() === 0, 'the waiter to be released after close');
    } finally {
      server.core.waits.endAll();
    }
  });

  // ---- the route: auth, Host/Origin, methods ----

  it('POST /mcp without a key is 401 with WWW-Authenticate: Bearer', T, async () => {
    const res = await rawMcp(server.apiUrl, {});
    assert.equal(res.status, 401);
    assert.match(String(res.headers['www-authenticate']), /^Bearer\b/);
    assert.match(String(res.headers['content-type']), /application\/problem\+json/);
    const problem = JSON.parse(res.body) as Record<string, any>;
    assert.equal(problem.type, 'urn:sandtrap:problem:unauthorized');
    assert.match(problem.detail, /No API key/);
    assert.ok(typeof res.headers['x-request-id'] === 'string' && res.headers['x-request-id'] !== '');
  });

  it('POST /mcp with an unknown, malformed or revoked key is 401', T, async () => {
    const unknown = await rawMcp(server.apiUrl, { authorization: `Bearer ${generateApiKey()}` });
    assert.equal(unknown.status, 401);
    assert.match(String(unknown.headers['www-authenticate']), /^Bearer\b/);
    assert.match((JSON.parse(unknown.body) as { detail: string }).detail, /not recognised/);

    const malformed = await rawMcp(server.apiUrl, { 'x-api-key': 'stk_nope' });
    assert.equal(malformed.status, 401);

    const created = await ws.api('/keys', { method: 'POST', body: JSON.stringify({ label: 'to revoke' }) });
    assert.equal(created.status, 201);
    const key = (await created.json()) as { id: string; key: string };
    const works = await rawMcp(server.apiUrl, { authorization: `Bearer ${key.key}` });
    assert.equal(works.status, 200, 'the new key works first');
    const revoked = await ws.api(`/keys/${key.id}`, { method: 'DELETE' });
    assert.equal(revoked.status, 204);
    const refused = await rawMcp(server.apiUrl, { authorization: `Bearer ${key.key}` });
    assert.equal(refused.status, 401);
    assert.match(String(refused.headers['www-authenticate']), /^Bearer\b/);
    assert.match((JSON.parse(refused.body) as { detail: string }).detail, /revoked/);

    // The SDK client cannot connect with it either.
    await assert.rejects(connectHttp(server.apiUrl, key.key));
  });

  it('POST /mcp with X-Api-Key works like Bearer', T, async () => {
    const res = await rawMcp(server.apiUrl, { 'x-api-key': ws.key });
    assert.equal(res.status, 200);
    assert.ok(typeof res.headers['x-request-id'] === 'string' && res.headers['x-request-id'] !== '');
  });

  it('a foreign Host or Origin is refused with 403 (DNS rebinding)', T, async () => {
    const auth = { authorization: `Bearer ${ws.key}` };
    const host = await rawMcp(server.apiUrl, { ...auth, host: 'evil.example' });
    assert.equal(host.status, 403);
    const hostWithPort = await rawMcp(server.apiUrl, { ...auth, host: `evil.example:${server.ports.api}` });
    assert.equal(hostWithPort.status, 403);
    const origin = await rawMcp(server.apiUrl, { ...auth, origin: 'http://evil.example' });
    assert.equal(origin.status, 403);
    // Loopback Host and Origin are fine.
    const local = await rawMcp(server.apiUrl, {
      ...auth,
      host: `localhost:${server.ports.api}`,
      origin: `http://127.0.0.1:${server.ports.api}`,
    });
    assert.equal(local.status, 200);
  });

  it("another workspace's sandbox is NOT_FOUND through MCP", T, async () => {
    const other = await server.workspace('other');
    const foreign = await other.createSandbox({ name: 'theirs' });
    for (const [name, args] of [
      ['get_sandbox', { sandbox_id: foreign.id }],
      ['wait_for_email', { sandbox_id: foreign.id, timeout_seconds: 0 }],
      ['list_requests', { sandbox_id: foreign.id }],
      ['delete_sandbox', { sandbox_id: foreign.id }],
    ] as Array<[string, Record<string, unknown>]>) {
      const text = await fails(client, name, args);
      assert.match(text, /^NOT_FOUND: /, `${name}: ${text}`);
    }
    const listed = await ok(client, 'list_sandboxes', { query: foreign.id });
    assert.deepEqual(listed.sandboxes, []);
    // Still there for its owner.
    assert.equal((await other.api(`/sandboxes/${foreign.id}`)).status, 200);
  });

  it('GET /mcp with a valid key is 405', T, async () => {
    const res = await rawMcp(server.apiUrl, { authorization: `Bearer ${ws.key}` }, 'GET');
    assert.equal(res.status, 405);
    assert.match(String(res.headers.allow), /POST/);
  });
});
