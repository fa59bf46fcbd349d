// Captured bodies people can read, through the real capture listener, REST API and MCP server: a
// Content-Encoding (gzip, x-gzip, deflate zlib-wrapped and raw, br, stacked) is undone for the request
// detail's views, mock templates and extraction while /raw keeps every byte as sent; a compression bomb is
// cut at 5 MB and answered without stalling the server; bad data falls back to the bytes as sent with a
// note; multipart file parts are listed and downloadable with the safe download headers.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import {
  brotliCompressSync,
  createGzip,
  deflateRawSync,
  deflateSync,
  gzipSync,
  type ZlibOptions,
} from 'node:zlib';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { components } from '../../openapi/schema.d.ts';
import { sendRecorded, type Got, type Sent } from '../helpers/captureClient.ts';
import { assertNotFound, assertUnauthorized } from '../helpers/responses.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { connectHttp, ok } from '../mcp/client.ts';

type Detail = components['schemas']['RequestDetail'];
type Sandbox = Record<string, any>;

const MB = 1024 * 1024;
const DECODED_CAP = 5 * MB;
const TEXT_CAP = 1 * MB;

const PAYLOAD = {
  email: 'ada@example.test',
  name: 'Ada Lovelace — naïve ✓',
  items: Array.from({ length: 40 }, (_, i) => ({ id: i, note: 'repeated text compresses well' })),
};
const PAYLOAD_TEXT = JSON.stringify(PAYLOAD);

/** gzip of `total` zero bytes, fed 1 MB at a time so neither side ever holds the inflated data. */
async function gzipOfZeros(total: number, options: ZlibOptions): Promise<Buffer> {
  const gz = createGzip(options);
  const chunks: Buffer[] = [];
  gz.on('data', (c: Buffer) => chunks.push(c));
  const ended = once(gz, 'end');
  const zeros = Buffer.alloc(MB);
  for (let written = 0; written < total; written += zeros.length) {
    if (!gz.write(zeros)) await once(gz, 'drain');
  }
  gz.end();
  await ended;
  return Buffer.concat(chunks);
}

// Level 1 keeps building it near a second; 1 GiB of zeros then gzips to about 4.7 MB, under the 5 MB limit.
let bombBuilt: Promise<Buffer> | undefined;
const bomb = () => (bombBuilt ??= gzipOfZeros(1024 * MB, { level: 1, chunkSize: 64 * 1024 }));

/** The body bytes of a /raw download (after the blank line). */
function rawBody(raw: Buffer): Buffer {
  const end = raw.indexOf('\r\n\r\n');
  assert.ok(end >= 0, 'the raw request has a header block');
  return raw.subarray(end + 4);
}

/** A multipart/form-data body as fetch's FormData encodes it, with its Content-Type (boundary included). */
async function multipart(form: FormData): Promise<{ bytes: Buffer; contentType: string }> {
  const req = new Request('http://multipart.invalid/', { method: 'POST', body: form });
  const contentType = req.headers.get('content-type');
  assert.ok(contentType !== null && contentType.startsWith('multipart/form-data; boundary='));
  return { bytes: Buffer.from(await req.arrayBuffer()), contentType };
}

