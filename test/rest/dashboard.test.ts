// The dashboard's server side over real HTTP, on every store: its files from a build directory (index.html
// for deep links, hashed assets cached for a year and sent precompressed as accepted, a strict CSP on every
// answer, 503 when not built); a message's HTML for the sandboxed iframe; the mock rule preview, checked
// against what the capture listener really answers; and each sandbox's dashboardUrl.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { createCore, type Core } from '../../src/core/core.ts';
import { buildApi } from '../../src/rest/app.ts';
import { DEFAULT_WEB_DIR } from '../../src/rest/routes/dashboard.ts';
import { FRAME_HEIGHT_SCRIPT } from '../../src/rest/routes/messageHtml.ts';
import { testConfig } from '../helpers/api.ts';
import { sendRecorded } from '../helpers/captureClient.ts';
import { testClock } from '../helpers/clock.ts';
import { sandboxTransport } from '../helpers/mail.ts';
import { eventually } from '../helpers/poll.ts';
import { assertJson, assertProblem } from '../helpers/responses.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

const T = { timeout: 30_000 };

const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; frame-src 'self'; " +
  "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
// An opaque origin (no allow-same-origin); the only script allowed is the height script, by the hash of its text.
const HEIGHT_SCRIPT_HASH = createHash('sha256').update(FRAME_HEIGHT_SCRIPT).digest('base64');
const HTML_CSP =
  "sandbox allow-scripts allow-popups allow-popups-to-escape-sandbox; default-src 'none'; " +
  `script-src 'sha256-${HEIGHT_SCRIPT_HASH}'; img-src data: https: http:; ` +
  "style-src 'unsafe-inline'; font-src data: https:; frame-ancestors 'self'";
const FIRST = `<base target="_blank"><script>${FRAME_HEIGHT_SCRIPT}</script>`;

const INDEX =
  '<!doctype html><html><head><script type="module" src="/assets/app-3f9a1c2b.js"></script></head></html>';
const JS = `console.log(${JSON.stringify('x'.repeat(2000))});`;
const CSS = `body{color:${'red;'.repeat(500)}}`;

/** A dist/web as the build writes it: the JS with .br and .gz, the CSS with .gz only. */
function writeBuild(dir: string): void {
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), INDEX);
  writeFileSync(join(dir, 'assets', 'app-3f9a1c2b.js'), JS);
  writeFileSync(join(dir, 'assets', 'app-3f9a1c2b.js.br'), brotliCompressSync(JS));
  writeFileSync(join(dir, 'assets', 'app-3f9a1c2b.js.gz'), gzipSync(JS));
  writeFileSync(join(dir, 'assets', 'app-77aa00ff.css'), CSS);
  writeFileSync(join(dir, 'assets', 'app-77aa00ff.css.gz'), gzipSync(CSS));
  writeFileSync(join(dir, 'secret.txt'), 'outside assets');
}

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** node's http client: the bytes as sent (fetch would decompress them). */
function rawGet(base: string, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
  });
}

function assertDashboardHeaders(headers: http.IncomingHttpHeaders | Headers): void {
  const get = (name: string) =>
    headers instanceof Headers ? headers.get(name) : (headers[name] as string | undefined);
  assert.equal(get('content-security-policy'), DASHBOARD_CSP);
  assert.equal(get('x-content-type-options'), 'nosniff');
  assert.equal(get('referrer-policy'), 'same-origin');
}

