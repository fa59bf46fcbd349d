// HTTP capture listener (CAPTURE_PORT), driven with real HTTP: node's http.request (exact header case and
// order, duplicates as arrays), fetch, and raw sockets for byte-level control. Covers routing (path and host),
// faithful recording (method, raw target, header order/case/duplicates, byte-exact bodies, source IP, time),
// parsed views, mock rules and templates through the real listener, CORS preflight, body and rate limits,
// persist-then-reply, malformed input, and the independence of the HTTP and email streams.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { components } from '../../openapi/schema.d.ts';
import type { Store } from '../../src/core/store/openStore.ts';
import { sendCapture, type Got, type Sent as CaptureSent } from '../helpers/captureClient.ts';
import { sandboxTransport } from '../helpers/mail.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { UUID_RE } from '../helpers/shapes.ts';
import { describeEachStore } from '../helpers/stores.ts';

type Summary = components['schemas']['RequestSummary'];
type Detail = components['schemas']['RequestDetail'];
type Page = components['schemas']['RequestPage'];
type Sandbox = Record<string, any>;
type RuleInput = Record<string, unknown>;

const MB = 1024 * 1024;
const MAX_BODY = 5 * MB;
const ISO_MS_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

// ---------------------------------------------------------------------------------------------------------
// Capture clients

interface Sent extends CaptureSent {
  /** A rule may set a cookie; nothing else ever does. */
  allowCookie?: boolean;
}

async function capture(port: number, s: Sent): Promise<Got> {
  const got = await sendCapture(port, s);
  if (s.allowCookie !== true) {
    assert.equal(got.headers['set-cookie'], undefined, `no Set-Cookie on a capture reply (${s.path})`);
  }
  return got;
}

/** Header lines of a reply as [name, value] pairs, in the order sent. */
function headerPairs(raw: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i] as string, raw[i + 1] as string]);
  return out;
}

/** Writes `data` on a fresh socket and collects every byte the server sends until it closes. */
function exchange(port: number, data: string | Buffer, timeoutMs = 5000): Promise<Buffer> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {}); // a reset ends the exchange like a close
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    socket.write(typeof data === 'string' ? Buffer.from(data, 'latin1') : data);
  });
}

interface Parsed {
  status: number;
  headers: Array<[string, string]>;
  body: Buffer;
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!(size > 0)) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Parses one HTTP/1.1 response from raw bytes (Content-Length or chunked body). */
function parseResponse(buf: Buffer): Parsed {
  const end = buf.indexOf('\r\n\r\n');
  assert.ok(end >= 0, `a full response head, got: ${JSON.stringify(buf.toString('latin1').slice(0, 300))}`);
  const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3}) /.exec(lines[0] ?? '');
  assert.ok(m !== null, `a status line, got: ${lines[0]}`);
  const headers = lines.slice(1).map((l) => {
    const i = l.indexOf(':');
    return [l.slice(0, i), l.slice(i + 1).trim()] as [string, string];
  });
  const chunked = headers.some(([n, v]) => n.toLowerCase() === 'transfer-encoding' && /chunked/i.test(v));
  const body = buf.subarray(end + 4);
  return { status: Number(m[1]), headers, body: chunked ? dechunk(body) : body };
}

function header(p: Parsed, name: string): string | undefined {
  return p.headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
}

/** A capture problem reply: problem+json with the fixed type for `slug` and the correlation id. */
function assertCaptureProblem(got: Got, status: number, slug: string): Record<string, unknown> {
  const text = got.body.toString('utf8');
  assert.equal(got.status, status, text);
  assert.match(String(got.headers['content-type']), /^application\/problem\+json/);
  assert.equal(got.headers['x-content-type-options'], 'nosniff');
  const problem = JSON.parse(text) as Record<string, unknown>;
  assert.equal(problem.status, status);
  assert.equal(problem.type, `urn:sandtrap:problem:${slug}`);
  assert.ok(typeof problem.detail === 'string' && problem.detail.length > 0);
  assert.equal(problem.requestId, got.headers['x-request-id']);
  assert.equal(got.requestId, undefined, 'nothing recorded, so no X-Sandtrap-Request-Id');
  return problem;
}

async function countRequests(store: Store, sandboxId?: string): Promise<number> {
  let q = store.db.selectFrom('requests').select((eb) => eb.fn.countAll<string>().as('n'));
  if (sandboxId !== undefined) q = q.where('sandbox_id', '=', sandboxId);
  const row = await q.executeTakeFirstOrThrow();
  return Number(row.n);
}

// ---------------------------------------------------------------------------------------------------------
// REST read-back

async function okJson<T>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  return JSON.parse(text) as T;
}

async function listRequests(ws: TestServerWorkspace, sb: Sandbox, query = ''): Promise<Summary[]> {
  const page = await okJson<Page>(await ws.api(`/sandboxes/${sb.id}/requests${query}`));
  return page.items;
}

async function detailOf(ws: TestServerWorkspace, sb: Sandbox, id: string | undefined): Promise<Detail> {
  assert.ok(id !== undefined && UUID_RE.test(id), `a request id, got ${id}`);
  return okJson<Detail>(await ws.api(`/sandboxes/${sb.id}/requests/${id}`));
}

async function rawOf(ws: TestServerWorkspace, sb: Sandbox, id: string | undefined): Promise<Buffer> {
  assert.ok(id !== undefined, 'a request id');
  const res = await ws.api(`/sandboxes/${sb.id}/requests/${id}/raw`);
  assert.equal(res.status, 200);
  return Buffer.from(await res.arrayBuffer());
}

/** The body bytes of a /raw download (after the blank line). */
function rawBody(raw: Buffer): Buffer {
  const end = raw.indexOf('\r\n\r\n');
  assert.ok(end >= 0, 'the raw request has a header block');
  return raw.subarray(end + 4);
}

async function setMocks(ws: TestServerWorkspace, sb: Sandbox, mocks: RuleInput[]): Promise<Sandbox> {
  return okJson<Sandbox>(
    await ws.api(`/sandboxes/${sb.id}/mocks`, { method: 'PUT', body: JSON.stringify({ mocks }) }),
  );
}

// ---------------------------------------------------------------------------------------------------------

