// The reply a capture got is recorded with it (issue 35): the status, every header and the body exactly as
// they went on the wire (templates rendered, a planted session cookie stripped, the CSP and framing headers
// added), bodies cut at 64 KB with a flag, for rule replies, the default reply, the fallback and a failed rule.
// Read back through REST (`response` on the detail, `/response/raw`), on every store. Also through the real
// listener: Express-style `:id` patterns and JSON-escaped template values in JSON bodies.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { components } from '../../openapi/schema.d.ts';
import { sendCapture, sendRecorded, type Got } from '../helpers/captureClient.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

type Detail = components['schemas']['RequestDetail'];
type Reply = components['schemas']['RecordedResponse'];

const T = { timeout: 30_000 };

/** Headers node's HTTP server adds itself per connection; the record leaves them out (documented). */
const CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive']);

/** The headers the client received, in order and case, without the server's connection headers. */
function wireHeaders(got: Got): Array<{ name: string; value: string }> {
  const out: Array<{ name: string; value: string }> = [];
  for (let i = 0; i + 1 < got.rawHeaders.length; i += 2) {
    const name = got.rawHeaders[i] as string;
    if (!CONNECTION_HEADERS.has(name.toLowerCase()))
      out.push({ name, value: got.rawHeaders[i + 1] as string });
  }
  return out;
}