describeEachStore('dashboard files', (getStore) => {
  const built = mkdtempSync(join(tmpdir(), 'sandtrap-web-'));
  const missing = join(built, 'not-built');
  let app: FastifyInstance;
  let core: Core;
  let bare: FastifyInstance;
  let base: string;
  let bareBase: string;

  const listen = async (webDir: string, env: Record<string, string> = {}) => {
    const core = createCore({ store: getStore(), config: testConfig(env), clock: testClock() });
    const api = await buildApi({ core, logger: pino({ level: 'silent' }), webDir });
    await api.listen({ port: 0, host: '127.0.0.1' });
    return { core, api, url: `http://127.0.0.1:${(api.server.address() as AddressInfo).port}` };
  };

  before(async () => {
    writeBuild(built);
    ({ core, api: app, url: base } = await listen(built, { PUBLIC_URL: 'https://sandtrap.example.com/' }));
    ({ api: bare, url: bareBase } = await listen(missing));
  });
  after(async () => {
    await app.close();
    await bare.close();
    rmSync(built, { recursive: true, force: true });
  });

  it('serves index.html for / and every deep link, never cached stale, with the strict CSP', T, async () => {
    for (const path of [
      '/',
      '/s/0b9c3c1e-6f1e-4d43-9a3c-1c1f0f7d2a11',
      '/s/0b9c3c1e-6f1e-4d43-9a3c-1c1f0f7d2a11/messages/5b0e7c43-0c5e-4f6f-9a4b-7a1c1b2d3e4f',
      '/s/0b9c3c1e-6f1e-4d43-9a3c-1c1f0f7d2a11/requests/5b0e7c43-0c5e-4f6f-9a4b-7a1c1b2d3e4f',
      '/s/0b9c3c1e-6f1e-4d43-9a3c-1c1f0f7d2a11/rules',
      '/?from=mail',
    ]) {
      const res = await fetch(`${base}${path}`);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(res.headers.get('cache-control'), 'no-cache');
      assertDashboardHeaders(res.headers);
      assert.equal(await res.text(), INDEX);
    }
    const head = await fetch(`${base}/`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assertDashboardHeaders(head.headers);
  });

  it('serves hashed assets immutable for a year, precompressed br or gzip as accepted', T, async () => {
    const cases: Array<[string, string, string | undefined]> = [
      ['/assets/app-3f9a1c2b.js', 'gzip, deflate, br', 'br'],
      ['/assets/app-3f9a1c2b.js', 'gzip', 'gzip'],
      ['/assets/app-3f9a1c2b.js', 'br;q=0, gzip;q=0.8', 'gzip'],
      // `*` states no preference: taken as gzip, which every client that sends it can read.
      ['/assets/app-3f9a1c2b.js', '*', 'gzip'],
      ['/assets/app-3f9a1c2b.js', 'identity', undefined],
      ['/assets/app-3f9a1c2b.js', '', undefined],
      ['/assets/app-77aa00ff.css', 'br, gzip', 'gzip'],
      ['/assets/app-77aa00ff.css', 'br', undefined],
    ];
    for (const [path, accept, encoding] of cases) {
      const res = await rawGet(base, path, accept === '' ? {} : { 'accept-encoding': accept });
      const what = `${path} with Accept-Encoding "${accept}"`;
      assert.equal(res.status, 200, what);
      assert.equal(res.headers['content-encoding'], encoding, what);
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable', what);
      assert.match(String(res.headers.vary), /accept-encoding/i, what);
      assert.equal(
        res.headers['content-type'],
        path.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
      );
      assertDashboardHeaders(res.headers);
      const plain =
        encoding === 'br'
          ? brotliDecompressSync(res.body)
          : encoding === 'gzip'
            ? gunzipSync(res.body)
            : res.body;
      assert.equal(plain.toString('utf8'), path.endsWith('.js') ? JS : CSS, what);
      if (encoding !== undefined) assert.ok(res.body.length < plain.length / 5, `${what} is compressed`);
    }
  });

  it('serves nothing outside assets/ and says which asset is missing', T, async () => {
    for (const path of [
      '/assets/app-0000.js',
      '/assets/..%2Fsecret.txt',
      '/assets/%2e%2e%2fsecret.txt',
      '/assets/.hidden',
      '/assets/app-3f9a1c2b.js.br',
    ]) {
      const res = await rawGet(base, path, { 'accept-encoding': 'br, gzip' });
      assert.equal(res.status, 404, path);
      assert.doesNotMatch(res.body.toString(), /outside assets/);
    }
    const res = await fetch(`${base}/assets/app-0000.js`);
    const problem = await assertProblem(res, 404, 'not-found');
    assert.match(problem.detail ?? '', /Reload/);
    assertDashboardHeaders(res.headers);
    assert.equal((await fetch(`${base}/secret.txt`)).status, 404);
  });

  it('answers 503 saying how to build it when dist/web is missing', T, async () => {
    for (const path of ['/', '/s/0b9c3c1e-6f1e-4d43-9a3c-1c1f0f7d2a11', '/assets/app-3f9a1c2b.js']) {
      const res = await fetch(`${bareBase}${path}`);
      const problem = await assertProblem(res, 503, 'unavailable');
      assert.match(problem.detail ?? '', /The dashboard is not built: run npm ci \(or npm run build:web\)/);
      assertDashboardHeaders(res.headers);
    }
  });

  const realBuild = join(DEFAULT_WEB_DIR, 'manifest.json');
  it(
    'serves the real build (npm run build:web): every file of its manifest, the first load within 100 KB',
    { ...T, skip: existsSync(realBuild) ? false : 'dist/web is not built here' },
    async () => {
      const manifest = JSON.parse(readFileSync(realBuild, 'utf8')) as {
        js: string;
        css: string;
        files: Record<string, { bytes: number; gzip: number; br: number }>;
      };
      const { api, url } = await listen(DEFAULT_WEB_DIR);
      try {
        const index = await fetch(`${url}/`);
        assert.equal(index.status, 200);
        const html = await index.text();
        assert.ok(html.includes(`/${manifest.js}`) && html.includes(`/${manifest.css}`));
        assert.doesNotMatch(
          html,
          /<script(?![^>]*\ssrc=)[^>]*>|<style|\son[a-z]+=/i,
          'no inline script or style',
        );
        let firstLoadGzip = 0;
        for (const [path, sizes] of Object.entries(manifest.files)) {
          const gz = await rawGet(url, `/${path}`, { 'accept-encoding': 'gzip' });
          assert.equal(gz.status, 200, path);
          assert.equal(gz.headers['content-encoding'], 'gzip', path);
          assert.equal(gunzipSync(gz.body).length, sizes.bytes, path);
          const br = await rawGet(url, `/${path}`, { 'accept-encoding': 'br' });
          assert.equal(br.headers['content-encoding'], 'br', path);
          assert.equal(brotliDecompressSync(br.body).length, sizes.bytes, path);
          if (path === manifest.js || path === manifest.css) firstLoadGzip += gz.body.length;
        }
        assert.ok(firstLoadGzip <= 100 * 1024, `first load ${firstLoadGzip} B gzip`);
      } finally {
        await api.close();
      }
    },
  );

  it(
    "answers every dashboard route with index.html and the CSP, and /oauth/authorize stays the API's",
    T,
    async () => {
      for (const path of [
        '/s',
        '/connections',
        '/webhooks',
        '/oauth/consent/0b9c3c1e-6f1e-4d43-9a3c-1c1f0f7d2a11',
      ]) {
        const res = await rawGet(base, path, { 'accept-encoding': 'br, gzip' });
        assert.equal(res.status, 200, path);
        assert.equal(res.headers['content-type'], 'text/html; charset=utf-8', path);
        assert.equal(res.headers['content-encoding'], undefined, `${path} has no precompressed copy`);
        assert.equal(res.headers['cache-control'], 'no-cache', path);
        assertDashboardHeaders(res.headers);
        assert.equal(res.body.toString('utf8'), INDEX, path);
      }
      for (const path of ['/oauth/authorize', '/connections/x', '/assetsx', '/s-other']) {
        const res = await fetch(`${base}${path}`);
        assert.notEqual(res.headers.get('content-type'), 'text/html; charset=utf-8', path);
        assert.equal(res.headers.get('content-security-policy'), null, path);
        await res.body?.cancel();
      }
    },
  );

  it(
    'sends the .br bytes as content-encoding br only when accepted, the file itself otherwise',
    T,
    async () => {
      const br = await rawGet(base, '/assets/app-3f9a1c2b.js', { 'accept-encoding': 'br' });
      assert.equal(br.status, 200);
      assert.equal(br.headers['content-encoding'], 'br');
      assert.deepEqual(br.body, readFileSync(join(built, 'assets', 'app-3f9a1c2b.js.br')));
      const refusals: Array<Record<string, string>> = [
        {},
        { 'accept-encoding': 'identity' },
        { 'accept-encoding': 'br;q=0, gzip;q=0' },
      ];
      for (const headers of refusals) {
        const plain = await rawGet(base, '/assets/app-3f9a1c2b.js', headers);
        assert.equal(plain.status, 200, JSON.stringify(headers));
        assert.equal(plain.headers['content-encoding'], undefined, JSON.stringify(headers));
        assert.equal(plain.body.toString('utf8'), JS, JSON.stringify(headers));
        assertDashboardHeaders(plain.headers);
      }
      const head = await fetch(`${base}/assets/app-3f9a1c2b.js`, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('content-type'), 'text/javascript; charset=utf-8');
      assertDashboardHeaders(head.headers);
    },
  );

  it(
    'answers an unknown asset, or any deeper path under /assets, 404 problem+json with the CSP',
    T,
    async () => {
      for (const path of [
        '/assets/app-ffffffff.js',
        '/assets/app-ffffffff.css?v=1',
        '/assets/old/app-3f9a1c2b.js',
      ]) {
        const res = await fetch(`${base}${path}`, { headers: { 'accept-encoding': 'br, gzip' } });
        const problem = await assertProblem(res, 404, 'not-found');
        assert.match(problem.detail ?? '', /^No dashboard file .*Reload the page\.$/, path);
        assertDashboardHeaders(res.headers);
      }
    },
  );

  it('never puts the dashboard headers on the API', T, async () => {
    const res = await fetch(`${base}/api/v1/whoami`);
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('content-security-policy'), null);
  });

  it('bases dashboardUrl on PUBLIC_URL when it is set', T, async () => {
    const { key } = await core.workspaces.create('public-url');
    const res = await fetch(`${base}/api/v1/sandboxes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'behind a proxy' }),
    });
    assert.equal(res.status, 201);
    const sandbox = (await res.json()) as { id: string; dashboardUrl: string };
    assert.equal(sandbox.dashboardUrl, `https://sandtrap.example.com/s/${sandbox.id}`);
  });
});

describeEachStore('dashboard API', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let sandbox: Record<string, any>;

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace();
    sandbox = await ws.createSandbox({ name: 'dash' });
  });
  after(() => server.close());

  async function mail(fields: { subject: string; html?: string; text?: string }): Promise<string> {
    const transport = sandboxTransport(server.ports.smtp, sandbox);
    try {
      await transport.sendMail({ from: 'app@example.com', to: 'user@example.com', ...fields });
    } finally {
      transport.close();
    }
    return eventually(`${fields.subject} to arrive`, async () => {
      const page = await assertJson<{ items: Array<{ id: string; subject: string }> }>(
        await ws.api(
          `/sandboxes/${sandbox.id}/messages?subjectContains=${encodeURIComponent(fields.subject)}`,
        ),
      );
      return page.items[0]?.id;
    });
  }

  it('dashboardUrl is http://<public host>:<API port>/s/<id> without PUBLIC_URL', T, async () => {
    assert.equal(sandbox.dashboardUrl, `${server.apiUrl}/s/${sandbox.id}`);
    const read = await assertJson<{ dashboardUrl: string }>(await ws.api(`/sandboxes/${sandbox.id}`));
    assert.equal(read.dashboardUrl, sandbox.dashboardUrl);
    const list = await assertJson<{ items: Array<{ id: string; dashboardUrl: string }> }>(
      await ws.api('/sandboxes'),
    );
    assert.equal(list.items.find((s) => s.id === sandbox.id)?.dashboardUrl, sandbox.dashboardUrl);
  });

  it('serves the HTML part sandboxed by its own CSP, with <base target="_blank"> first', T, async () => {
    const html =
      '<!DOCTYPE html><html><head><base target="_self"><title>Hi</title></head><body>' +
      '<a href="https://example.com/verify">verify</a><script>fetch("/api/v1/keys")</script>' +
      '<img src="x" onerror="alert(1)"></body></html>';
    const id = await mail({ subject: 'html mail', html, text: 'plain' });
    const res = await ws.api(`/sandboxes/${sandbox.id}/messages/${id}/html`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(res.headers.get('content-security-policy'), HTML_CSP);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    const body = await res.text();
    assert.ok(body.startsWith(`<!DOCTYPE html>${FIRST}<html>`), body.slice(0, 80));
    assert.ok(body.indexOf('<base target="_blank">') < body.indexOf('<base target="_self">'));
    // The mail's own script is still in the page; the CSP's hash is what keeps it from running.
    assert.ok(body.includes('<script>fetch("/api/v1/keys")</script>'));
    assert.ok(body.includes('<a href="https://example.com/verify">verify</a>'));
  });

  it('makes a meta refresh inert, so the frame never navigates to what the mail names', T, async () => {
    const id = await mail({
      subject: 'refresh',
      html: '<html><head><META HTTP-EQUIV="Refresh" content="0; url=https://tracker.example/x"></head><body>hi</body></html>',
    });
    const body = await (await ws.api(`/sandboxes/${sandbox.id}/messages/${id}/html`)).text();
    assert.doesNotMatch(body, /(?<!data-sandtrap-)http-equiv/i);
    assert.ok(body.includes('data-sandtrap-http-equiv="Refresh"'), body);
  });

  it('puts <base> first in HTML without a doctype, and answers 404 for a mail without HTML', T, async () => {
    const id = await mail({
      subject: 'fragment',
      html: '<p>just a <a href="https://e.example">link</a></p>',
    });
    const res = await ws.api(`/sandboxes/${sandbox.id}/messages/${id}/html`);
    assert.equal(res.status, 200);
    const body = await res.text();
    assert.ok(body.startsWith(FIRST), body.slice(0, 60));
    assert.ok(body.includes('<p>just a <a href="https://e.example">link</a></p>'));

    const textOnly = await mail({ subject: 'text only', text: 'no html here' });
    const none = await ws.api(`/sandboxes/${sandbox.id}/messages/${textOnly}/html`);
    const problem = await assertProblem(none, 404, 'not-found');
    assert.match(problem.detail ?? '', /no HTML part/);
    const other = await server.workspace();
    await assertProblem(await other.api(`/sandboxes/${sandbox.id}/messages/${id}/html`), 404, 'not-found');
  });

  const rules = [
    {
      name: 'order',
      method: 'GET',
      pattern: '/orders/{id}',
      statusCode: 201,
      headers: { 'X-Order': '{{path.id}}' },
      body: '{"id":"{{path.id}}","q":"{{query.expand}}"}',
    },
    { name: 'anything else', isFallback: true, statusCode: 404, body: 'nope' },
  ];

  it('previews the saved rules exactly as the capture listener answers', T, async () => {
    const saved = await ws.api(`/sandboxes/${sandbox.id}/mocks`, {
      method: 'PUT',
      body: JSON.stringify({ mocks: rules }),
    });
    const stored = (await assertJson<{ mocks: Array<Record<string, unknown>> }>(saved)).mocks;
    assert.equal(stored[0]?.name, 'order');

    type Preview = {
      index: number | null;
      rule: { id: string; name: string } | null;
      statusCode: number;
      headers: Array<{ name: string; value: string }>;
      body: string;
    };
    const preview = (method: string, path: string) =>
      ws
        .api(`/sandboxes/${sandbox.id}/mocks/preview`, {
          method: 'POST',
          body: JSON.stringify({ method, path }),
        })
        .then((r) => assertJson<Preview>(r));

    const order = await preview('get', '/orders/42?expand=items');
    assert.equal(order.index, 0);
    assert.deepEqual(order.rule, stored[0]);
    assert.equal(order.statusCode, 201);
    assert.equal(order.body, '{"id":"42","q":"items"}');
    const header = (p: Preview, name: string) => p.headers.find((h) => h.name.toLowerCase() === name)?.value;
    assert.equal(header(order, 'x-order'), '42');
    assert.equal(header(order, 'content-type'), 'application/json');

    const real = await sendRecorded(server.ports.capture, sandbox.id, { path: '/orders/42?expand=items' });
    assert.equal(real.status, order.statusCode);
    assert.equal(real.body.toString('utf8'), order.body);
    assert.equal(real.headers['x-order'], header(order, 'x-order'));
    assert.equal(real.headers['content-type'], header(order, 'content-type'));

    const fallback = await preview('POST', '/elsewhere');
    assert.equal(fallback.index, 1);
    assert.equal(fallback.rule?.name, 'anything else');
    assert.equal(fallback.statusCode, 404);
    assert.equal(fallback.body, 'nope');
    const realFallback = await sendRecorded(server.ports.capture, sandbox.id, {
      method: 'POST',
      path: '/elsewhere',
    });
    assert.equal(realFallback.status, 404);
    assert.equal(realFallback.body.toString(), 'nope');
  });

  it('previews an unsaved list, and refuses invalid rules with the errors PUT /mocks gives', T, async () => {
    const send = (body: unknown) =>
      ws.api(`/sandboxes/${sandbox.id}/mocks/preview`, { method: 'POST', body: JSON.stringify(body) });
    const none = await assertJson<{ index: null; rule: null; statusCode: number; body: string }>(
      await send({ method: 'GET', path: '/orders/42', mocks: [] }),
    );
    assert.equal(none.index, null);
    assert.equal(none.rule, null);
    assert.equal(none.statusCode, 200);
    assert.equal(none.body, '{}');

    const edited = await assertJson<{ index: number; statusCode: number }>(
      await send({
        method: 'DELETE',
        path: '/users/7',
        mocks: [rules[0], { method: 'DELETE', pattern: '/users/*', statusCode: 204 }],
      }),
    );
    assert.equal(edited.index, 1);
    assert.equal(edited.statusCode, 204);

    const invalid = [rules[0], { method: 'GET', pattern: 'regex:(', statusCode: 200 }];
    const refused = await assertProblem(
      await send({ method: 'GET', path: '/x', mocks: invalid }),
      400,
      'validation-error',
    );
    assert.deepEqual(
      refused.errors?.map((e) => e.path),
      ['mocks[1].pattern'],
    );
    const put = await assertProblem(
      await ws.api(`/sandboxes/${sandbox.id}/mocks`, {
        method: 'PUT',
        body: JSON.stringify({ mocks: invalid }),
      }),
      400,
      'validation-error',
    );
    assert.deepEqual(refused.errors, put.errors);

    const badInput = await assertProblem(await send({ method: 'G E T', path: 'x' }), 400, 'validation-error');
    assert.deepEqual(badInput.errors?.map((e) => e.path).sort(), ['method', 'path']);
    const saved = await assertJson<{ mocks: unknown[] }>(await ws.api(`/sandboxes/${sandbox.id}`));
    assert.equal(saved.mocks.length, 2, 'a preview saves nothing');
    const other = await server.workspace();
    await assertProblem(
      await other.api(`/sandboxes/${sandbox.id}/mocks/preview`, {
        method: 'POST',
        body: JSON.stringify({ method: 'GET', path: '/' }),
      }),
      404,
      'not-found',
    );
  });
});