describeEachStore('captured bodies', (getStore) => {
  let server: TestServer;
  let agent: http.Agent;
  let ws: TestServerWorkspace;

  before(async () => {
    // describeEachStore closes its store; the server must not close it a second time.
    server = await startTestServer({ ...getStore(), close: async () => {} }, { RATE_LIMITS: 'off' });
    agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    ws = await server.workspace();
  });
  after(async () => {
    agent.destroy();
    await server.close();
  });

  async function sandbox(mocks?: Array<Record<string, unknown>>): Promise<Sandbox> {
    const sb = await ws.createSandbox({ name: 'bodies' });
    if (mocks === undefined) return sb;
    const res = await ws.api(`/sandboxes/${sb.id}/mocks`, { method: 'PUT', body: JSON.stringify({ mocks }) });
    assert.equal(res.status, 200, await res.text());
    return sb;
  }

  /** Sends one capture with node's http client (headers byte for byte as given) and checks it was recorded. */
  async function send(sb: Sandbox, s: Omit<Sent, 'agent'>): Promise<Got & { requestId: string }> {
    return sendRecorded(server.ports.capture, sb.id, { agent, ...s });
  }

  async function detailOf(sb: Sandbox, id: string, w = ws): Promise<Detail> {
    const res = await w.api(`/sandboxes/${sb.id}/requests/${id}`);
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return JSON.parse(text) as Detail;
  }

  async function rawOf(sb: Sandbox, id: string): Promise<Buffer> {
    const res = await ws.api(`/sandboxes/${sb.id}/requests/${id}/raw`);
    assert.equal(res.status, 200);
    return rawBody(Buffer.from(await res.arrayBuffer()));
  }

  describe('Content-Encoding is undone for the parsed views; /raw keeps the bytes as sent', () => {
    const plain = Buffer.from(PAYLOAD_TEXT, 'utf8');
    const cases: Array<{ title: string; encoding: string | string[]; header: string; body: Buffer }> = [
      { title: 'gzip', encoding: 'gzip', header: 'gzip', body: gzipSync(plain) },
      { title: 'x-gzip', encoding: 'x-gzip', header: 'x-gzip', body: gzipSync(plain) },
      { title: 'deflate, zlib-wrapped', encoding: 'deflate', header: 'deflate', body: deflateSync(plain) },
      { title: 'deflate, raw', encoding: 'deflate', header: 'deflate', body: deflateRawSync(plain) },
      { title: 'br', encoding: 'br', header: 'br', body: brotliCompressSync(plain) },
      {
        title: 'stacked "gzip, br" (br undone first)',
        encoding: 'gzip, br',
        header: 'gzip, br',
        body: brotliCompressSync(gzipSync(plain)),
      },
      {
        title: 'stacked over two header lines: deflate then gzip, identity ignored',
        encoding: ['deflate, identity', 'GZIP'],
        header: 'deflate, identity, GZIP',
        body: gzipSync(deflateSync(plain)),
      },
    ];
    for (const c of cases) {
      it(`${c.title}: body, json and note from the decoded bytes; raw byte-exact`, async () => {
        assert.ok(!c.body.equals(plain), 'the sent bytes differ from the decoded text');
        const sb = await sandbox();
        const got = await send(sb, {
          method: 'POST',
          path: '/hook',
          headers: { 'Content-Type': 'application/json', 'Content-Encoding': c.encoding },
          body: c.body,
        });
        assert.equal(got.status, 200);
        const d = await detailOf(sb, got.requestId);
        assert.equal(d.body, PAYLOAD_TEXT);
        assert.equal(d.bodyEncoding, 'utf8');
        assert.deepEqual(d.json, PAYLOAD);
        assert.equal(d.contentEncoding, c.header);
        assert.equal(d.bodyDecoding, 'decoded');
        assert.equal(d.bodyTruncated, false);
        assert.match(String(d.bodyNote), /^decoded from /);
        assert.equal(d.sizeBytes, c.body.length, 'sizeBytes counts the bytes as sent');
        assert.deepEqual(d.files, []);
        assert.ok((await rawOf(sb, got.requestId)).equals(c.body), '/raw has the bytes as sent');
      });
    }

    it('the note names the codings in the order they were undone', async () => {
      const sb = await sandbox();
      const got = await send(sb, {
        method: 'POST',
        path: '/stacked',
        headers: { 'Content-Encoding': 'gzip, br' },
        body: brotliCompressSync(gzipSync(plain)),
      });
      assert.match(String((await detailOf(sb, got.requestId)).bodyNote), /^decoded from br, then gzip \(/);
    });

    it('a body without Content-Encoding (or only identity) is untouched: bodyDecoding none, no note', async () => {
      const sb = await sandbox();
      const none = await send(sb, { method: 'POST', path: '/plain', body: PAYLOAD_TEXT });
      const identity = await send(sb, {
        method: 'POST',
        path: '/identity',
        headers: { 'Content-Encoding': 'identity' },
        body: PAYLOAD_TEXT,
      });
      const a = await detailOf(sb, none.requestId);
      assert.equal(a.contentEncoding, null);
      assert.equal(a.bodyDecoding, 'none');
      assert.equal(a.bodyNote, null);
      assert.deepEqual(a.json, PAYLOAD);
      const b = await detailOf(sb, identity.requestId);
      assert.equal(b.contentEncoding, 'identity');
      assert.equal(b.bodyDecoding, 'none');
      assert.equal(b.bodyNote, null);
      assert.equal(b.body, PAYLOAD_TEXT);
    });

    it('a gzip urlencoded form fills `form` from the decoded body', async () => {
      const sb = await sandbox();
      const form = 'email=ada%40example.test&tag=a&tag=b&note=caf%C3%A9+au+lait';
      const got = await send(sb, {
        method: 'POST',
        path: '/signup',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Encoding': 'gzip' },
        body: gzipSync(form),
      });
      const d = await detailOf(sb, got.requestId);
      assert.deepEqual(d.form, [
        { name: 'email', value: 'ada@example.test' },
        { name: 'tag', value: 'a' },
        { name: 'tag', value: 'b' },
        { name: 'note', value: 'café au lait' },
      ]);
      assert.equal(d.body, form);
      assert.equal(d.json, null);
    });
  });

  describe('mock templates read the decoded body', () => {
    it('{{body.email}} and {{body.items[1].id}} from a gzip JSON body; {{body}} is the decoded text', async () => {
      const sb = await sandbox([
        {
          name: 'keys',
          pattern: '/keys',
          statusCode: 201,
          headers: { 'X-Email': '{{body.email}}' },
          body: '{"hello": {{body.email|json}}, "second": {{body.items[1].id}}}',
        },
        { name: 'whole', pattern: '/whole', statusCode: 200, body: '{{body}}' },
      ]);
      const headers = { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' };
      const keys = await send(sb, { method: 'POST', path: '/keys', headers, body: gzipSync(PAYLOAD_TEXT) });
      assert.equal(keys.status, 201, keys.body.toString());
      assert.deepEqual(JSON.parse(keys.body.toString('utf8')), { hello: 'ada@example.test', second: 1 });
      assert.equal(keys.headers['x-email'], 'ada@example.test');
      const whole = await send(sb, { method: 'POST', path: '/whole', headers, body: gzipSync(PAYLOAD_TEXT) });
      assert.equal(whole.status, 200);
      assert.equal(whole.body.toString('utf8'), PAYLOAD_TEXT);
    });

    it('{{body.email}} from a br form post; a body that does not decode renders as sent', async () => {
      const sb = await sandbox([
        { name: 'echo', pattern: '/echo', statusCode: 200, body: 'email={{body.email}} all={{body}}' },
      ]);
      const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
      const br = await send(sb, {
        method: 'POST',
        path: '/echo',
        headers: { ...form, 'Content-Encoding': 'br' },
        body: brotliCompressSync('email=ada%40example.test&x=1'),
      });
      assert.equal(br.body.toString('utf8'), 'email=ada@example.test all=email=ada%40example.test&x=1');
      const bad = await send(sb, {
        method: 'POST',
        path: '/echo',
        headers: { ...form, 'Content-Encoding': 'gzip' },
        body: 'email=plain%40example.test',
      });
      assert.equal(bad.body.toString('utf8'), 'email=plain@example.test all=email=plain%40example.test');
    });
  });

  describe('a compression bomb', () => {
    it('is captured and answered, the server stays responsive, and the detail says the view was cut', async (t) => {
      const gz = await bomb();
      assert.ok(gz.length < 5 * MB, `the bomb fits the 5 MB capture limit (${gz.length} bytes)`);
      const sb = await sandbox([
        { name: 'keys', pattern: '/keys', statusCode: 200, body: '{"email":"{{body.email}}"}' },
        { name: 'whole', pattern: '/whole', statusCode: 200, body: '{{body}}' },
      ]);
      const headers = { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' };

      const keys = await send(sb, { method: 'POST', path: '/keys', headers, body: gz });
      assert.equal(keys.status, 200, keys.body.toString());
      assert.equal(keys.body.toString('utf8'), '{"email":""}');
      const health = await fetch(`${server.apiUrl}/healthz`);
      assert.equal(health.status, 200, 'the API answers right after the bomb');
      await health.arrayBuffer();

      // {{body}} renders the same cut view the API shows: exactly 5 MB of the inflated zeros.
      const whole = await send(sb, { method: 'POST', path: '/whole', headers, body: gz });
      assert.equal(whole.status, 200);
      assert.equal(whole.body.length, DECODED_CAP);
      assert.ok(whole.body.every((b) => b === 0));

      const d = await detailOf(sb, keys.requestId);
      t.diagnostic(`${gz.length} gzip bytes inflating to 1 GiB`);
      assert.equal(d.bodyDecoding, 'cut');
      assert.equal(d.bodyTruncated, true);
      assert.equal(d.contentEncoding, 'gzip');
      assert.match(String(d.bodyNote), /cut at 5 MB/);
      assert.equal(d.body?.length, TEXT_CAP, 'the text view is the first 1 MB of the decoded zeros');
      assert.equal(d.json, null);
      assert.equal(d.sizeBytes, gz.length);
      assert.ok((await rawOf(sb, keys.requestId)).equals(gz), '/raw has every compressed byte');
    });
  });

  describe('a body that does not decode is shown as sent, with a note', () => {
    const notUtf8 = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff, 0xfe, 0x00, 0x80, 0x81, 0x82, 0xc3, 0x28]);

    it('corrupt gzip: base64 of the bytes as sent, bodyDecoding failed, the note says why', async () => {
      const sb = await sandbox();
      const got = await send(sb, {
        method: 'POST',
        path: '/corrupt',
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        body: notUtf8,
      });
      assert.equal(got.status, 200);
      const d = await detailOf(sb, got.requestId);
      assert.equal(d.bodyDecoding, 'failed');
      assert.equal(d.bodyEncoding, 'base64');
      assert.equal(d.body, notUtf8.toString('base64'));
      assert.match(String(d.bodyNote), /^could not decode gzip: .+; body shown as sent$/);
      assert.equal(d.bodyTruncated, false);
      assert.ok((await rawOf(sb, got.requestId)).equals(notUtf8));
    });

    it('a gzip stream cut short, and plain text labelled gzip: the text as sent', async () => {
      const sb = await sandbox();
      const full = gzipSync(PAYLOAD_TEXT);
      const short = await send(sb, {
        method: 'POST',
        path: '/short',
        headers: { 'Content-Encoding': 'gzip' },
        body: full.subarray(0, full.length - 12),
      });
      const d = await detailOf(sb, short.requestId);
      assert.equal(d.bodyDecoding, 'failed');
      assert.equal(d.body, full.subarray(0, full.length - 12).toString('base64'));
      const text = await send(sb, {
        method: 'POST',
        path: '/text',
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        body: PAYLOAD_TEXT,
      });
      const t = await detailOf(sb, text.requestId);
      assert.equal(t.bodyDecoding, 'failed');
      assert.equal(t.body, PAYLOAD_TEXT);
      assert.deepEqual(t.json, PAYLOAD, 'the views fall back to the bytes as sent');
    });

    it('an unknown coding (zstd) or a bad stage in a stack names the coding that failed', async () => {
      const sb = await sandbox();
      const zstd = await send(sb, {
        method: 'POST',
        path: '/zstd',
        headers: { 'Content-Encoding': 'zstd' },
        body: 'not really zstd',
      });
      const z = await detailOf(sb, zstd.requestId);
      assert.equal(z.bodyDecoding, 'failed');
      assert.equal(z.contentEncoding, 'zstd');
      assert.equal(z.bodyNote, 'could not decode zstd: unknown content encoding; body shown as sent');
      assert.equal(z.body, 'not really zstd');
      // br wraps bytes that are not gzip: br decodes, gzip fails, and the whole view falls back.
      const stacked = brotliCompressSync(Buffer.from('plain, not gzip'));
      const bad = await send(sb, {
        method: 'POST',
        path: '/stack',
        headers: { 'Content-Encoding': 'gzip, br' },
        body: stacked,
      });
      const b = await detailOf(sb, bad.requestId);
      assert.equal(b.bodyDecoding, 'failed');
      assert.match(String(b.bodyNote), /^could not decode gzip: /);
      assert.equal(b.body, stacked.toString('base64'));
    });
  });

  describe('multipart file parts', () => {
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256)),
    ]);
    const html = Buffer.from('<!doctype html><script>alert(1)</script><p>CV of Ada — née Byron</p>\n');

    function form(): FormData {
      const f = new FormData();
      f.append('name', 'Ada');
      f.append('avatar', new Blob([png], { type: 'image/png' }), 'avatar.png');
      f.append('email', 'ada@example.test');
      f.append('cv', new Blob([html], { type: 'text/html' }), 'résumé.html');
      return f;
    }

    const expectedFiles = [
      { index: 0, field: 'avatar', fileName: 'avatar.png', contentType: 'image/png', sizeBytes: png.length },
      { index: 1, field: 'cv', fileName: 'résumé.html', contentType: 'text/html', sizeBytes: html.length },
    ];

    let sb: Sandbox;
    let plainId: string;
    let gzipId: string;
    let gzipBytes: Buffer;

    before(async () => {
      sb = await sandbox();
      // fetch with FormData: the multipart body exactly as a real client encodes it.
      const res = await fetch(`http://127.0.0.1:${server.ports.capture}/${sb.id}/upload`, {
        method: 'POST',
        body: form(),
      });
      await res.arrayBuffer();
      plainId = String(res.headers.get('x-sandtrap-request-id'));
      const { bytes, contentType } = await multipart(form());
      gzipBytes = gzipSync(bytes);
      gzipId = (
        await send(sb, {
          method: 'POST',
          path: '/upload-gz',
          headers: { 'Content-Type': contentType, 'Content-Encoding': 'gzip' },
          body: gzipBytes,
        })
      ).requestId;
    });

    const fileUrl = (id: string, index: number | string) =>
      `/sandboxes/${sb.id}/requests/${id}/files/${index}`;

    it('files are listed with field, name, type and size; text fields stay in form', async () => {
      for (const id of [plainId, gzipId]) {
        const d = await detailOf(sb, id);
        assert.deepEqual(d.files, expectedFiles);
        assert.deepEqual(d.form, [
          { name: 'name', value: 'Ada' },
          { name: 'email', value: 'ada@example.test' },
        ]);
      }
      assert.equal((await detailOf(sb, gzipId)).bodyDecoding, 'decoded');
      assert.ok((await rawOf(sb, gzipId)).equals(gzipBytes), '/raw of the gzip multipart is as sent');
    });

    it('each file downloads byte-exact with its type, as an attachment, nosniff and CSP sandbox', async () => {
      for (const id of [plainId, gzipId]) {
        const avatar = await ws.api(fileUrl(id, 0));
        assert.equal(avatar.status, 200);
        assert.equal(avatar.headers.get('content-type'), 'image/png');
        assert.equal(avatar.headers.get('content-disposition'), 'attachment; filename="avatar.png"');
        assert.equal(avatar.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(avatar.headers.get('content-security-policy'), 'sandbox');
        assert.ok(Buffer.from(await avatar.arrayBuffer()).equals(png));

        const cv = await ws.api(fileUrl(id, 1));
        assert.equal(cv.status, 200);
        assert.match(cv.headers.get('content-type') ?? '', /^text\/html/);
        const disposition = cv.headers.get('content-disposition') ?? '';
        assert.match(disposition, /^attachment; filename="r_sum_\.html"; /);
        assert.ok(disposition.includes("filename*=UTF-8''r%C3%A9sum%C3%A9.html"), disposition);
        assert.equal(cv.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(cv.headers.get('content-security-policy'), 'sandbox');
        assert.ok(Buffer.from(await cv.arrayBuffer()).equals(html));
      }
    });

    it('an index past the last file, or a request without files, is 404', async () => {
      await assertNotFound(await ws.api(fileUrl(plainId, 2)), 'index 2 of 2 files');
      const other = await send(sb, { method: 'POST', path: '/json', body: PAYLOAD_TEXT });
      await assertNotFound(await ws.api(fileUrl(other.requestId, 0)), 'a request without files');
      await assertNotFound(
        await ws.api(fileUrl('00000000-0000-4000-8000-000000000000', 0)),
        'a request that does not exist',
      );
    });

    it("another workspace's key gets 404 for the detail and the file", async () => {
      const stranger = await server.workspace();
      await assertNotFound(await stranger.api(fileUrl(plainId, 0)), 'file of another workspace');
      await assertNotFound(
        await stranger.api(`/sandboxes/${sb.id}/requests/${plainId}`),
        'detail of another workspace',
      );
    });

    it('no key is 401', async () => {
      const res = await fetch(`${server.apiUrl}/api/v1${fileUrl(plainId, 0)}`);
      await assertUnauthorized(res, /No API key/);
    });

    it('a file part cut off by the end of the body is not listed; the complete one before it is', async () => {
      const { bytes, contentType } = await multipart(form());
      const cut = bytes.subarray(0, bytes.indexOf('CV of Ada'));
      const got = await send(sb, {
        method: 'POST',
        path: '/cut',
        headers: { 'Content-Type': contentType },
        body: cut,
      });
      const d = await detailOf(sb, got.requestId);
      assert.deepEqual(d.files, [expectedFiles[0]]);
      await assertNotFound(await ws.api(fileUrl(got.requestId, 1)), 'the cut file');
    });
  });

  describe('MCP sees the decoded views', () => {
    let client: Client;
    before(async () => {
      client = await connectHttp(server.apiUrl, ws.key);
    });
    after(async () => {
      await client.close();
    });

    it('get_request lists files and the decoding; extract_from_body reads a gzip JSON body', async () => {
      const sb = await sandbox();
      const f = new FormData();
      f.append('doc', new Blob(['hello'], { type: 'text/plain' }), 'hello.txt');
      const { bytes, contentType } = await multipart(f);
      const upload = await send(sb, {
        method: 'POST',
        path: '/upload',
        headers: { 'Content-Type': contentType, 'Content-Encoding': 'deflate' },
        body: deflateSync(bytes),
      });
      const got = await ok(client, 'get_request', { sandbox_id: sb.id, request_id: upload.requestId });
      assert.deepEqual(got.request.files, [
        { index: 0, field: 'doc', file_name: 'hello.txt', content_type: 'text/plain', size_bytes: 5 },
      ]);
      assert.equal(got.request.content_encoding, 'deflate');
      assert.equal(got.request.body_decoding, 'decoded');
      assert.match(got.request.body_note, /^decoded from deflate/);

      const json = await send(sb, {
        method: 'POST',
        path: '/json',
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'br' },
        body: brotliCompressSync(PAYLOAD_TEXT),
      });
      const byPath = await ok(client, 'extract_from_body', {
        sandbox_id: sb.id,
        request_id: json.requestId,
        mode: 'json_path',
        pattern: '$.email',
      });
      assert.equal(byPath.status, 'found');
      assert.deepEqual(
        byPath.matches.map((m: { value: string }) => m.value),
        ['ada@example.test'],
      );
      const byRegex = await ok(client, 'extract_from_body', {
        sandbox_id: sb.id,
        request_id: json.requestId,
        mode: 'regex',
        pattern: 'Ada ([A-Za-z]+)',
      });
      assert.deepEqual(
        byRegex.matches.map((m: { value: string }) => m.value),
        ['Lovelace'],
      );
    });
  });
});
