// The agent's read-back traps of issue 35, through the MCP SDK client over Streamable HTTP and stdio: never an
// older code than one a wait handed out (also across two processes on PostgreSQL), exact webhook bodies and
// their raw bytes as resources, unknown arguments refused by name, still_waiting before a client's 60 s, and a
// sandbox that went away said as such.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import Stripe from 'stripe';
import { cleanupProcesses } from '../helpers/process.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { needsPostgres, useTwoServers } from '../helpers/twoServers.ts';
import { capture, connectHttp, fails, ok, sendMail, waitUntil, WITH_PROGRESS } from './client.ts';
import { startStdio } from './stdioClient.ts';

const T = { timeout: 60_000 };

/** A Stripe-style event of about 6 KB, with non-ASCII text, as `JSON.stringify(..., 2)` writes it. */
function stripeEvent(): string {
  const lines = Array.from({ length: 30 }, (_, i) => ({
    id: `il_${i}`,
    description: `Ligne ${i}: abonnement « Pro » — ${'x'.repeat(60)}`,
    amount: 1000 + i,
  }));
  return JSON.stringify(
    { id: 'evt_1', type: 'invoice.paid', data: { object: { id: 'in_1', lines: { data: lines } } } },
    null,
    2,
  );
}

describeEachStore('MCP read-back (issue 35)', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let http: Client;
  let stdio: Client;
  const doors = (): Array<[string, Client]> => [
    ['http', http],
    ['stdio', stdio],
  ];

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace();
    http = await connectHttp(server.apiUrl, ws.key);
    stdio = (await startStdio([], { SANDTRAP_URL: server.apiUrl, SANDTRAP_API_KEY: ws.key })).client;
  });
  after(async () => {
    await http?.close().catch(() => undefined);
    await stdio?.close().catch(() => undefined);
    await cleanupProcesses();
    server.api.server.closeAllConnections();
    await server.close();
  });

  const mail = (sb: Record<string, any>, code: string) =>
    sendMail(server.ports.smtp, sb, { subject: 'Your code', text: `Your sign-in code is ${code}` });

  for (const [name] of [['http'], ['stdio']] as const) {
    it(
      `[${name}] codes A and B before the first wait, C after: the waits return B, then C, never A`,
      T,
      async () => {
        const client = name === 'http' ? http : stdio;
        const sb = await ok(client, 'create_sandbox', { name: 'abc' });
        await mail(sb, '100001');
        await mail(sb, '100002');
        const args = { sandbox_id: sb.sandbox_id, subject_contains: 'code', timeout_seconds: 20 };
        const first = await ok(client, 'wait_for_email', args, WITH_PROGRESS);
        assert.equal(first.email.otp.code, '100002');
        // The app resends: C. The identical call must not answer with the older unread A.
        const second = ok(client, 'wait_for_email', args, WITH_PROGRESS);
        await mail(sb, '100003');
        const got = await second;
        assert.equal(got.status, 'received');
        assert.equal(got.email.otp.code, '100003');
        // Nothing newer: A stays unread, named as turned away by the rule, and include_older reaches it.
        const none = await ok(client, 'wait_for_email', { ...args, timeout_seconds: 0 });
        assert.equal(none.status, 'timeout');
        assert.deepEqual(
          none.non_matching.map((m: any) => m.failed_filters),
          [['include_older']],
        );
        const older = await ok(client, 'wait_for_email', {
          ...args,
          timeout_seconds: 0,
          include_older: true,
        });
        assert.equal(older.email.otp.code, '100001');
      },
    );
  }

  it('REST waits keep their contract; onlyNewer=true opts into the same rule', T, async () => {
    const sb = await ws.createSandbox({ name: 'rest' });
    await mail(mcpShape(sb), '200001');
    await mail(mcpShape(sb), '200002');
    const base = `/sandboxes/${sb.id}/messages/wait?timeoutSeconds=0&markRead=true&isRead=false`;
    const first = await ws.api(base);
    assert.equal(first.status, 200);
    assert.match(((await first.json()) as any).textBody, /200002/);
    // The spec's rule: the newest unread, which is the older code.
    const plain = await ws.api(`${base}`);
    assert.match(((await plain.json()) as any).textBody, /200001/);
    await mail(mcpShape(sb), '200003');
    await mail(mcpShape(sb), '200004');
    assert.match(((await (await ws.api(base)).json()) as any).textBody, /200004/);
    // 200003 is unread and older than the newest handed out: onlyNewer turns it away and says why.
    const newer = await ws.api(`${base}&onlyNewer=true&explain=true`);
    assert.equal(newer.status, 204);
    const report = JSON.parse(decodeURIComponent(newer.headers.get('sandtrap-wait-misses') ?? '{}'));
    assert.deepEqual(
      report.misses.map((m: any) => m.failedFilters),
      [['onlyNewer']],
    );
  });

  it(
    'a 6 KB Stripe-signed body comes back byte-exact: the agent’s own HMAC and verify_signature agree',
    T,
    async () => {
      const sb = await ok(http, 'create_sandbox', { name: 'stripe' });
      const secret = 'whsec_test_secret_for_read_back';
      const payload = stripeEvent();
      assert.ok(payload.length > 5_500 && payload.length < 7_000, `${payload.length} characters`);
      const header = Stripe.webhooks.generateTestHeaderString({ payload, secret });
      const sent = await capture(sb.capture_url, '/webhooks/stripe', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': header },
        body: payload,
      });
      for (const [, client] of doors()) {
        const got = await ok(client, 'get_request', {
          sandbox_id: sb.sandbox_id,
          request_id: sent.requestId,
        });
        const r = got.request;
        assert.equal(r.body_truncated, false);
        assert.equal(r.body_encoding, 'utf8');
        assert.equal(r.body, payload, 'the body is whole and exact');
        assert.equal(r.json, undefined, 'the parsed view only where asked');
        assert.ok(r.json_paths.includes('$.data.object.lines.data[0].amount'), r.json_paths.join(' '));
        const t = /t=(\d+)/.exec(header)?.[1];
        const v1 = /v1=([0-9a-f]+)/.exec(header)?.[1];
        const mine = createHmac('sha256', secret).update(`${t}.${r.body}`).digest('hex');
        assert.equal(mine, v1, 'the agent’s own HMAC over the returned body');
        assert.match(got.hint, /verify_signature/);
        const verified = await ok(client, 'verify_signature', {
          sandbox_id: sb.sandbox_id,
          request_id: sent.requestId,
          provider: 'stripe',
          secret,
        });
        assert.equal(verified.valid, true, verified.reason);
      }
    },
  );

  it(
    'an Express-style pattern matches, a quoted value renders valid JSON, and the reply sent is shown',
    T,
    async () => {
      const sb = await ok(http, 'create_sandbox', { name: 'mock' });
      const set = await ok(http, 'set_mock_rules', {
        sandbox_id: sb.sandbox_id,
        rules: [
          {
            name: 'user',
            method: 'GET',
            pattern: '/v1/users/:id',
            status_code: 201,
            headers: { 'content-type': 'application/json' },
            body: '{"id":"{{path.id}}","ok":true}',
          },
        ],
      });
      assert.equal(set.mock_rules[0].pattern, '/v1/users/{id}', 'stored in the {id} form');
      const sent = await capture(sb.capture_url, `/v1/users/${encodeURIComponent('a"b\\c')}`);
      assert.equal(sent.status, 201);
      assert.deepEqual(JSON.parse(sent.body), { id: 'a"b\\c', ok: true });
      for (const [, client] of doors()) {
        const got = await ok(client, 'get_request', {
          sandbox_id: sb.sandbox_id,
          request_id: sent.requestId,
        });
        const reply = got.request.response;
        assert.equal(reply.status_code, 201);
        assert.equal(reply.body, sent.body, 'the body the app received');
        assert.ok(reply.headers.some((h: any) => h.name.toLowerCase() === 'content-type'));
      }
    },
  );

  it('a body past 256 KB says so and its raw bytes are a resource read whole', T, async () => {
    const sb = await ok(http, 'create_sandbox', { name: 'big' });
    const body = `{"blob":"${'é'.repeat(300_000)}"}`;
    const sent = await capture(sb.capture_url, '/upload', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    for (const [, client] of doors()) {
      const res = await client.callTool({
        name: 'get_request',
        arguments: { sandbox_id: sb.sandbox_id, request_id: sent.requestId },
      });
      const data = res.structuredContent as Record<string, any>;
      assert.equal(data.request.body_truncated, true);
      assert.equal(data.request.body.length, 256 * 1024);
      const link = (res.content as any[]).find((b) => b.type === 'resource_link');
      assert.ok(link !== undefined, 'a resource_link block');
      assert.ok(data.hint.includes(link.uri), data.hint);
      const read = await client.readResource({ uri: link.uri });
      const [content] = read.contents as any[];
      const raw = 'text' in content ? Buffer.from(content.text, 'utf8') : Buffer.from(content.blob, 'base64');
      const rest = await ws.api(`/sandboxes/${sb.sandbox_id}/requests/${sent.requestId}/raw`);
      assert.ok(raw.equals(Buffer.from(await rest.arrayBuffer())), 'the resource is the raw request');
      assert.ok(raw.toString('utf8').endsWith(body));
    }
  });

  it('an email result links its raw source as a resource', T, async () => {
    const sb = await ok(http, 'create_sandbox', { name: 'raw' });
    await mail(sb, '300001');
    for (const [, client] of doors()) {
      const res = await client.callTool({
        name: 'wait_for_email',
        arguments: { sandbox_id: sb.sandbox_id, timeout_seconds: 0, peek: true },
      });
      const link = (res.content as any[]).find((b) => b.type === 'resource_link');
      assert.equal(link?.mimeType, 'message/rfc822');
      const read = await client.readResource({ uri: link.uri });
      assert.match((read.contents as any[])[0].text, /Your sign-in code is 300001/);
    }
    const missing = rawEmailUri(sb.sandbox_id, '00000000-0000-4000-8000-000000000000');
    await assert.rejects(http.readResource({ uri: missing }), /not found|does not exist/i);
  });

  it('a logo-first sign-in mail names the sign-in link as primary_link, in the hint too', T, async () => {
    const sb = await ok(http, 'create_sandbox', { name: 'links' });
    const html =
      '<a href="https://acme.example/"><img src="https://acme.example/logo.png" alt="Acme"></a>' +
      '<p>Hi Ada, click below to sign in. The link works once.</p>' +
      '<p><a href="https://acme.example/auth/login?token=q1w2e3r4t5y6u7i8">Sign in to Acme</a></p>' +
      '<p><a href="https://acme.example/help">Help</a> · <a href="https://acme.example/unsubscribe?u=1">Unsubscribe</a></p>';
    await sendMail(server.ports.smtp, sb, { subject: 'Your sign-in link', html });
    for (const [, client] of doors()) {
      const got = await ok(client, 'wait_for_email', {
        sandbox_id: sb.sandbox_id,
        timeout_seconds: 0,
        peek: true,
      });
      assert.equal(got.email.primary_link?.url, 'https://acme.example/auth/login?token=q1w2e3r4t5y6u7i8');
      assert.equal(got.email.primary_link?.kind, 'magic_login');
      assert.ok(got.hint.includes(got.email.primary_link.url), got.hint);
      assert.doesNotMatch(got.hint, /other link/);
    }
    // A notice with only home and unsubscribe links has no primary link.
    await sendMail(server.ports.smtp, sb, {
      subject: 'Our news',
      html: '<a href="https://acme.example/">Acme</a> news. <a href="https://acme.example/unsubscribe">Unsubscribe</a>',
    });
    const notice = await ok(http, 'wait_for_email', {
      sandbox_id: sb.sandbox_id,
      subject_contains: 'news',
      timeout_seconds: 0,
    });
    assert.equal(notice.email.primary_link, null);
  });

  it('unknown arguments are refused naming the closest valid one', T, async () => {
    const sb = await ok(http, 'create_sandbox', { name: 'args' });
    for (const [, client] of doors()) {
      const subject = await fails(client, 'wait_for_email', { sandbox_id: sb.sandbox_id, subject: 'reset' });
      assert.match(subject, /^INVALID_INPUT: Unknown argument "subject" \(did you mean subject_contains\?\)/);
      const timeout = await fails(client, 'wait_for_email', { sandbox_id: sb.sandbox_id, timeout: 10 });
      assert.match(timeout, /"timeout" \(did you mean timeout_seconds\?\)/);
      const path = await fails(client, 'wait_for_request', { sandbox_id: sb.sandbox_id, path: '/x' });
      assert.match(path, /did you mean path_contains\?/);
    }
  });

  it(
    'a sandbox deleted during a wait: the wait says sandbox_deleted, get_sandbox says deleted',
    T,
    async () => {
      for (const [, client] of doors()) {
        const sb = await ok(client, 'create_sandbox', { name: 'doomed' });
        const pending = ok(
          client,
          'wait_for_request',
          { sandbox_id: sb.sandbox_id, timeout_seconds: 40 },
          WITH_PROGRESS,
        );
        await waitUntil(() => server.core.waits.active() >= 1, 'the open wait');
        await ok(client, 'delete_sandbox', { sandbox_id: sb.sandbox_id });
        const ended = await pending;
        assert.equal(ended.status, 'sandbox_deleted');
        assert.match(ended.hint, /deleted at .*create_sandbox/);
        assert.match(
          await fails(client, 'get_sandbox', { sandbox_id: sb.sandbox_id }),
          /^NOT_FOUND: The sandbox was deleted at /,
        );
      }
    },
  );

  it(
    'a 75 s wait without a progress token answers still_waiting inside the client’s 60 s; continue_with goes on',
    { timeout: 150_000 },
    async () => {
      const sb = await ok(http, 'create_sandbox', { name: 'slow' });
      // The SDK client's own request timeout is 60 s and no progress token is sent: a transport timeout would
      // reject this call; the answer has to come first.
      const res = await http.callTool(
        {
          name: 'wait_for_email',
          arguments: { sandbox_id: sb.sandbox_id, timeout_seconds: 75, subject_contains: 'late' },
        },
        undefined,
        { timeout: 60_000 },
      );
      const data = res.structuredContent as Record<string, any>;
      assert.equal(data.status, 'still_waiting');
      assert.equal(data.continue_with.arguments.timeout_seconds, 25);
      assert.equal(data.continue_with.arguments.subject_contains, 'late');
      assert.match(data.continue_with.arguments.after, /^\d{4}-\d\d-\d\dT/);
      const next = ok(http, 'wait_for_email', data.continue_with.arguments);
      await waitUntil(() => server.core.waits.active() >= 1, 'the continued wait');
      await sendMail(server.ports.smtp, sb, { subject: 'late code', text: 'Code 445566' });
      const got = await next;
      assert.equal(got.status, 'received');
      assert.equal(got.email.otp.code, '445566');
    },
  );
});