describeEachStore('Capture records the reply it sent', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let sandboxId: string;

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace();
    sandboxId = (await ws.createSandbox({ name: 'replies' })).id as string;
  });
  after(() => server.close());

  const setRules = async (mocks: unknown[]) => {
    const res = await ws.api(`/sandboxes/${sandboxId}/mocks`, {
      method: 'PUT',
      body: JSON.stringify({ mocks }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    return ((await res.json()) as { mocks: Array<{ pattern: string }> }).mocks;
  };
  const detail = async (requestId: string): Promise<Detail> => {
    const res = await ws.api(`/sandboxes/${sandboxId}/requests/${requestId}`);
    assert.equal(res.status, 200);
    return (await res.json()) as Detail;
  };
  /** The recorded reply, checked against what the client received: same status, headers and body. */
  const recordedAsReceived = async (got: Got & { requestId: string }): Promise<Reply> => {
    const d = await detail(got.requestId);
    assert.ok(d.response !== null, 'a reply is recorded');
    const reply = d.response;
    assert.equal(reply.statusCode, got.status);
    assert.equal(reply.statusCode, d.mockStatusCode);
    assert.deepEqual(reply.headers, wireHeaders(got));
    assert.equal(reply.bodyEncoding, 'utf8');
    assert.equal(reply.body, got.body.byteLength === 0 ? null : got.body.toString('utf8'));
    assert.equal(reply.sizeBytes, got.body.byteLength);
    assert.equal(reply.bodyTruncated, false);
    return reply;
  };
  const header = (reply: Reply, name: string) =>
    reply.headers.filter((h) => h.name.toLowerCase() === name.toLowerCase()).map((h) => h.value);

  it(
    'records a rule reply as sent: rendered templates, headers in order and case, framing added',
    T,
    async () => {
      await setRules([
        {
          name: 'charge',
          method: 'POST',
          pattern: '/v1/charges',
          statusCode: 201,
          headers: { 'x-lower': 'a', 'X-Charge-Id': 'ch_{{body.id}}', 'Content-Type': 'application/json' },
          body: '{"id":"ch_{{body.id}}","amount":{{body.amount|json}},"request":"{{request.id}}"}',
        },
      ]);
      const got = await sendRecorded(server.ports.capture, sandboxId, {
        method: 'POST',
        path: '/v1/charges',
        headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'trace-1' },
        body: JSON.stringify({ id: 'A1', amount: 1250 }),
      });
      assert.equal(got.status, 201);
      const reply = await recordedAsReceived(got);
      assert.deepEqual(JSON.parse(reply.body as string), {
        id: 'ch_A1',
        amount: 1250,
        request: got.requestId,
      });
      assert.deepEqual(
        reply.headers.map((h) => h.name),
        [
          'X-Request-Id',
          'x-lower',
          'X-Charge-Id',
          'Content-Type',
          'Content-Security-Policy',
          'X-Content-Type-Options',
          'Access-Control-Allow-Origin',
          'X-Sandtrap-Request-Id',
          'Content-Length',
        ],
      );
      assert.deepEqual(header(reply, 'x-request-id'), ['trace-1']);
      assert.deepEqual(header(reply, 'x-charge-id'), ['ch_A1']);
      assert.deepEqual(header(reply, 'content-length'), [String(got.body.byteLength)]);
      assert.equal(reply.note, null);
    },
  );

  it('records the default reply, the fallback 404 and a rule that failed (500)', T, async () => {
    await setRules([]);
    const plain = await sendRecorded(server.ports.capture, sandboxId, { path: '/nothing/here' });
    const byDefault = await recordedAsReceived(plain);
    assert.equal(byDefault.body, '{}');
    assert.deepEqual(header(byDefault, 'content-type'), ['application/json']);
    assert.deepEqual(header(byDefault, 'content-security-policy'), ['sandbox']);

    await setRules([
      { name: 'echo', pattern: '/echo', statusCode: 200, headers: { 'X-Echo': '{{query.v}}' } },
      { isFallback: true, statusCode: 404, body: '{"error":"no such route"}' },
    ]);
    const missing = await sendRecorded(server.ports.capture, sandboxId, { path: '/nope' });
    assert.equal(missing.status, 404);
    assert.equal((await recordedAsReceived(missing)).body, '{"error":"no such route"}');

    const failed = await sendRecorded(server.ports.capture, sandboxId, { path: '/echo?v=a%0D%0Ab' });
    assert.equal(failed.status, 500);
    const reply = await recordedAsReceived(failed);
    assert.match(header(reply, 'x-sandtrap-error')[0] ?? '', /mock rule "echo" failed: header X-Echo/);
  });

  it('records what the session shield let through: a planted session cookie is in neither', T, async () => {
    await setRules([
      {
        pattern: '/plant',
        statusCode: 200,
        headers: { 'Set-Cookie': '{{query.n}}=planted; Path=/' },
        body: 'ok',
      },
    ]);
    const planted = await sendRecorded(server.ports.capture, sandboxId, {
      path: '/plant?n=sandtrap_session',
    });
    assert.equal(planted.headers['set-cookie'], undefined);
    assert.deepEqual(header(await recordedAsReceived(planted), 'set-cookie'), []);
    const kept = await sendRecorded(server.ports.capture, sandboxId, { path: '/plant?n=theme' });
    assert.deepEqual(header(await recordedAsReceived(kept), 'set-cookie'), ['theme=planted; Path=/']);
  });

  it('records no body where HTTP sends none: HEAD (with its Content-Length) and 204', T, async () => {
    await setRules([
      { method: 'GET', pattern: '/page', statusCode: 200, body: 'hello' },
      { pattern: '/gone', statusCode: 204, body: 'not sent' },
    ]);
    const head = await sendRecorded(server.ports.capture, sandboxId, { method: 'HEAD', path: '/page' });
    const headReply = await recordedAsReceived(head);
    assert.equal(headReply.body, null);
    assert.deepEqual(header(headReply, 'content-length'), ['5']);
    const none = await sendRecorded(server.ports.capture, sandboxId, { method: 'DELETE', path: '/gone' });
    assert.equal(none.status, 204);
    const noneReply = await recordedAsReceived(none);
    assert.equal(noneReply.body, null);
    assert.deepEqual(header(noneReply, 'content-length'), []);
  });

  it('cuts a body over 64 KB at a character boundary, says so, and keeps the whole size', T, async () => {
    await setRules([{ pattern: '/echo', statusCode: 200, body: '{{body}}' }]);
    const sent = `x${'é'.repeat(40_000)}`;
    const got = await sendRecorded(server.ports.capture, sandboxId, {
      method: 'POST',
      path: '/echo',
      body: sent,
    });
    assert.equal(got.body.toString('utf8'), sent);
    const reply = (await detail(got.requestId)).response as Reply;
    assert.equal(reply.bodyTruncated, true);
    assert.equal(reply.sizeBytes, Buffer.byteLength(sent));
    assert.equal(reply.bodyEncoding, 'utf8');
    const kept = reply.body as string;
    assert.ok(sent.startsWith(kept), 'the kept text is the start of what was sent');
    assert.ok(!kept.includes('\uFFFD'), 'no character is split');
    assert.ok(Buffer.byteLength(kept) <= 64 * 1024 && Buffer.byteLength(kept) > 64 * 1024 - 4);
  });

  it('serves the reply as an HTTP message at /response/raw; /raw stays the request alone', T, async () => {
    await setRules([{ name: 'made', pattern: '/made', statusCode: 201, body: 'created' }]);
    const got = await sendRecorded(server.ports.capture, sandboxId, {
      method: 'POST',
      path: '/made',
      body: 'in',
    });
    const res = await ws.api(`/sandboxes/${sandboxId}/requests/${got.requestId}/response/raw`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^message\/http/);
    const text = await res.text();
    const lines = wireHeaders(got).map((h) => `${h.name}: ${h.value}\r\n`);
    assert.equal(text, `HTTP/1.1 201 Created\r\n${lines.join('')}\r\ncreated`);
    const raw = await (await ws.api(`/sandboxes/${sandboxId}/requests/${got.requestId}/raw`)).text();
    assert.match(raw, /^POST \//);
    assert.ok(raw.endsWith('\r\n\r\nin'), 'the request as received, nothing appended');
  });

  it('has response null for a request captured before replies were recorded', T, async () => {
    await setRules([]);
    const got = await sendRecorded(server.ports.capture, sandboxId, { path: '/old' });
    // What migration 020 leaves on rows stored before it.
    await getStore()
      .db.updateTable('requests')
      .set({ response_headers: null, response_body: null, response_size_bytes: null, response_note: null })
      .where('id', '=', got.requestId)
      .execute();
    const d = await detail(got.requestId);
    assert.equal(d.response, null);
    assert.equal(d.mockStatusCode, 200);
    const res = await ws.api(`/sandboxes/${sandboxId}/requests/${got.requestId}/response/raw`);
    assert.equal(res.status, 404);
    assert.match(((await res.json()) as { detail: string }).detail, /before replies were recorded/);
  });

  it('q still matches the rule name, and not the recorded reply', T, async () => {
    await setRules([{ name: 'stripe charge', pattern: '/pay', statusCode: 200, body: 'zebrafinch' }]);
    const got = await sendRecorded(server.ports.capture, sandboxId, { path: '/pay' });
    const search = async (q: string) => {
      const res = await ws.api(`/sandboxes/${sandboxId}/requests?q=${encodeURIComponent(q)}`);
      return ((await res.json()) as { items: Array<{ id: string }> }).items.map((i) => i.id);
    };
    assert.ok((await search('stripe charge')).includes(got.requestId));
    assert.deepEqual(await search('zebrafinch'), []);
  });

  describe('a template over a request body that is not JSON', () => {
    it('renders the value as missing, as documented, and the record shows it with a note', T, async () => {
      await setRules([
        {
          name: 'charge',
          method: 'POST',
          pattern: '/charge',
          statusCode: 200,
          headers: { 'Content-Type': 'application/json' },
          body: '{"amount": {{body.amount|json}}}',
        },
      ]);
      const broken = await sendRecorded(server.ports.capture, sandboxId, {
        method: 'POST',
        path: '/charge',
        headers: { 'Content-Type': 'application/json' },
        body: '{"amount": 12,}',
      });
      assert.equal(broken.body.toString(), '{"amount": null}');
      const reply = await recordedAsReceived(broken);
      assert.match(reply.note ?? '', /not JSON.*\{\{body\.<path>\}\} rendered as missing/);

      const fine = await sendRecorded(server.ports.capture, sandboxId, {
        method: 'POST',
        path: '/charge',
        headers: { 'Content-Type': 'application/json' },
        body: '{"amount": 12}',
      });
      assert.equal(fine.body.toString(), '{"amount": 12}');
      assert.equal((await recordedAsReceived(fine)).note, null);
    });
  });

  describe('Express-style patterns and JSON-escaped values (issue 35)', () => {
    it(
      'answers /v1/users/:id as /v1/users/{id}, with a JSON body that round-trips a hostile id',
      T,
      async () => {
        const stored = await setRules([
          { method: 'GET', pattern: '/v1/users/:id', statusCode: 200, body: '{"id":"{{path.id}}"}' },
        ]);
        assert.equal(stored[0]?.pattern, '/v1/users/{id}');
        const id = 'a"b\\c\nd</x>';
        const got = await sendRecorded(server.ports.capture, sandboxId, {
          path: `/v1/users/${encodeURIComponent(id)}`,
        });
        assert.equal(got.status, 200);
        assert.deepEqual(JSON.parse(got.body.toString('utf8')), { id });
        // It parses, so the default Content-Type says JSON.
        assert.equal(got.headers['content-type'], 'application/json');
        assert.deepEqual(JSON.parse((await recordedAsReceived(got)).body as string), { id });
      },
    );

    it('escapes under an explicit JSON Content-Type and keeps whole values outside strings', T, async () => {
      await setRules([
        {
          method: 'POST',
          pattern: '/v1/orgs/:org/echo',
          statusCode: 200,
          headers: { 'Content-Type': 'application/vnd.api+json' },
          body: '{"org":"{{path.org}}","note":"{{body.note ?? "none"}}","tags":{{body.tags|json}},"n":{{body.n}}}',
        },
      ]);
      const got = await sendRecorded(server.ports.capture, sandboxId, {
        method: 'POST',
        path: `/v1/orgs/${encodeURIComponent('o"1')}/echo`,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ note: 'line1\n"quoted" \\ end', tags: ['a', 'b"'], n: 3 }),
      });
      assert.deepEqual(JSON.parse(got.body.toString('utf8')), {
        org: 'o"1',
        note: 'line1\n"quoted" \\ end',
        tags: ['a', 'b"'],
        n: 3,
      });
      const none = await sendRecorded(server.ports.capture, sandboxId, {
        method: 'POST',
        path: '/v1/orgs/x/echo',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ n: 1 }),
      });
      assert.deepEqual(JSON.parse(none.body.toString('utf8')), { org: 'x', note: 'none', tags: null, n: 1 });
    });

    it('keeps a literal colon inside a segment literal', T, async () => {
      await setRules([{ pattern: '/v1/a:b', statusCode: 202, body: 'colon' }]);
      const hit = await sendCapture(server.ports.capture, { path: `/${sandboxId}/v1/a:b` });
      assert.equal(hit.status, 202);
      const miss = await sendCapture(server.ports.capture, { path: `/${sandboxId}/v1/other` });
      assert.equal(miss.status, 200, 'any other path gets the default reply');
    });
  });
});
