// REST HTTP stream: list (newest first, q, pagination), detail with parsed views, raw download, delete one,
// clear; validation, authentication and isolation. Requests go in through the real capture listener and
// everything is read back over real HTTP.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { components } from '../../openapi/schema.d.ts';
import { generateApiKey } from '../../src/core/apiKeyFormat.ts';
import {
  assertJson,
  assertNoContent,
  assertNotFound,
  assertUnauthorized,
  validationAssertion,
} from '../helpers/responses.ts';
import { qs } from '../helpers/query.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import {
  ISO_RE,
  REQUEST_DETAIL_KEYS as DETAIL_KEYS,
  REQUEST_SUMMARY_KEYS as SUMMARY_KEYS,
  UUID_RE,
} from '../helpers/shapes.ts';
import { describeEachStore } from '../helpers/stores.ts';

type Summary = components['schemas']['RequestSummary'];
type Detail = components['schemas']['RequestDetail'];
type Page = components['schemas']['RequestPage'];

// ---- response assertions ----

/** A 400 validation problem whose `errors` name exactly `paths`, each with a message. */
const assertValidation = validationAssertion({ messages: true });

interface Endpoint {
  method: string;
  path: string;
  /** Whether the endpoint addresses one request (detail, raw, delete one) rather than the stream. */
  one: boolean;
}

/** Every request endpoint for one sandbox and request; the list and clear ones included. */
function endpoints(sandboxId: string, requestId: string): Endpoint[] {
  const base = `/sandboxes/${sandboxId}/requests`;
  return [
    { method: 'GET', path: base, one: false },
    { method: 'GET', path: `${base}/${requestId}`, one: true },
    { method: 'GET', path: `${base}/${requestId}/raw`, one: true },
    { method: 'GET', path: `${base}/${requestId}/response/raw`, one: true },
    { method: 'DELETE', path: `${base}/${requestId}`, one: true },
    { method: 'DELETE', path: base, one: false },
  ];
}

/** The endpoints addressing one request (everything but list and clear). */
function requestEndpoints(sandboxId: string, requestId: string): Endpoint[] {
  return endpoints(sandboxId, requestId).filter((e) => e.one);
}

/** Writes a raw request and collects the reply until the server closes. */
function exchange(port: number, data: Buffer): Promise<Buffer> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), 5000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    socket.write(data);
  });
}