describeEachStore('HTTP capture', (getStore, backend) => {
  let server: TestServer;
  let agent: http.Agent;
  let ws: TestServerWorkspace;

  before(async () => {
    // describeEachStore closes its store; the server must not close it a second time.
    server = await startTestServer({ ...getStore(), close: async () => {} });
    agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    ws = await server.workspace();
  });
  after(async () => {
    agent.destroy();
    await server.close();
  });

  function send(s: Sent): Promise<Got> {
    return capture(server.ports.capture, { agent, ...s });
  }

  async function sandbox(mocks?: RuleInput[], w = ws): Promise<Sandbox> {
    const sb = await w.createSandbox({ name: 'capture' });
    return mocks === undefined ? sb : setMocks(w, sb, mocks);
  }

  describe('routing', () => {
    it('path routing: /<id>/hooks/x?y=1 records path /hooks/x and query y=1', async () => {
      const sb = await sandbox();
      const got = await send({ path: `/${sb.id}/hooks/x?y=1` });
      assert.equal(got.status, 200);
      const d = await detailOf(ws, sb, got.requestId);
      assert.equal(d.path, '/hooks/x');
      assert.equal(d.query, 'y=1');
      assert.equal(d.method, 'GET');
    });

    it('path routing with only the id records "/"; an upper-case id routes too', async () => {
      const sb = await sandbox();
      const bare = await send({ path: `/${sb.id}` });
      const bareQuery = await send({ path: `/${sb.id}?a=1` });
      const upper = await send({ path: `/${sb.id.toUpperCase()}/Up` });
      for (const g of [bare, bareQuery, upper]) assert.equal(g.status, 200);
      assert.equal((await detailOf(ws, sb, bare.requestId)).path, '/');
      const q = await detailOf(ws, sb, bareQuery.requestId);
      assert.equal(q.path, '/');
      assert.equal(q.query, 'a=1');
      assert.equal((await detailOf(ws, sb, upper.requestId)).path, '/Up');
      assert.equal((await listRequests(ws, sb)).length, 3);
    });

    it('host routing: Host <id>.capture.localhost records the full path', async () => {
      const sb = await sandbox();
      const got = await send({
        path: '/hooks/x?y=1',
        headers: { Host: `${sb.id}.capture.localhost` },
      });
      assert.equal(got.status, 200);
      const d = await detailOf(ws, sb, got.requestId);
      assert.equal(d.path, '/hooks/x');
      assert.equal(d.query, 'y=1');
      // A port and upper case in the Host change nothing; a leading uuid segment is part of the path.
      const other = randomUUID();
      const got2 = await send({
        path: `/${other}/deep`,
        headers: { Host: `${sb.id.toUpperCase()}.CAPTURE.LOCALHOST:8026` },
      });
      assert.equal(got2.status, 200);
      assert.equal((await detailOf(ws, sb, got2.requestId)).path, `/${other}/deep`);
    });

    it('an unknown sandbox id (valid uuid) is 404 problem+json and stores nothing', async () => {
      const before = await countRequests(getStore());
      const byPath = await send({ path: `/${randomUUID()}/hooks`, method: 'POST', body: 'x' });
      assertCaptureProblem(byPath, 404, 'not-found');
      const byHost = await send({ path: '/hooks', headers: { Host: `${randomUUID()}.capture.localhost` } });
      assertCaptureProblem(byHost, 404, 'not-found');
      assert.equal(await countRequests(getStore()), before);
    });

    it('a path with no sandbox is 404 and stores nothing', async () => {
      const before = await countRequests(getStore());
      for (const path of ['/', '/hooks/x', '/not-a-uuid/x', `/x/${randomUUID()}`, '/?a=1']) {
        assertCaptureProblem(await send({ path }), 404, 'not-found');
      }
      assertCaptureProblem(
        await send({ path: '/x', headers: { Host: 'nope.capture.localhost' } }),
        404,
        'not-found',
      );
      assert.equal(await countRequests(getStore()), before);
    });

    it('a well-formed X-Request-Id is echoed on capture replies, a malformed one replaced', async () => {
      const sb = await sandbox();
      const kept = await send({ path: `/${sb.id}/x`, headers: { 'X-Request-Id': 'trace.abc-123_Z' } });
      assert.equal(kept.headers['x-request-id'], 'trace.abc-123_Z');
      const replaced = await send({ path: `/${sb.id}/x`, headers: { 'X-Request-Id': 'bad id!' } });
      assert.match(String(replaced.headers['x-request-id']), UUID_RE);
    });

    it('deleting the sandbox stops its capture host at once', async () => {
      const sb = await sandbox();
      assert.equal((await send({ path: `/${sb.id}/before` })).status, 200);
      const del = await ws.api(`/sandboxes/${sb.id}`, { method: 'DELETE' });
      assert.equal(del.status, 204);
      assertCaptureProblem(await send({ path: `/${sb.id}/after` }), 404, 'not-found');
      assertCaptureProblem(
        await send({ path: '/after', headers: { Host: `${sb.id}.capture.localhost` } }),
        404,
        'not-found',
      );
      assert.equal(await countRequests(getStore(), sb.id), 0, 'its captures went with it');
    });

    it('an expired ephemeral sandbox is 404', async () => {
      const sb = await ws.createSandbox({ name: 'short', ephemeral: true, ttlMinutes: 1 });
      assert.equal((await send({ path: `/${sb.id}/alive` })).status, 200);
      server.clock.advance(61_000);
      assertCaptureProblem(await send({ path: `/${sb.id}/dead` }), 404, 'not-found');
    });
  });

  describe('faithful recording', () => {
    it('keeps the raw target, header order, case and duplicates, and serves the exact bytes as /raw', async () => {
      const sb = await sandbox();
      const port = server.ports.capture;
      const head =
        `POST /${sb.id}/a%20b/%E2%9C%93?a=1&a=2&b&c=%20 HTTP/1.1\r\n` +
        `Host: 127.0.0.1:${port}\r\n` +
        'X-Dup: 1\r\n' +
        'x-MiXeD: v\r\n' +
        'X-Dup: 2\r\n' +
        'X-Latin: caf\xe9\r\n' +
        'Content-Type: text/plain\r\n' +
        'Content-Length: 5\r\n' +
        'Connection: close\r\n' +
        '\r\n';
      const sent = Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from('hello')]);
      const reply = parseResponse(await exchange(port, sent));
      assert.equal(reply.status, 200);
      assert.equal(header(reply, 'set-cookie'), undefined);
      const id = header(reply, 'x-sandtrap-request-id');

      const d = await detailOf(ws, sb, id);
      assert.equal(d.method, 'POST');
      assert.equal(d.path, '/a%20b/%E2%9C%93');
      assert.equal(d.query, 'a=1&a=2&b&c=%20');
      assert.deepEqual(d.headers, [
        { name: 'Host', value: `127.0.0.1:${port}` },
        { name: 'X-Dup', value: '1' },
        { name: 'x-MiXeD', value: 'v' },
        { name: 'X-Dup', value: '2' },
        { name: 'X-Latin', value: 'caf\u00e9' },
        { name: 'Content-Type', value: 'text/plain' },
        { name: 'Content-Length', value: '5' },
        { name: 'Connection', value: 'close' },
      ]);
      assert.deepEqual(d.queryParams, [
        { name: 'a', value: '1' },
        { name: 'a', value: '2' },
        { name: 'b', value: '' },
        { name: 'c', value: ' ' },
      ]);
      assert.equal(d.body, 'hello');
      assert.equal(d.sizeBytes, 5);
      assert.equal(d.sourceIp, '127.0.0.1');
      assert.equal(d.mockStatusCode, 200);
      assert.equal(d.mockName, null);
      // /raw is the request exactly as it arrived, byte for byte.
      assert.deepEqual(await rawOf(ws, sb, id), sent);
    });

    it('keeps an HTTP/1.0 request line as HTTP/1.0', async () => {
      const sb = await sandbox();
      const sent = `GET /${sb.id}/old?v=1 HTTP/1.0\r\nHost: legacy\r\nUser-Agent: Old/1.0\r\n\r\n`;
      const reply = parseResponse(await exchange(server.ports.capture, sent));
      assert.equal(reply.status, 200);
      const raw = await rawOf(ws, sb, header(reply, 'x-sandtrap-request-id'));
      assert.equal(raw.toString('latin1'), sent);
    });

    it('records methods as node sends them: custom (PROPFIND), lower-case given (upper-cased by node), PATCH by fetch', async () => {
      const sb = await sandbox();
      const propfind = await send({ method: 'PROPFIND', path: `/${sb.id}/dav`, headers: { Depth: '1' } });
      const lower = await send({ method: 'propfind', path: `/${sb.id}/dav2` });
      const mkcol = await send({ method: 'MKCOL', path: `/${sb.id}/dav3` });
      const patch = await fetch(`http://127.0.0.1:${server.ports.capture}/${sb.id}/p`, {
        method: 'PATCH',
        body: '{"a":1}',
      });
      assert.equal(patch.status, 200);
      await patch.arrayBuffer();
      for (const g of [propfind, lower, mkcol]) assert.equal(g.status, 200);
      assert.equal((await detailOf(ws, sb, propfind.requestId)).method, 'PROPFIND');
      assert.equal((await detailOf(ws, sb, lower.requestId)).method, 'PROPFIND');
      assert.equal((await detailOf(ws, sb, mkcol.requestId)).method, 'MKCOL');
      const p = await detailOf(ws, sb, patch.headers.get('x-sandtrap-request-id') ?? undefined);
      assert.equal(p.method, 'PATCH');
      assert.deepEqual(p.json, { a: 1 });
      const raw = await rawOf(ws, sb, propfind.requestId);
      assert.ok(raw.toString('latin1').startsWith(`PROPFIND /${sb.id}/dav HTTP/1.1\r\n`));
    });

    it('stores a body of all 256 byte values byte-exact; the detail is base64 of the same bytes', async () => {
      const sb = await sandbox();
      const got = await send({
        method: 'POST',
        path: `/${sb.id}/bin`,
        headers: { 'Content-Type': 'application/octet-stream' },
        body: ALL_BYTES,
      });
      assert.equal(got.status, 200);
      assert.deepEqual(rawBody(await rawOf(ws, sb, got.requestId)), ALL_BYTES);
      const d = await detailOf(ws, sb, got.requestId);
      assert.equal(d.bodyEncoding, 'base64');
      assert.deepEqual(Buffer.from(d.body ?? '', 'base64'), ALL_BYTES);
      assert.equal(d.sizeBytes, 256);
      assert.equal(d.bodyTruncated, false);
      assert.equal(d.json, null);
      assert.deepEqual(d.form, []);
    });

    it('stores a 1 MB random body byte-exact through /raw and the detail', async () => {
      const sb = await sandbox();
      const body = randomBytes(MB);
      const got = await send({
        method: 'PUT',
        path: `/${sb.id}/upload`,
        headers: { 'Content-Type': 'application/octet-stream' },
        body,
      });
      assert.equal(got.status, 200);
      assert.ok(rawBody(await rawOf(ws, sb, got.requestId)).equals(body), '/raw body equals the sent bytes');
      const d = await detailOf(ws, sb, got.requestId);
      assert.equal(d.sizeBytes, MB);
      assert.equal(d.bodyEncoding, 'base64');
      assert.equal(d.bodyTruncated, false);
      assert.ok(
        Buffer.from(d.body ?? '', 'base64').equals(body),
        'the detail body decodes to the same bytes',
      );
    });

    it('a UTF-8 body is shown as text, verbatim, even when it ends in U+FFFD', async () => {
      const sb = await sandbox();
      for (const text of ['Grüße ✓ naïve', 'replacement char at the end \uFFFD']) {
        const got = await send({
          method: 'POST',
          path: `/${sb.id}/utf8`,
          headers: { 'Content-Type': 'text/plain; charset=utf-8' },
          body: Buffer.from(text, 'utf8'),
        });
        const d = await detailOf(ws, sb, got.requestId);
        assert.equal(d.bodyEncoding, 'utf8');
        assert.equal(d.body, text);
        assert.equal(d.sizeBytes, Buffer.byteLength(text));
      }
    });

    it('stores a gzip body as sent (not inflated)', async () => {
      const sb = await sandbox();
      const gz = gzipSync(Buffer.from('{"compressed":true}'));
      const got = await send({
        method: 'POST',
        path: `/${sb.id}/gz`,
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        body: gz,
      });
      assert.ok(rawBody(await rawOf(ws, sb, got.requestId)).equals(gz));
      assert.equal((await detailOf(ws, sb, got.requestId)).sizeBytes, gz.length);
    });

    it('an empty body gives body null, sizeBytes 0', async () => {
      const sb = await sandbox();
      const got = await send({ method: 'DELETE', path: `/${sb.id}/thing/1` });
      const d = await detailOf(ws, sb, got.requestId);
      assert.equal(d.body, null);
      assert.equal(d.sizeBytes, 0);
      assert.equal(d.json, null);
      assert.equal(d.query, null);
    });

    it('sourceIp is 127.0.0.1, and X-Forwarded-For is ignored without TRUSTED_PROXIES', async () => {
      const sb = await sandbox();
      const plain = await send({ path: `/${sb.id}/ip` });
      const forged = await send({ path: `/${sb.id}/ip`, headers: { 'X-Forwarded-For': '203.0.113.7' } });
      assert.equal((await detailOf(ws, sb, plain.requestId)).sourceIp, '127.0.0.1');
      const d = await detailOf(ws, sb, forged.requestId);
      assert.equal(d.sourceIp, '127.0.0.1');
      assert.deepEqual(
        d.headers.find((h) => h.name === 'X-Forwarded-For'),
        { name: 'X-Forwarded-For', value: '203.0.113.7' },
        'the header itself is still recorded',
      );
    });

    it('receivedAt has millisecond precision and lies within the exchange', async () => {
      const sb = await sandbox();
      const from = server.clock.now().getTime();
      const got = await send({ path: `/${sb.id}/time` });
      const to = server.clock.now().getTime();
      const d = await detailOf(ws, sb, got.requestId);
      assert.match(d.receivedAt, ISO_MS_RE);
      const at = Date.parse(d.receivedAt);
      assert.ok(at >= from && at <= to, `${d.receivedAt} within [${from}, ${to}]`);
    });

    it('mockStatusCode and mockName are those of the answering rule; sizeBytes is the body length', async () => {
      const sb = await sandbox([
        { name: 'teapot', pattern: '/tea', statusCode: 418, body: 'short and stout' },
      ]);
      const body = 'x'.repeat(1234);
      const got = await send({ method: 'POST', path: `/${sb.id}/tea`, body });
      assert.equal(got.status, 418);
      assert.equal(got.body.toString(), 'short and stout');
      const d = await detailOf(ws, sb, got.requestId);
      assert.equal(d.mockStatusCode, 418);
      assert.equal(d.mockName, 'teapot');
      assert.equal(d.sizeBytes, 1234);
      const [s] = await listRequests(ws, sb);
      assert.equal(s?.mockStatusCode, 418);
      assert.equal(s?.mockName, 'teapot');
      assert.equal(s?.sizeBytes, 1234);
    });
  });

  describe('parsed views', () => {
    it('queryParams keep order and duplicates, decoding + and percent escapes', async () => {
      const sb = await sandbox();
      const got = await send({ path: `/${sb.id}/q?z=1&a=2&z=3&plus=a+b&enc=%26%3D&empty=` });
      const d = await detailOf(ws, sb, got.requestId);
      assert.equal(d.query, 'z=1&a=2&z=3&plus=a+b&enc=%26%3D&empty=');
      assert.deepEqual(d.queryParams, [
        { name: 'z', value: '1' },
        { name: 'a', value: '2' },
        { name: 'z', value: '3' },
        { name: 'plus', value: 'a b' },
        { name: 'enc', value: '&=' },
        { name: 'empty', value: '' },
      ]);
    });

    it('form: an urlencoded body keeps order and duplicates and decodes +', async () => {
      const sb = await sandbox();
      const body = 'b=2&a=1&b=3&name=Ada+Lovelace&sym=%26%C3%A9';
      const got = await send({
        method: 'POST',
        path: `/${sb.id}/form`,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' },
        body,
      });
      const d = await detailOf(ws, sb, got.requestId);
      assert.deepEqual(d.form, [
        { name: 'b', value: '2' },
        { name: 'a', value: '1' },
        { name: 'b', value: '3' },
        { name: 'name', value: 'Ada Lovelace' },
        { name: 'sym', value: '&é' },
      ]);
      assert.equal(d.body, body);
      assert.equal(d.json, null);
    });

    it('form: multipart text fields are listed in order; a file part is not a field', async () => {
      const sb = await sandbox();
      const fd = new FormData();
      fd.append('first', 'one');
      fd.append('upload', new Blob(['file content'], { type: 'text/plain' }), 'notes.txt');
      fd.append('second', 'two ✓');
      fd.append('first', 'again');
      const res = await fetch(`http://127.0.0.1:${server.ports.capture}/${sb.id}/multi`, {
        method: 'POST',
        body: fd,
      });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
      const d = await detailOf(ws, sb, res.headers.get('x-sandtrap-request-id') ?? undefined);
      assert.deepEqual(d.form, [
        { name: 'first', value: 'one' },
        { name: 'second', value: 'two ✓' },
        { name: 'first', value: 'again' },
      ]);
      assert.match(d.body ?? '', /filename="notes.txt"/);
      assert.match(d.body ?? '', /file content/);
    });

    it('json: a JSON body is parsed', async () => {
      const sb = await sandbox();
      const value = { user: { name: 'Ada', tags: ['x', 'y'] }, n: 1.5, ok: true, none: null };
      const got = await send({
        method: 'POST',
        path: `/${sb.id}/json`,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(value),
      });
      const d = await detailOf(ws, sb, got.requestId);
      assert.deepEqual(d.json, value);
      assert.equal(d.body, JSON.stringify(value));
      assert.equal(d.bodyEncoding, 'utf8');
      assert.deepEqual(d.form, []);
    });

    it('malformed JSON and malformed forms are stored raw with no parsed view, never an error', async () => {
      const sb = await sandbox();
      const cases: Array<[string, string]> = [
        ['application/json', '{"a":'],
        ['multipart/form-data; boundary=XYZ', 'this is not multipart at all'],
        ['multipart/form-data', '--nob\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--nob--\r\n'],
      ];
      for (const [type, body] of cases) {
        const got = await send({
          method: 'POST',
          path: `/${sb.id}/bad`,
          headers: { 'Content-Type': type },
          body,
        });
        assert.equal(got.status, 200, type);
        const d = await detailOf(ws, sb, got.requestId);
        assert.equal(d.body, body, type);
        assert.equal(d.json, null, type);
        assert.deepEqual(d.form, [], type);
        assert.deepEqual(rawBody(await rawOf(ws, sb, got.requestId)), Buffer.from(body), type);
      }
    });
  });

  describe('mock rules', () => {
    describe('patterns', () => {
      let sb: Sandbox;
      before(async () => {
        sb = await sandbox([
          { name: 'literal', method: 'GET', pattern: '/users/me', statusCode: 200, body: 'literal' },
          { name: 'param', method: 'get', pattern: '/users/{id}', statusCode: 201, body: 'user {{path.id}}' },
          { name: 'star', pattern: '/files/*/meta', statusCode: 202, body: 'star' },
          { name: 'globstar', pattern: '/static/**', statusCode: 203, body: 'globstar' },
          { name: 'rest', pattern: '/docs/{rest*}', statusCode: 206, body: 'rest={{path.rest}}' },
          {
            name: 'regex',
            pattern: 'regex:^/orders/(?P<num>[0-9]+)/(?P<part>[a-z]+)$',
            statusCode: 207,
            body: 'order {{path.num}} {{path.part}}',
          },
          { name: 'spaced', pattern: '/a b/c%2Fd', statusCode: 208, body: 'decoded literal' },
        ]);
      });

      const cases: Array<[string, string, number, string, string | null]> = [
        ['GET', '/users/me', 200, 'literal', 'literal'],
        ['GET', '/users/42', 201, 'user 42', 'param'],
        ['GET', '/users/a%20b', 201, 'user a b', 'param'],
        ['GET', '/users/42/', 201, 'user 42', 'param'],
        ['GET', '/users/42?x=1', 201, 'user 42', 'param'],
        ['GET', '/users/42/x', 200, '{}', null],
        ['POST', '/users/me', 200, '{}', null],
        ['DELETE', '/files/a/meta', 202, 'star', 'star'],
        ['GET', '/files/a/b/meta', 200, '{}', null],
        ['GET', '/static', 203, 'globstar', 'globstar'],
        ['PUT', '/static/js/app/main.js', 203, 'globstar', 'globstar'],
        ['GET', '/docs', 206, 'rest=', 'rest'],
        ['GET', '/docs/a/b/c', 206, 'rest=a/b/c', 'rest'],
        ['GET', '/orders/123/items', 207, 'order 123 items', 'regex'],
        ['GET', '/orders/abc/items', 200, '{}', null],
        ['GET', '/a%20b/c%2Fd', 208, 'decoded literal', 'spaced'],
      ];
      for (const [method, path, status, body, name] of cases) {
        it(`${method} ${path} → ${status} ${JSON.stringify(body)} (${name ?? 'default'})`, async () => {
          const got = await send({ method, path: `/${sb.id}${path}` });
          assert.equal(got.status, status);
          assert.equal(got.body.toString(), body);
          const d = await detailOf(ws, sb, got.requestId);
          assert.equal(d.mockName, name);
          assert.equal(d.mockStatusCode, status);
        });
      }

      it('a GET rule answers HEAD with the headers and no body', async () => {
        const got = await send({ method: 'HEAD', path: `/${sb.id}/users/me` });
        assert.equal(got.status, 200);
        assert.equal(got.body.length, 0);
        assert.equal(got.headers['content-length'], String('literal'.length));
        assert.match(String(got.headers['content-type']), /^text\/plain/);
        const d = await detailOf(ws, sb, got.requestId);
        assert.equal(d.method, 'HEAD');
        assert.equal(d.mockName, 'literal');
      });
    });

    it('the first matching rule wins; the fallback answers only what nothing else matched', async () => {
      const sb = await sandbox([
        { isFallback: true, name: 'catch-all', statusCode: 418, body: 'fallback {{method}}' },
        { name: 'first', pattern: '/hit', statusCode: 200, body: 'first' },
        { name: 'second', pattern: '/hit', statusCode: 201, body: 'second' },
        { name: 'post only', method: 'POST', pattern: '/only', statusCode: 202, body: 'posted' },
      ]);
      const hit = await send({ path: `/${sb.id}/hit` });
      assert.equal(hit.status, 200);
      assert.equal(hit.body.toString(), 'first');
      const miss = await send({ method: 'PUT', path: `/${sb.id}/miss` });
      assert.equal(miss.status, 418);
      assert.equal(miss.body.toString(), 'fallback PUT');
      const wrongMethod = await send({ path: `/${sb.id}/only` });
      assert.equal(wrongMethod.status, 418);
      const posted = await send({ method: 'POST', path: `/${sb.id}/only` });
      assert.equal(posted.status, 202);
      assert.equal((await detailOf(ws, sb, hit.requestId)).mockName, 'first');
      const m = await detailOf(ws, sb, miss.requestId);
      assert.equal(m.mockName, 'catch-all');
      assert.equal(m.mockStatusCode, 418);
    });

    it('with no rules the default reply is 200 application/json {} with nosniff and the request id', async () => {
      const sb = await sandbox();
      const got = await send({ method: 'POST', path: `/${sb.id}/anything?x=1`, body: 'hi' });
      assert.equal(got.status, 200);
      assert.match(String(got.headers['content-type']), /^application\/json/);
      assert.equal(got.body.toString(), '{}');
      assert.equal(got.headers['x-content-type-options'], 'nosniff');
      assert.match(got.requestId ?? '', UUID_RE);
      const d = await detailOf(ws, sb, got.requestId);
      assert.equal(d.id, got.requestId);
      assert.equal(d.mockName, null);
      assert.equal(d.mockStatusCode, 200);
    });

    describe('templates', () => {
      let sb: Sandbox;
      before(async () => {
        sb = await sandbox([
          {
            name: 'ids',
            pattern: '/ids',
            statusCode: 200,
            headers: {
              'X-Id': '{{request.id}}',
              'X-Uuid': '{{uuid}}',
              'X-Now': '{{now}}',
              'X-M': '{{method}}',
            },
            body: '{{uuid}}|{{uuid}}|{{now}}|{{now}}|{{request.id}}|{{method}}',
          },
          {
            name: 'json body',
            pattern: '/json',
            statusCode: 200,
            headers: { 'X-Name': '{{body.user.name}}' },
            body: 'name={{body.user.name}} first={{body.items[0]}} odd={{body["odd.key"]}} n={{body.n}} flag={{body.flag}} obj={{body.user}} whole={{body}}',
          },
          {
            name: 'form body',
            pattern: '/form',
            statusCode: 200,
            headers: { 'X-Field': '{{body.field}}' },
            body: 'field={{body.field}} b={{body.b}}',
          },
          {
            name: 'query header',
            pattern: '/qh',
            statusCode: 200,
            headers: { 'X-Key': '{{header.x-api-key}}', 'X-Q': '{{query.x ?? "none"}}' },
            body: 'x={{query.x}} key={{header.x-api-key}} missing={{query.nope ?? "default"}} present={{query.x ?? "default"}}',
          },
          {
            name: 'filters',
            pattern: '/filters',
            statusCode: 200,
            body: '{"name": {{body.user.name|json}}, "missing": {{body.nope|json}}, "user": {{body.user|json}}, "url": "{{body.text|url}}", "b64": "{{body.text|base64}}", "html": "{{body.html|html}}"}',
          },
        ]);
      });

      it('{{uuid}}, {{now}}, {{request.id}} and {{method}} in body and headers', async () => {
        const from = server.clock.now().getTime();
        const got = await send({ method: 'PATCH', path: `/${sb.id}/ids` });
        assert.equal(got.status, 200);
        const [u1, u2, n1, n2, rid, method] = got.body.toString().split('|');
        assert.match(u1 ?? '', UUID_RE);
        assert.match(u2 ?? '', UUID_RE);
        assert.notEqual(u1, u2, '{{uuid}} is fresh each time');
        assert.match(got.headers['x-uuid'] as string, UUID_RE);
        assert.notEqual(got.headers['x-uuid'], u1);
        assert.match(n1 ?? '', ISO_MS_RE);
        assert.equal(n1, n2, 'one {{now}} per request');
        assert.equal(got.headers['x-now'], n1);
        assert.ok(Date.parse(n1 ?? '') >= from);
        assert.equal(rid, got.requestId);
        assert.equal(got.headers['x-id'], got.requestId);
        assert.equal(method, 'PATCH');
        assert.equal(got.headers['x-m'], 'PATCH');
        const d = await detailOf(ws, sb, got.requestId);
        assert.equal(d.id, rid, '{{request.id}} is the recorded id');
        assert.equal(d.receivedAt, n1, '{{now}} is the recorded arrival time');
      });

      it('{{body.a.b}}, {{body.items[0]}}, {{body["odd.key"]}} and {{body}} from a JSON body', async () => {
        const payload = {
          user: { name: 'Ada' },
          items: ['first', 'second'],
          'odd.key': 'odd',
          n: 7,
          flag: false,
        };
        const text = JSON.stringify(payload);
        const got = await send({
          method: 'POST',
          path: `/${sb.id}/json`,
          headers: { 'Content-Type': 'application/json' },
          body: text,
        });
        assert.equal(
          got.body.toString(),
          `name=Ada first=first odd=odd n=7 flag=false obj={"name":"Ada"} whole=${text}`,
        );
        assert.equal(got.headers['x-name'], 'Ada');
        assert.match(String(got.headers['content-type']), /^text\/plain/);
      });

      it('{{body.field}} from an urlencoded form; a missing JSON path renders empty', async () => {
        const got = await send({
          method: 'POST',
          path: `/${sb.id}/form`,
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'field=hello+world&b=1&field=second',
        });
        assert.equal(got.body.toString(), 'field=hello world b=1');
        assert.equal(got.headers['x-field'], 'hello world');
        const none = await send({ method: 'POST', path: `/${sb.id}/json`, body: '{}' });
        assert.equal(none.body.toString(), 'name= first= odd= n= flag= obj= whole={}');
      });

      it('{{query.x}}, {{header.x-api-key}} and ?? "default"', async () => {
        const got = await send({
          path: `/${sb.id}/qh?x=a%20b&x=second`,
          headers: { 'X-API-Key': 'k-123' },
        });
        assert.equal(got.body.toString(), 'x=a b key=k-123 missing=default present=a b');
        assert.equal(got.headers['x-key'], 'k-123');
        assert.equal(got.headers['x-q'], 'a b');
        const bare = await send({ path: `/${sb.id}/qh` });
        assert.equal(bare.body.toString(), 'x= key= missing=default present=default');
        assert.equal(bare.headers['x-q'], 'none');
        assert.equal(bare.headers['x-key'], '');
      });

      it('filters |json (missing → null), |url, |base64, |html; a JSON-looking result is application/json', async () => {
        const got = await send({
          method: 'POST',
          path: `/${sb.id}/filters`,
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            user: { name: 'Ada "A"', id: 1 },
            text: 'a b&c/é',
            html: `<b>"x"</b> & 'y'`,
          }),
        });
        const text = got.body.toString();
        assert.equal(
          text,
          '{"name": "Ada \\"A\\"", "missing": null, "user": {"name":"Ada \\"A\\"","id":1}, ' +
            `"url": "a%20b%26c%2F%C3%A9", "b64": "${Buffer.from('a b&c/é').toString('base64')}", ` +
            '"html": "&lt;b&gt;&quot;x&quot;&lt;/b&gt; &amp; &#39;y&#39;"}',
        );
        assert.deepEqual(JSON.parse(text).missing, null);
        assert.equal(got.headers['content-type'], 'application/json');
      });

      it('inserted request text is never re-scanned for {{', async () => {
        const got = await send({ path: `/${sb.id}/qh?x=${encodeURIComponent('{{request.id}}')}` });
        assert.equal(got.body.toString(), 'x={{request.id}} key= missing=default present={{request.id}}');
      });
    });

    describe('reply headers', () => {
      it('Content-Type defaults: application/json for a JSON body, text/plain otherwise, never text/html', async () => {
        const sb = await sandbox([
          { pattern: '/json', statusCode: 200, body: '  {"ok": true}' },
          { pattern: '/array', statusCode: 200, body: '[1,2]' },
          { pattern: '/text', statusCode: 200, body: 'plain words' },
          { pattern: '/html', statusCode: 200, body: '<html><body><script>x()</script></body></html>' },
          { pattern: '/broken', statusCode: 200, body: '{not json' },
          { pattern: '/chosen', statusCode: 200, headers: { 'Content-Type': 'text/html' }, body: '<p>x</p>' },
          { pattern: '/empty', statusCode: 200 },
        ]);
        const types: Record<string, string | undefined> = {};
        for (const p of ['json', 'array', 'text', 'html', 'broken', 'chosen', 'empty']) {
          const got = await send({ path: `/${sb.id}/${p}` });
          assert.equal(got.status, 200);
          assert.equal(got.headers['x-content-type-options'], 'nosniff', p);
          types[p] = got.headers['content-type'];
        }
        assert.equal(types.json, 'application/json');
        assert.equal(types.array, 'application/json');
        assert.match(types.text ?? '', /^text\/plain/);
        assert.match(types.html ?? '', /^text\/plain/);
        assert.match(types.broken ?? '', /^text\/plain/);
        assert.equal(types.chosen, 'text/html');
        assert.equal(types.empty, undefined, 'an empty body gets no Content-Type');
      });

      it('a rule may set X-Content-Type-Options and Set-Cookie; only then do they differ', async () => {
        const sb = await sandbox([
          {
            pattern: '/own',
            statusCode: 200,
            headers: { 'x-content-type-options': 'custom', 'Set-Cookie': 'sid=abc; HttpOnly' },
            body: 'x',
          },
        ]);
        const got = await send({ path: `/${sb.id}/own`, allowCookie: true });
        const pairs = headerPairs(got.rawHeaders).filter(
          ([n]) => n.toLowerCase() === 'x-content-type-options',
        );
        assert.deepEqual(pairs, [['x-content-type-options', 'custom']]);
        assert.deepEqual(got.headers['set-cookie'], ['sid=abc; HttpOnly']);
      });

      it('a header rendering CR/LF answers 500 with X-Sandtrap-Error, and the request is recorded as 500', async () => {
        const sb = await sandbox([
          {
            name: 'crlf rule',
            pattern: '/crlf',
            statusCode: 200,
            headers: { 'X-Bad': '{{query.q}}' },
            body: 'ok',
          },
        ]);
        for (const q of ['a%0d%0aSet-Cookie:%20pwned=1', 'line%0abreak', 'nul%00byte']) {
          const got = await send({ path: `/${sb.id}/crlf?q=${q}` });
          assert.equal(got.status, 500, q);
          assert.match(String(got.headers['x-sandtrap-error']), /X-Bad/);
          assert.equal(got.headers['x-bad'], undefined);
          assert.equal(got.headers['set-cookie'], undefined);
          const d = await detailOf(ws, sb, got.requestId);
          assert.equal(d.mockStatusCode, 500);
          assert.equal(d.mockName, 'crlf rule');
          assert.equal(d.query, `q=${q}`);
        }
        const fine = await send({ path: `/${sb.id}/crlf?q=fine` });
        assert.equal(fine.status, 200);
        assert.equal(fine.headers['x-bad'], 'fine');
      });

      it('a rule named with non-Latin-1 text still answers a CR/LF header failure with 500 and records 500', async () => {
        const sb = await sandbox([
          { name: 'règle ✓', pattern: '/crlf', statusCode: 200, headers: { 'X-Bad': '{{query.q}}' } },
        ]);
        const got = await send({ path: `/${sb.id}/crlf?q=a%0d%0ab` });
        const items = await listRequests(ws, sb);
        assert.equal(items.length, 1, 'the request was recorded');
        assert.equal(got.status, items[0]?.mockStatusCode, 'the caller got the recorded status');
        assert.equal(got.status, 500);
        assert.ok(got.headers['x-sandtrap-error'] !== undefined);
      });

      it('a rule header value with a non-Latin-1 character: the caller gets the status that is recorded', async () => {
        const put = await ws.api(`/sandboxes/${(await sandbox()).id}/mocks`, {
          method: 'PUT',
          body: JSON.stringify({
            mocks: [{ pattern: '/uni', statusCode: 200, headers: { 'X-Emoji': 'ok ✓' } }],
          }),
        });
        if (put.status === 400) return; // refusing such a header when the rule is saved is also correct
        const sb = await okJson<Sandbox>(put);
        const got = await send({ path: `/${sb.id}/uni` });
        const items = await listRequests(ws, sb);
        if (got.status === 503) {
          assert.deepEqual(items, [], 'a 503 says nothing was kept, so nothing may be listed');
        } else {
          assert.equal(items.length, 1);
          assert.equal(items[0]?.mockStatusCode, got.status, 'the recorded status is the one returned');
        }
      });

      it('a templated header rendering non-Latin-1 request text answers like a CR/LF failure (500, recorded)', async () => {
        const sb = await sandbox([
          { name: 'echo', pattern: '/echo', statusCode: 200, headers: { 'X-Echo': '{{query.q}}' } },
        ]);
        const got = await send({ path: `/${sb.id}/echo?q=%E2%9C%93` });
        const items = await listRequests(ws, sb);
        assert.notEqual(got.status, 503, 'not "store unavailable: nothing was kept"');
        assert.equal(items.length, 1);
        assert.equal(items[0]?.mockStatusCode, got.status);
      });

      it('a rule with a 1xx status still gives the sender a final response', async () => {
        const sb = await sandbox([{ name: 'hints', pattern: '/info', statusCode: 103, body: 'early' }]);
        // Keep-alive, so only a final response (not the server hanging up) ends the exchange early.
        const out = (
          await exchange(server.ports.capture, `GET /${sb.id}/info HTTP/1.1\r\nHost: x\r\n\r\n`, 2000)
        ).toString('latin1');
        const statuses = [...out.matchAll(/^HTTP\/1\.1 (\d{3}) /gm)].map((m) => Number(m[1]));
        assert.ok(
          statuses.some((s) => s >= 200),
          `a final status line within 2 s, got ${JSON.stringify(out.slice(0, 200))}`,
        );
      });

      it('a reply rendering over 5 MB answers 500 and the request is recorded', async () => {
        const sb = await sandbox([
          { name: 'balloon', pattern: '/huge', statusCode: 200, body: '{{body}}'.repeat(100) },
        ]);
        const body = Buffer.alloc(64 * 1024, 'a'); // 100 copies: 6.4 MB
        const got = await send({ method: 'POST', path: `/${sb.id}/huge`, body });
        assert.equal(got.status, 500);
        assert.match(String(got.headers['x-sandtrap-error']), /5 MB/);
        assert.ok(got.body.length < 10_000, 'the huge reply was not sent');
        const d = await detailOf(ws, sb, got.requestId);
        assert.equal(d.mockStatusCode, 500);
        assert.equal(d.mockName, 'balloon');
        assert.equal(d.sizeBytes, body.length);
        // Just under the limit renders.
        const small = await send({ method: 'POST', path: `/${sb.id}/huge`, body: Buffer.alloc(50_000, 'b') });
        assert.equal(small.status, 200);
        assert.equal(small.body.length, 5_000_000);
      });
    });
  });

  describe('CORS', () => {
    it('a preflight with no matching rule is 204 with the Access-Control-Allow-* headers, and recorded', async () => {
      const sb = await sandbox();
      const got = await send({
        method: 'OPTIONS',
        path: `/${sb.id}/api/items`,
        headers: {
          Origin: 'https://app.example',
          'Access-Control-Request-Method': 'PUT',
          'Access-Control-Request-Headers': 'content-type, x-api-key',
        },
      });
      assert.equal(got.status, 204);
      assert.equal(got.body.length, 0);
      assert.equal(got.headers['access-control-allow-origin'], 'https://app.example');
      assert.equal(got.headers['access-control-allow-methods'], 'PUT');
      assert.equal(got.headers['access-control-allow-headers'], 'content-type, x-api-key');
      const d = await detailOf(ws, sb, got.requestId);
      assert.equal(d.method, 'OPTIONS');
      assert.equal(d.path, '/api/items');
      assert.equal(d.mockStatusCode, 204);
      assert.equal(d.mockName, null);
    });

    it('a rule that matches the preflight answers it instead', async () => {
      const sb = await sandbox([
        { name: 'opts', method: 'OPTIONS', pattern: '/api/**', statusCode: 200, body: 'mine' },
      ]);
      const got = await send({
        method: 'OPTIONS',
        path: `/${sb.id}/api/items`,
        headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'PUT' },
      });
      assert.equal(got.status, 200);
      assert.equal(got.body.toString(), 'mine');
      assert.equal((await detailOf(ws, sb, got.requestId)).mockName, 'opts');
    });

    it('a plain OPTIONS (no Access-Control-Request-Method) goes to the default reply or the fallback', async () => {
      const none = await sandbox();
      const got = await send({
        method: 'OPTIONS',
        path: `/${none.id}/x`,
        headers: { Origin: 'https://a.example' },
      });
      assert.equal(got.status, 200);
      assert.equal(got.body.toString(), '{}');
      assert.equal((await detailOf(ws, none, got.requestId)).mockName, null);

      const withFallback = await sandbox([{ isFallback: true, name: 'fb', statusCode: 405, body: 'nope' }]);
      const fb = await send({ method: 'OPTIONS', path: `/${withFallback.id}/x` });
      assert.equal(fb.status, 405);
      assert.equal(fb.body.toString(), 'nope');
      assert.equal((await detailOf(ws, withFallback, fb.requestId)).mockName, 'fb');
    });
  });

  describe('body limit (5 MB)', () => {
    it('Content-Length 5 MB + 1 is refused with 413 before the body is read; nothing is stored', async () => {
      const sb = await sandbox();
      const socket = net.connect(server.ports.capture, '127.0.0.1');
      socket.on('error', () => {}); // EPIPE/ECONNRESET once the server hangs up are expected
      const chunks: Buffer[] = [];
      const firstReply = new Promise<void>((resolve) => {
        socket.on('data', (c: Buffer) => {
          chunks.push(c);
          if (Buffer.concat(chunks).includes('\r\n\r\n')) resolve();
        });
        socket.on('close', () => resolve());
      });
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      socket.write(
        `POST /${sb.id}/big HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n` +
          `Content-Length: ${MAX_BODY + 1}\r\n\r\n`,
      );
      // No body byte has been sent: the answer must come anyway.
      await firstReply;
      const head = Buffer.concat(chunks).toString('latin1');
      assert.match(head, /^HTTP\/1\.1 413 /);
      assert.match(head, /\r\ncontent-type: application\/problem\+json/i);
      socket.write(Buffer.alloc(MAX_BODY + 1));
      setTimeout(() => socket.destroy(), 2000).unref();
      await closed;
      const reply = parseResponse(Buffer.concat(chunks));
      assert.equal(JSON.parse(reply.body.toString()).type, 'urn:sandtrap:problem:payload-too-large');
      assert.equal(await countRequests(getStore(), sb.id), 0);
      // The listener still serves.
      assert.equal((await send({ path: `/${sb.id}/after` })).status, 200);
    });

    it('with Expect: 100-continue, an over-limit or unknown-sandbox request is refused without a 100 Continue', async () => {
      const sb = await sandbox();
      const over = (
        await exchange(
          server.ports.capture,
          `POST /${sb.id}/big HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n` +
            `Content-Length: ${MAX_BODY + 1}\r\nConnection: close\r\n\r\n`,
          3000,
        )
      ).toString('latin1');
      // RFC 9110 10.1.1: after a 100 (Continue) the server must read the content; refusing means no 100.
      assert.match(over, /^HTTP\/1\.1 413 /, 'the first status line is the 413');
      const unknown = (
        await exchange(
          server.ports.capture,
          `POST /${randomUUID()}/x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n` +
            'Content-Length: 10\r\nConnection: close\r\n\r\n',
          3000,
        )
      ).toString('latin1');
      assert.match(unknown, /^HTTP\/1\.1 404 /, 'the first status line is the 404');
      assert.equal(await countRequests(getStore(), sb.id), 0);
    });

    it('with Expect: 100-continue, an accepted request gets 100 Continue, then the reply, and is stored', async () => {
      const sb = await sandbox();
      const got = await send({
        method: 'POST',
        path: `/${sb.id}/cont`,
        headers: { Expect: '100-continue', 'Content-Type': 'text/plain' },
        body: 'after continue',
      });
      assert.equal(got.status, 200);
      assert.equal((await detailOf(ws, sb, got.requestId)).body, 'after continue');
    });

    it('exactly 5 MB is accepted and stored byte-exact', async () => {
      const sb = await sandbox();
      const body = randomBytes(MAX_BODY);
      const got = await send({
        method: 'POST',
        path: `/${sb.id}/max`,
        headers: { 'Content-Type': 'application/octet-stream' },
        body,
      });
      assert.equal(got.status, 200);
      assert.ok(rawBody(await rawOf(ws, sb, got.requestId)).equals(body), 'every byte kept');
      const d = await detailOf(ws, sb, got.requestId);
      assert.equal(d.sizeBytes, MAX_BODY);
      assert.equal(d.bodyTruncated, true, 'the detail text is cut; /raw has every byte');
      assert.equal(d.bodyEncoding, 'base64');
      assert.ok(Buffer.from(d.body ?? '', 'base64').equals(body.subarray(0, MB)));
    });

    it('a chunked body that grows past 5 MB is refused with 413 and nothing is stored', async () => {
      const sb = await sandbox();
      const socket = net.connect(server.ports.capture, '127.0.0.1');
      socket.on('error', () => {});
      const chunks: Buffer[] = [];
      let answered = false;
      const gotHead = new Promise<void>((resolve) => {
        socket.on('data', (c: Buffer) => {
          chunks.push(c);
          if (Buffer.concat(chunks).includes('\r\n\r\n')) {
            answered = true;
            resolve();
          }
        });
        socket.on('close', () => resolve());
      });
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      socket.write(
        `POST /${sb.id}/stream HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      );
      const piece = Buffer.alloc(256 * 1024, 7);
      let sent = 0;
      while (!answered && !socket.destroyed && sent <= MAX_BODY + MB) {
        const ok = socket.write(
          Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]),
        );
        sent += piece.length;
        if (!ok) await Promise.race([new Promise((r) => socket.once('drain', r)), gotHead]);
      }
      assert.ok(sent > MAX_BODY || answered, 'sent past the limit');
      const timer = setTimeout(() => socket.destroy(), 5000);
      await gotHead;
      const head = Buffer.concat(chunks).toString('latin1');
      assert.match(head, /^HTTP\/1\.1 413 /);
      socket.destroy();
      await closed;
      clearTimeout(timer);
      assert.equal(await countRequests(getStore(), sb.id), 0);
      assert.equal((await send({ path: `/${sb.id}/after` })).status, 200);
    });
  });

  describe('persist then reply', () => {
    it('each request is listed as soon as its reply arrives (no sleep)', async () => {
      const sb = await sandbox();
      for (let i = 0; i < 10; i++) {
        const got = await send({ method: 'POST', path: `/${sb.id}/seq/${i}`, body: `n=${i}` });
        // Looked up by its own path: two requests within one millisecond have no defined order.
        const listed = await listRequests(ws, sb, `?q=${encodeURIComponent(`/seq/${i}`)}`);
        assert.deepEqual(
          listed.map((s) => [s.id, s.path]),
          [[got.requestId, `/seq/${i}`]],
          `request ${i} listed at once`,
        );
      }
    });

    it('concurrent requests are all listed once their replies arrived', async () => {
      const sb = await sandbox();
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) => send({ method: 'POST', path: `/${sb.id}/par/${i}`, body: 'x' })),
      );
      const ids = new Set((await listRequests(ws, sb, '?limit=100')).map((s) => s.id));
      assert.equal(ids.size, 20);
      for (const r of replies) assert.ok(ids.has(r.requestId ?? ''), `${r.requestId} listed`);
    });
  });

  describe('bad input', () => {
    it('a header flood over 64 KB is refused (431/400), nothing is stored, and the server keeps serving', async () => {
      const sb = await sandbox();
      let flood = '';
      for (let i = 0; i < 300; i++) flood += `X-Flood-${i}: ${'f'.repeat(240)}\r\n`;
      assert.ok(flood.length > 64 * 1024);
      const out = await exchange(
        server.ports.capture,
        `GET /${sb.id}/flood HTTP/1.1\r\nHost: x\r\n${flood}Connection: close\r\n\r\n`,
      );
      assert.match(out.toString('latin1'), /^HTTP\/1\.1 (431|400) /);
      assert.equal(await countRequests(getStore(), sb.id), 0);
      assert.equal((await send({ path: `/${sb.id}/ok` })).status, 200);
    });

    it('a malformed request line is 400 and the server keeps serving', async () => {
      const sb = await sandbox();
      const out = await exchange(server.ports.capture, 'THIS IS NOT HTTP\r\n\r\n');
      assert.match(out.toString('latin1'), /^HTTP\/1\.1 400 /);
      assert.equal((await send({ path: `/${sb.id}/ok` })).status, 200);
    });

    it('a request aborted in the middle of its body is not recorded', async () => {
      const sb = await sandbox();
      const socket = net.connect(server.ports.capture, '127.0.0.1');
      socket.on('error', () => {});
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(`POST /${sb.id}/cut HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal((await send({ path: `/${sb.id}/next` })).status, 200);
      assert.deepEqual(
        (await listRequests(ws, sb)).map((s) => s.path),
        ['/next'],
      );
    });

    it('slow senders holding half a header block do not stop others from being served', async () => {
      const sb = await sandbox();
      const slow: net.Socket[] = [];
      for (let i = 0; i < 20; i++) {
        const s = net.connect(server.ports.capture, '127.0.0.1');
        s.on('error', () => {});
        s.write(`POST /${sb.id}/slow HTTP/1.1\r\nHost: x\r\nX-Partial: `);
        slow.push(s);
      }
      try {
        for (let i = 0; i < 5; i++) {
          const got = await send({ path: `/${sb.id}/fast/${i}` });
          assert.equal(got.status, 200);
        }
        const res = await fetch(`http://127.0.0.1:${server.ports.capture}/${sb.id}/fetch`);
        assert.equal(res.status, 200);
        await res.arrayBuffer();
      } finally {
        for (const s of slow) s.destroy();
      }
      const paths = (await listRequests(ws, sb)).map((s) => s.path);
      assert.equal(paths.length, 6);
      assert.ok(!paths.includes('/slow'), 'a half-sent request is never recorded');
    });
  });

  describe('streams are independent', () => {
    it('clearing requests leaves messages, and clearing messages leaves requests', async () => {
      const sb = await sandbox();
      const transport = sandboxTransport(server.ports.smtp, sb);
      try {
        await transport.sendMail({ from: 'a@x.test', to: 'b@y.test', subject: 'stream check', text: 'hi' });
      } finally {
        transport.close();
      }
      const first = await send({ method: 'POST', path: `/${sb.id}/one`, body: 'x' });
      assert.equal(first.status, 200);

      const messages = async () =>
        (await okJson<{ items: Array<{ subject: string }> }>(await ws.api(`/sandboxes/${sb.id}/messages`)))
          .items;

      assert.equal((await ws.api(`/sandboxes/${sb.id}/requests`, { method: 'DELETE' })).status, 204);
      assert.deepEqual(await listRequests(ws, sb), []);
      assert.deepEqual(
        (await messages()).map((m) => m.subject),
        ['stream check'],
      );

      const second = await send({ path: `/${sb.id}/two` });
      assert.equal((await ws.api(`/sandboxes/${sb.id}/messages`, { method: 'DELETE' })).status, 204);
      assert.deepEqual(await messages(), []);
      assert.deepEqual(
        (await listRequests(ws, sb)).map((s) => s.id),
        [second.requestId],
      );
    });
  });

  // ---- suites that need a server with their own environment ----

  interface Own {
    server: TestServer;
    store: Store;
    agent: http.Agent;
    ws: TestServerWorkspace;
    send(s: Sent): Promise<Got>;
  }

  /** A server on a fresh store of this backend with `env`, for one suite; closed (with its store) after it. */
  function ownServer(env: Record<string, string>): () => Own {
    let own: Own | undefined;
    before(async () => {
      const store = await backend.open();
      const srv = await startTestServer(store, env);
      const a = new http.Agent({ keepAlive: true, maxSockets: 1 });
      own = {
        server: srv,
        store,
        agent: a,
        ws: await srv.workspace(),
        send: (s) => capture(srv.ports.capture, { agent: a, ...s }),
      };
    });
    after(async () => {
      own?.agent.destroy();
      await own?.server.close();
    });
    return () => {
      if (own === undefined) throw new Error('server not started');
      return own;
    };
  }

  describe('rate limit per IP (default 600 per 60 s)', () => {
    const own = ownServer({});

    it('600 requests are accepted, the 601st is 429 with an integer Retry-After and is not stored', async () => {
      const { ws: w, send: go, store } = own();
      const sb = await w.createSandbox({ name: 'limited' });
      for (let i = 0; i < 600; i++) {
        const got = await go({ method: 'POST', path: `/${sb.id}/n`, body: 'x' });
        assert.equal(got.status, 200, `request ${i + 1}`);
      }
      const over = await go({ method: 'POST', path: `/${sb.id}/over-the-limit`, body: 'x' });
      assertCaptureProblem(over, 429, 'rate-limited');
      const retry = String(over.headers['retry-after']);
      assert.match(retry, /^\d+$/);
      assert.ok(Number(retry) >= 1 && Number(retry) <= 60, `Retry-After ${retry}`);
      assert.equal(await countRequests(store, sb.id), 600);
      assert.deepEqual(await listRequests(w, sb, '?q=over-the-limit'), []);
      // Another sandbox from the same IP is refused too: the limit is per IP.
      const other = await w.createSandbox({ name: 'other' });
      assertCaptureProblem(await go({ path: `/${other.id}/x` }), 429, 'rate-limited');
      assert.equal(await countRequests(store, other.id), 0);
    });
  });

  describe('rate limit per workspace (RATE_LIMIT_CAPTURE_PER_WORKSPACE=5)', () => {
    const own = ownServer({ RATE_LIMIT_CAPTURE_PER_WORKSPACE: '5' });

    it('5 requests across the workspace are accepted, the 6th is 429; another workspace is unaffected', async () => {
      const { server: srv, ws: w, send: go, store } = own();
      const a = await w.createSandbox({ name: 'a' });
      const b = await w.createSandbox({ name: 'b' });
      for (const sb of [a, a, a, b, b]) assert.equal((await go({ path: `/${sb.id}/ok` })).status, 200);
      const over = await go({ path: `/${a.id}/sixth` });
      assertCaptureProblem(over, 429, 'rate-limited');
      assert.match(String(over.headers['retry-after']), /^[1-9]\d*$/);
      assert.equal(await countRequests(store, a.id), 3);
      assert.equal(await countRequests(store, b.id), 2);
      const otherWs = await srv.workspace();
      const c = await otherWs.createSandbox({ name: 'c' });
      assert.equal((await go({ path: `/${c.id}/ok` })).status, 200);
    });
  });

  describe('RATE_LIMITS=off', () => {
    const own = ownServer({
      RATE_LIMITS: 'off',
      RATE_LIMIT_CAPTURE_PER_IP: '2',
      RATE_LIMIT_CAPTURE_PER_WORKSPACE: '2',
    });

    it('lifts the per-IP and per-workspace capture limits', async () => {
      const { ws: w, send: go, store } = own();
      const sb = await w.createSandbox({ name: 'free' });
      for (let i = 0; i < 10; i++) assert.equal((await go({ path: `/${sb.id}/n/${i}` })).status, 200);
      assert.equal(await countRequests(store, sb.id), 10);
    });
  });

  describe('TRUSTED_PROXIES=loopback', () => {
    const own = ownServer({ TRUSTED_PROXIES: 'loopback', RATE_LIMIT_CAPTURE_PER_IP: '4' });

    it('X-Forwarded-For gives the sourceIp, and the per-IP limit counts the forwarded client', async () => {
      const { ws: w, send: go } = own();
      const sb = await w.createSandbox({ name: 'proxied' });
      const sourceIp = async (got: Got) => (await detailOf(w, sb, got.requestId)).sourceIp;

      const fwd = await go({ path: `/${sb.id}/x`, headers: { 'X-Forwarded-For': '203.0.113.7' } });
      assert.equal(await sourceIp(fwd), '203.0.113.7');
      // A client-written left part of the chain is not believed: the rightmost untrusted address is.
      const chain = await go({
        path: `/${sb.id}/x`,
        headers: { 'X-Forwarded-For': '198.51.100.1, 203.0.113.7' },
      });
      assert.equal(await sourceIp(chain), '203.0.113.7');
      const direct = await go({ path: `/${sb.id}/x` });
      assert.equal(await sourceIp(direct), '127.0.0.1');

      for (let i = 0; i < 2; i++) {
        assert.equal(
          (await go({ path: `/${sb.id}/x`, headers: { 'X-Forwarded-For': '203.0.113.7' } })).status,
          200,
        );
      }
      const over = await go({ path: `/${sb.id}/x`, headers: { 'X-Forwarded-For': '203.0.113.7' } });
      assertCaptureProblem(over, 429, 'rate-limited');
      const other = await go({ path: `/${sb.id}/x`, headers: { 'X-Forwarded-For': '203.0.113.8' } });
      assert.equal(other.status, 200);
      assert.equal(await sourceIp(other), '203.0.113.8');
    });
  });
});