/** The MCP shape of a REST sandbox, as sendMail takes it. */
function mcpShape(sb: Record<string, any>): Record<string, any> {
  return { smtp: { username: sb.smtpUsername, password: sb.smtpPassword } };
}

function rawEmailUri(sandboxId: string, emailId: string): string {
  return `sandtrap://sandboxes/${sandboxId}/emails/${emailId}/raw`;
}

describe('MCP waits across two processes on one PostgreSQL', { skip: needsPostgres }, () => {
  const two = useTwoServers('readback');
  after(async () => cleanupProcesses());

  it('B handed out by process A; C, not A, from process B', T, async () => {
    const a = await connectHttp(two.a().apiUrl, two.key());
    const b = await connectHttp(two.b().apiUrl, two.key());
    try {
      const sb = await ok(a, 'create_sandbox', { name: 'two' });
      const send = (code: string) =>
        sendMail(two.a().ports.smtp, sb, { subject: 'Your code', text: `Your sign-in code is ${code}` });
      await send('500001');
      await send('500002');
      const args = { sandbox_id: sb.sandbox_id, timeout_seconds: 20 };
      assert.equal((await ok(a, 'wait_for_email', args, WITH_PROGRESS)).email.otp.code, '500002');
      const pending = ok(b, 'wait_for_email', args, WITH_PROGRESS);
      await send('500003');
      assert.equal((await pending).email.otp.code, '500003');
      assert.equal((await ok(b, 'wait_for_email', { ...args, timeout_seconds: 0 })).status, 'timeout');
    } finally {
      await a.close();
      await b.close();
    }
  });
});