describeEachStore('REST requests', (getStore) => {
  let server: TestServer;

  before(async () => {
    // describeEachStore closes its store; the server must not close it a second time.
    server = await startTestServer({ ...getStore(), close: async () => {} }, { RATE_LIMITS: 'off' });
  });
  after(async () => {
    await server.close();
  });

  interface Box {
    ws: TestServerWorkspace;
    sb: Record<string, any>;
  }

  async function newBox(ws?: TestServerWorkspace, mocks?: Array<Record<string, unknown>>): Promise<Box> {
    const w = ws ?? (await server.workspace());
    const sb = await w.createSandbox({ name: 'http' });
    if (mocks !== undefined) {
      const res = await w.api(`/sandboxes/${sb.id}/mocks`, {
        method: 'PUT',
        body: JSON.stringify({ mocks }),
      });
      assert.equal(res.status, 200, await res.text());
    }
    return { ws: w, sb };
  }

  interface Capture {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: string | Uint8Array;
  }

  /**
   * Sends one request to the sandbox's capture host and returns the id it was recorded under. The clock then
   * moves 1 s, so every request is strictly newer than the one before.
   */
  async function send(box: Box, c: Capture): Promise<string> {
    const res = await fetch(`http://127.0.0.1:${server.ports.capture}/${box.sb.id}${c.path}`, {
      method: c.method ?? 'GET',
      ...(c.headers === undefined ? {} : { headers: c.headers }),
      ...(c.body === undefined ? {} : { body: c.body }),
    });
    await res.arrayBuffer();
    const id = res.headers.get('x-sandtrap-request-id');
    assert.ok(id !== null && UUID_RE.test(id), `recorded, got ${res.status}`);
    server.clock.advance(1000);
    return id;
  }

  function base(box: Box): string {
    return `/sandboxes/${box.sb.id}/requests`;
  }

  function listRes(box: Box, query: Record<string, string> = {}, ws = box.ws): Promise<Response> {
    return ws.api(`${base(box)}${qs(query)}`);
  }

  async function list(box: Box, query: Record<string, string> = {}): Promise<Page> {
    return assertJson<Page>(await listRes(box, query));
  }

  async function listIds(box: Box, query: Record<string, string> = {}): Promise<string[]> {
    const page = await list(box, query);
    assert.equal(page.nextCursor, null);
    return page.items.map((r) => r.id);
  }

  async function detail(box: Box, id: string): Promise<Detail> {
    return assertJson<Detail>(await box.ws.api(`${base(box)}/${id}`));
  }

  function callWith(headers: Record<string, string>, e: Endpoint): Promise<Response> {
    return fetch(`${server.apiUrl}/api/v1${e.path}`, { method: e.method, headers });
  }

  function call(ws: TestServerWorkspace, e: Endpoint): Promise<Response> {
    return ws.api(e.path, { method: e.method });
  }

  describe('200/204', () => {
    describe('GET /sandboxes/{sandboxId}/requests', () => {
      it('lists newest first with every field of the Request summary', async () => {
        const box = await newBox(undefined, [
          { name: 'created rule', method: 'POST', pattern: '/items', statusCode: 201, body: '{"id":1}' },
        ]);
        const t0 = server.clock.now().getTime();
        const first = await send(box, {
          method: 'POST',
          path: '/items?src=test&x=%20',
          headers: { 'content-type': 'application/json' },
          body: '{"name":"widget"}',
        });
        const t1 = server.clock.now().getTime();
        const second = await send(box, { path: '/health' });
        const page = await list(box);
        assert.equal(page.nextCursor, null);
        assert.deepEqual(
          page.items.map((r) => r.id),
          [second, first],
        );
        for (const r of page.items) assert.deepEqual(Object.keys(r).sort(), SUMMARY_KEYS);
        const [health, created] = page.items as [Summary, Summary];
        assert.deepEqual(
          { ...created, receivedAt: 'checked below' },
          {
            id: first,
            method: 'POST',
            path: '/items',
            query: 'src=test&x=%20',
            mockStatusCode: 201,
            mockName: 'created rule',
            sourceIp: '127.0.0.1',
            receivedAt: 'checked below',
            sizeBytes: 17,
            isRead: false,
            traceparent: null,
          },
        );
        assert.match(created.receivedAt, ISO_RE);
        const at = Date.parse(created.receivedAt);
        assert.ok(at >= t0 && at <= t1, `${created.receivedAt} within the send`);
        assert.deepEqual(
          { ...health, receivedAt: 'x' },
          {
            id: second,
            method: 'GET',
            path: '/health',
            query: null,
            mockStatusCode: 200,
            mockName: null,
            sourceIp: '127.0.0.1',
            receivedAt: 'x',
            sizeBytes: 0,
            isRead: false,
            traceparent: null,
          },
        );
        assert.ok(Date.parse(health.receivedAt) > at, 'newer is later');
      });

      it('an empty sandbox lists nothing', async () => {
        const box = await newBox();
        assert.deepEqual(await list(box), { items: [], nextCursor: null });
      });

      describe('q', () => {
        let box: Box;
        const ids: Record<string, string> = {};

        before(async () => {
          box = await newBox(undefined, [
            { name: 'Teapot Rule', pattern: '/brew', statusCode: 418, body: 'short' },
            { name: 'gone rule', pattern: '/gone', statusCode: 404 },
          ]);
          ids.put = await send(box, { method: 'PUT', path: '/hooks/Alpha?token=XyZ', body: 'x' });
          ids.brew = await send(box, { path: '/brew' });
          ids.gone = await send(box, { method: 'DELETE', path: '/gone' });
          ids.under = await send(box, { method: 'POST', path: '/other_path?u=1', body: 'y' });
          ids.pct = await send(box, { path: '/a%20b' });
        });

        const cases: Array<[string, string, string[]]> = [
          ['method', 'put', ['put']],
          ['method, any case', 'DeLeTe', ['gone']],
          ['path', 'HOOKS/alpha', ['put']],
          ['query string', 'token=xyz', ['put']],
          ['status code', '404', ['gone']],
          ['status code', '418', ['brew']],
          ['rule name', 'teapot', ['brew']],
          ['rule name', 'GONE RULE', ['gone']],
          ['a literal _ (not a LIKE wildcard)', '_', ['under']],
          ['a literal % (not a LIKE wildcard)', '%', ['pct']],
          ['surrounding spaces trimmed', '  put  ', ['put']],
          ['nothing', 'no-such-thing', []],
        ];
        for (const [what, q, expected] of cases) {
          it(`q=${JSON.stringify(q)} matches the ${what}`, async () => {
            assert.deepEqual(
              await listIds(box, { q }),
              expected.map((k) => ids[k]),
            );
          });
        }

        it('q matching several lists them newest first; an empty q lists everything', async () => {
          assert.deepEqual(await listIds(box, { q: '200' }), [ids.pct, ids.under, ids.put]);
          assert.deepEqual(await listIds(box, { q: '' }), [ids.pct, ids.under, ids.gone, ids.brew, ids.put]);
        });
      });

      describe('pagination over 5 requests', () => {
        let box: Box;
        let ids: string[]; // newest first

        before(async () => {
          box = await newBox();
          const sent: string[] = [];
          for (let i = 1; i <= 5; i++) sent.push(await send(box, { path: `/page/${i}` }));
          ids = sent.reverse();
        });

        it('limit=2 walks three pages through nextCursor, newest first, with no repeats or gaps', async () => {
          const p1 = await list(box, { limit: '2' });
          assert.deepEqual(
            p1.items.map((r) => r.id),
            ids.slice(0, 2),
          );
          assert.equal(typeof p1.nextCursor, 'string');
          const p2 = await list(box, { limit: '2', cursor: p1.nextCursor as string });
          assert.deepEqual(
            p2.items.map((r) => r.id),
            ids.slice(2, 4),
          );
          const p3 = await list(box, { limit: '2', cursor: p2.nextCursor as string });
          assert.deepEqual(
            p3.items.map((r) => r.id),
            ids.slice(4),
          );
          assert.equal(p3.nextCursor, null);
        });

        it('limit equal to the count gives one page and no cursor; the default and a capped limit give all', async () => {
          assert.deepEqual(await listIds(box, { limit: '5' }), ids);
          assert.deepEqual(await listIds(box), ids);
          assert.deepEqual(await listIds(box, { limit: '201' }), ids, 'over 200 is capped, not refused');
          assert.deepEqual(await listIds(box, { limit: '1000000' }), ids);
        });

        it('a cursor combines with q', async () => {
          const p1 = await list(box, { limit: '1', q: '/page/' });
          assert.deepEqual(
            p1.items.map((r) => r.id),
            [ids[0]],
          );
          const rest = await list(box, { limit: '10', q: '/page/', cursor: p1.nextCursor as string });
          assert.deepEqual(
            rest.items.map((r) => r.id),
            ids.slice(1),
          );
          assert.equal(rest.nextCursor, null);
        });

        it('requests captured after a cursor was issued do not shift the next page', async () => {
          const p1 = await list(box, { limit: '2' });
          const newer = await send(box, { path: '/page/6' });
          const p2 = await list(box, { limit: '2', cursor: p1.nextCursor as string });
          assert.deepEqual(
            p2.items.map((r) => r.id),
            ids.slice(2, 4),
          );
          const res = await box.ws.api(`${base(box)}/${newer}`, { method: 'DELETE' });
          await assertNoContent(res);
        });
      });
    });

    describe('GET /sandboxes/{sandboxId}/requests/{requestId}', () => {
      it('returns every field of the Request detail shape', async () => {
        const box = await newBox(undefined, [{ name: 'ok rule', pattern: '/api/**', statusCode: 202 }]);
        const body = JSON.stringify({ user: { name: 'Ada' }, list: [1, 2] });
        const id = await send(box, {
          method: 'POST',
          path: '/api/users?b=2&a=1&b=3',
          headers: { 'Content-Type': 'application/json', 'X-Custom-Header': 'custom value' },
          body,
        });
        const d = await detail(box, id);
        assert.deepEqual(Object.keys(d).sort(), DETAIL_KEYS);
        assert.equal(d.id, id);
        assert.equal(d.method, 'POST');
        assert.equal(d.path, '/api/users');
        assert.equal(d.query, 'b=2&a=1&b=3');
        assert.equal(d.mockStatusCode, 202);
        assert.equal(d.mockName, 'ok rule');
        assert.equal(d.sourceIp, '127.0.0.1');
        assert.match(d.receivedAt, ISO_RE);
        assert.equal(d.sizeBytes, Buffer.byteLength(body));
        assert.deepEqual(d.queryParams, [
          { name: 'b', value: '2' },
          { name: 'a', value: '1' },
          { name: 'b', value: '3' },
        ]);
        assert.deepEqual(d.form, []);
        assert.equal(d.body, body);
        assert.equal(d.bodyEncoding, 'utf8');
        assert.equal(d.bodyTruncated, false);
        assert.deepEqual(d.json, { user: { name: 'Ada' }, list: [1, 2] });
        // Every header is listed with its name as sent (fetch keeps the case given in a plain object).
        assert.ok(Array.isArray(d.headers));
        for (const h of d.headers) assert.deepEqual(Object.keys(h).sort(), ['name', 'value']);
        assert.deepEqual(
          d.headers.filter((h) => ['content-type', 'x-custom-header'].includes(h.name.toLowerCase())),
          [
            { name: 'Content-Type', value: 'application/json' },
            { name: 'X-Custom-Header', value: 'custom value' },
          ],
        );
        assert.ok(d.headers.some((h) => h.name.toLowerCase() === 'host'));
        // The summary fields are the same as in the list.
        const [summary] = (await list(box)).items;
        for (const k of SUMMARY_KEYS) assert.deepEqual((d as any)[k], (summary as any)[k], k);
      });

      it('shows form fields for an urlencoded body and null json', async () => {
        const box = await newBox();
        const id = await send(box, {
          method: 'POST',
          path: '/f',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'a=1&b=two+words&a=3',
        });
        const d = await detail(box, id);
        assert.deepEqual(d.form, [
          { name: 'a', value: '1' },
          { name: 'b', value: 'two words' },
          { name: 'a', value: '3' },
        ]);
        assert.equal(d.json, null);
        assert.deepEqual(d.queryParams, []);
        assert.equal(d.query, null);
      });

      it('cuts body text over 1 MB (bodyTruncated) while sizeBytes and /raw keep every byte', async () => {
        const box = await newBox();
        const text = 'é'.repeat(800_000); // 1.6 MB of UTF-8, two bytes per character
        const id = await send(box, {
          method: 'POST',
          path: '/big',
          headers: { 'Content-Type': 'text/plain; charset=utf-8' },
          body: text,
        });
        const d = await detail(box, id);
        assert.equal(d.sizeBytes, 1_600_000);
        assert.equal(d.bodyTruncated, true);
        assert.equal(d.bodyEncoding, 'utf8');
        assert.equal(d.body, 'é'.repeat(512 * 1024), 'cut at 1 MB on a character boundary');
        const raw = await box.ws.api(`${base(box)}/${id}/raw`);
        const bytes = Buffer.from(await raw.arrayBuffer());
        assert.ok(bytes.subarray(bytes.indexOf('\r\n\r\n') + 4).equals(Buffer.from(text)));
      });

      it('an empty body is null with utf8 encoding and json null', async () => {
        const box = await newBox();
        const d = await detail(box, await send(box, { path: '/empty' }));
        assert.equal(d.body, null);
        assert.equal(d.bodyEncoding, 'utf8');
        assert.equal(d.bodyTruncated, false);
        assert.equal(d.json, null);
        assert.equal(d.sizeBytes, 0);
      });

      it('an upper-case sandbox or request id addresses the same request', async () => {
        const box = await newBox();
        const id = await send(box, { path: '/case' });
        const res = await box.ws.api(`/sandboxes/${box.sb.id.toUpperCase()}/requests/${id.toUpperCase()}`);
        const d = (await res.json()) as Detail;
        assert.equal(res.status, 200);
        assert.equal(d.id, id);
      });
    });

    describe('GET /sandboxes/{sandboxId}/requests/{requestId}/raw', () => {
      it('serves the request as received: message/http attachment, request line, headers in order and case, body bytes', async () => {
        const box = await newBox();
        const head =
          `PUT /${box.sb.id}/files/a%20b?x=1&x=2 HTTP/1.1\r\n` +
          'Host: example.test\r\n' +
          'X-Second: 2\r\n' +
          'x-first: 1\r\n' +
          'X-Second: again\r\n' +
          'Content-Type: application/octet-stream\r\n' +
          'Content-Length: 4\r\n' +
          'Connection: close\r\n' +
          '\r\n';
        const sent = Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from([0x00, 0xff, 0x0d, 0x0a])]);
        const reply = (await exchange(server.ports.capture, sent)).toString('latin1');
        assert.match(reply, /^HTTP\/1\.1 200 /);
        const id = /\r\nX-Sandtrap-Request-Id: ([0-9a-f-]{36})\r\n/i.exec(reply)?.[1];
        assert.ok(id !== undefined);

        const res = await box.ws.api(`${base(box)}/${id}/raw`);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'message/http');
        assert.equal(res.headers.get('content-disposition'), `attachment; filename="${id}.http"`);
        assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(res.headers.get('content-security-policy'), 'sandbox');
        assert.deepEqual(Buffer.from(await res.arrayBuffer()), sent);
      });

      it('a request without a body is the head and the blank line only', async () => {
        const box = await newBox();
        const sent = Buffer.from(`GET /${box.sb.id}/ping HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n`);
        const reply = (await exchange(server.ports.capture, sent)).toString('latin1');
        const id = /\r\nX-Sandtrap-Request-Id: ([0-9a-f-]{36})\r\n/i.exec(reply)?.[1];
        const res = await box.ws.api(`${base(box)}/${id}/raw`);
        assert.equal(res.status, 200);
        assert.deepEqual(Buffer.from(await res.arrayBuffer()), sent);
      });
    });

    describe('DELETE /sandboxes/{sandboxId}/requests/{requestId}', () => {
      it('deletes one request (204), which is then 404 everywhere; the others stay', async () => {
        const box = await newBox();
        const keep = await send(box, { path: '/keep' });
        const doomed = await send(box, { path: '/doomed' });
        await assertNoContent(await box.ws.api(`${base(box)}/${doomed}`, { method: 'DELETE' }));
        await assertNotFound(await box.ws.api(`${base(box)}/${doomed}`), 'detail after delete');
        await assertNotFound(await box.ws.api(`${base(box)}/${doomed}/raw`), 'raw after delete');
        assert.deepEqual(await listIds(box), [keep]);
        await assertNotFound(
          await box.ws.api(`${base(box)}/${doomed}`, { method: 'DELETE' }),
          'deleting again',
        );
        assert.equal((await detail(box, keep)).path, '/keep');
      });
    });

    describe('DELETE /sandboxes/{sandboxId}/requests', () => {
      it('clears the stream (204): the list is empty, details are 404, and capture goes on', async () => {
        const box = await newBox();
        const a = await send(box, { path: '/a' });
        await send(box, { method: 'POST', path: '/b', body: 'x' });
        await assertNoContent(await box.ws.api(base(box), { method: 'DELETE' }));
        assert.deepEqual(await list(box), { items: [], nextCursor: null });
        await assertNotFound(await box.ws.api(`${base(box)}/${a}`), 'a cleared request');
        await assertNoContent(await box.ws.api(base(box), { method: 'DELETE' }));
        const c = await send(box, { path: '/c' });
        assert.deepEqual(await listIds(box), [c]);
      });

      it('clearing one sandbox leaves the other sandboxes of the workspace alone', async () => {
        const a = await newBox();
        const b = await newBox(a.ws);
        await send(a, { path: '/in-a' });
        const inB = await send(b, { path: '/in-b' });
        await assertNoContent(await a.ws.api(base(a), { method: 'DELETE' }));
        assert.deepEqual(await listIds(a), []);
        assert.deepEqual(await listIds(b), [inB]);
      });
    });
  });

  describe('400', () => {
    let box: Box;
    let id: string;

    before(async () => {
      box = await newBox();
      id = await send(box, { path: '/x' });
    });

    for (const limit of ['0', '-1', 'abc', '1.5', '']) {
      it(`limit=${JSON.stringify(limit)} is refused naming limit`, async () => {
        await assertValidation(await listRes(box, { limit }), ['limit']);
      });
    }

    for (const cursor of [
      'garbage!',
      'Zm9v',
      Buffer.from(`${Date.now()}:not-a-uuid`).toString('base64url'),
      Buffer.from(`notatime:${randomUUID()}`).toString('base64url'),
    ]) {
      it(`cursor=${cursor} is refused naming cursor`, async () => {
        await assertValidation(await listRes(box, { cursor }), ['cursor']);
      });
    }

    it('q over 200 characters is refused naming q; exactly 200 is accepted', async () => {
      await assertValidation(await listRes(box, { q: 'a'.repeat(201) }), ['q']);
      assert.deepEqual(await listIds(box, { q: 'a'.repeat(200) }), []);
    });

    it('a malformed sandboxId is refused naming sandboxId on every endpoint', async () => {
      for (const bad of ['not-a-uuid', '123', `${box.sb.id}x`]) {
        for (const e of endpoints(bad, id)) {
          await assertValidation(await call(box.ws, e), ['sandboxId']);
        }
      }
    });

    it('a malformed requestId is refused naming requestId on every request endpoint', async () => {
      for (const bad of ['not-a-uuid', '42', `${id}0`]) {
        for (const e of requestEndpoints(box.sb.id, bad)) {
          await assertValidation(await call(box.ws, e), ['requestId']);
        }
      }
      assert.deepEqual(await listIds(box), [id], 'nothing was deleted');
    });

    it('both malformed are both named', async () => {
      for (const e of requestEndpoints('nope', 'nada')) {
        await assertValidation(await call(box.ws, e), ['sandboxId', 'requestId']);
      }
    });
  });

  describe('401', () => {
    let box: Box;
    let id: string;

    before(async () => {
      box = await newBox();
      id = await send(box, { path: '/secret' });
    });

    it('every request endpoint refuses a request without a key, and nothing changes', async () => {
      for (const e of endpoints(box.sb.id, id)) {
        await assertUnauthorized(await callWith({}, e), /No API key/);
      }
      assert.deepEqual(await listIds(box), [id]);
    });

    it('every request endpoint refuses an unknown key (Bearer and X-Api-Key) and a malformed one', async () => {
      for (const e of endpoints(box.sb.id, id)) {
        await assertUnauthorized(
          await callWith({ authorization: `Bearer ${generateApiKey()}` }, e),
          /not recognised/,
        );
        await assertUnauthorized(await callWith({ 'x-api-key': generateApiKey() }, e), /not recognised/);
        const malformed = await callWith({ authorization: 'Bearer stk_nope' }, e);
        assert.equal(malformed.status, 401);
        await malformed.text();
      }
      assert.deepEqual(await listIds(box), [id]);
    });
  });

  describe('404', () => {
    it('an unknown sandbox is 404 on every endpoint', async () => {
      const ws = await server.workspace();
      for (const e of endpoints(randomUUID(), randomUUID())) {
        await assertNotFound(await call(ws, e), `${e.method} ${e.path}`);
      }
    });

    it('an unknown request is 404 on every request endpoint', async () => {
      const box = await newBox();
      const id = await send(box, { path: '/x' });
      for (const e of requestEndpoints(box.sb.id, randomUUID())) {
        await assertNotFound(await call(box.ws, e), `${e.method} ${e.path}`);
      }
      assert.deepEqual(await listIds(box), [id]);
    });

    it("another workspace's sandbox and request are 404 on every endpoint, and stay unchanged", async () => {
      const owner = await newBox();
      const id = await send(owner, { method: 'POST', path: '/private', body: 'mine' });
      const intruder = await newBox();
      for (const e of endpoints(owner.sb.id, id)) {
        await assertNotFound(await call(intruder.ws, e), `${e.method} ${e.path}`);
      }
      // ...and the request id under the intruder's own sandbox.
      for (const e of requestEndpoints(intruder.sb.id, id)) {
        await assertNotFound(await call(intruder.ws, e), `own sandbox: ${e.method} ${e.path}`);
      }
      assert.deepEqual(await listIds(owner), [id]);
      assert.equal((await detail(owner, id)).body, 'mine');
    });

    it('a request of another sandbox of the same workspace is 404 under this sandbox', async () => {
      const a = await newBox();
      const b = await newBox(a.ws);
      const id = await send(a, { path: '/in-a' });
      for (const e of requestEndpoints(b.sb.id, id)) {
        await assertNotFound(await call(a.ws, e), `${e.method} ${e.path}`);
      }
      assert.deepEqual(await listIds(a), [id]);
    });

    it('a deleted sandbox is 404 on every endpoint', async () => {
      const box = await newBox();
      const id = await send(box, { path: '/x' });
      await assertNoContent(await box.ws.api(`/sandboxes/${box.sb.id}`, { method: 'DELETE' }));
      for (const e of endpoints(box.sb.id, id)) {
        await assertNotFound(await call(box.ws, e), `${e.method} ${e.path}`);
      }
    });

    it('an expired ephemeral sandbox is 404 on every endpoint', async () => {
      const ws = await server.workspace();
      const sb = await ws.createSandbox({ name: 'brief', ephemeral: true, ttlMinutes: 5 });
      const box = { ws, sb };
      const id = await send(box, { path: '/x' });
      assert.deepEqual(await listIds(box), [id]);
      server.clock.advance(5 * 60_000);
      for (const e of endpoints(sb.id, id)) {
        await assertNotFound(await call(ws, e), `${e.method} ${e.path}`);
      }
    });
  });
});
