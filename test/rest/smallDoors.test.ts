// Small doors shut: a credential header sent twice is 400 on REST and MCP (never "first one wins"); the /mcp
// Host/Origin guard compares the port, so a page on the capture port cannot call /mcp; /api-docs is never
// framed, not sniffed, and does not keep the typed key in localStorage; /mcp refuses a keyless body before
// reading it and a JSON-RPC body over 1 MB.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { openStore, type Store } from '../../src/core/store/openStore.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';

/** A request with raw headers (duplicates kept as sent), answered with status, headers and body text. */
function rawRequest(
  port: number,
  method: string,
  path: string,
  rawHeaders: Array<[string, string]>,
  body?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    const headers = [['Host', `127.0.0.1:${port}`] as [string, string], ...rawHeaders];
    for (const [name, value] of headers) {
      const existing = req.getHeader(name);
      req.setHeader(name, existing === undefined ? value : [...[existing].flat().map(String), value]);
    }
    req.end(body);
  });
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const MCP_HEADERS: Array<[string, string]> = [
  ['Content-Type', 'application/json'],
  ['Accept', 'application/json, text/event-stream'],
];

describe('small doors', () => {
  let store: Store;
  let server: TestServer;
  let ws: TestServerWorkspace;
  before(async () => {
    store = await openStore({ kind: 'pglite', dataDir: undefined });
    server = await startTestServer(store);
    ws = await server.workspace();
  });
  after(async () => {
    await server.close();
    await store.close();
  });

  it('Authorization or X-Api-Key sent twice is 400 naming the header, on REST', async () => {
    for (const name of ['Authorization', 'X-Api-Key']) {
      const value = name === 'Authorization' ? `Bearer ${ws.key}` : ws.key;
      const res = await rawRequest(server.ports.api, 'GET', '/api/v1/whoami', [
        [name, value],
        [name, value],
      ]);
      assert.equal(res.status, 400, `${name}: ${res.body}`);
      assert.match(String(res.headers['content-type']), /application\/problem\+json/);
      const problem = JSON.parse(res.body) as { errors: Array<{ path: string }>; requestId: string };
      assert.equal(problem.errors[0]?.path, name);
      assert.equal(problem.requestId, res.headers['x-request-id']);
    }
    // Once is fine.
    const once = await rawRequest(server.ports.api, 'GET', '/api/v1/whoami', [
      ['Authorization', `Bearer ${ws.key}`],
    ]);
    assert.equal(once.status, 200);
  });

  it('a credential header sent twice is 400 on /mcp too', async () => {
    const res = await rawRequest(
      server.ports.api,
      'POST',
      '/mcp',
      [...MCP_HEADERS, ['Authorization', `Bearer ${ws.key}`], ['Authorization', 'Bearer stk_other']],
      INIT,
    );
    assert.equal(res.status, 400, res.body);
    assert.equal(
      (JSON.parse(res.body) as { errors: Array<{ path: string }> }).errors[0]?.path,
      'Authorization',
    );
  });

  it('the /mcp Host/Origin guard compares the port: the capture port is another origin', async () => {
    const auth: [string, string] = ['Authorization', `Bearer ${ws.key}`];
    const capture = server.ports.capture;
    const fromCapturePage = await rawRequest(
      server.ports.api,
      'POST',
      '/mcp',
      [...MCP_HEADERS, auth, ['Origin', `http://127.0.0.1:${capture}`]],
      INIT,
    );
    assert.equal(fromCapturePage.status, 403, fromCapturePage.body);
    const wrongHostPort = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: server.ports.api,
          method: 'POST',
          path: '/mcp',
          headers: {
            host: `localhost:${capture}`,
            ...Object.fromEntries(MCP_HEADERS),
            authorization: auth[1],
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(INIT);
    });
    assert.equal(wrongHostPort, 403);
    const sameServer = await rawRequest(
      server.ports.api,
      'POST',
      '/mcp',
      [...MCP_HEADERS, auth, ['Origin', `http://localhost:${server.ports.api}`]],
      INIT,
    );
    assert.equal(sameServer.status, 200, sameServer.body);
  });

  it('/mcp refuses a body over 1 MB with 413 problem+json', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(1_100_000) },
    });
    const res = await rawRequest(
      server.ports.api,
      'POST',
      '/mcp',
      [...MCP_HEADERS, ['Authorization', `Bearer ${ws.key}`]],
      big,
    );
    assert.equal(res.status, 413);
    assert.match(String(res.headers['content-type']), /application\/problem\+json/);
  });

  it('/mcp refuses a JSON-RPC message nested 100,000 deep with 400 problem+json, and keeps serving', async () => {
    const deep = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_sandboxes","arguments":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}}`;
    const auth: [string, string] = ['Authorization', `Bearer ${ws.key}`];
    const res = await rawRequest(server.ports.api, 'POST', '/mcp', [...MCP_HEADERS, auth], deep);
    assert.equal(res.status, 400, res.body.slice(0, 300));
    assert.match(String(res.headers['content-type']), /application\/problem\+json/);
    assert.match((JSON.parse(res.body) as { detail: string }).detail, /nests deeper than/);
    const ok = await rawRequest(server.ports.api, 'POST', '/mcp', [...MCP_HEADERS, auth], INIT);
    assert.equal(ok.status, 200);
  });

  it("a path the router cannot read is 400 problem+json with X-Request-Id, never fastify's own JSON", async () => {
    for (const path of ['/api/v1/sandboxes/%ED%A0%80', `/api/v1/sandboxes/${'a'.repeat(150)}`]) {
      const res = await fetch(`${server.apiUrl}${path}`, { headers: { Authorization: `Bearer ${ws.key}` } });
      assert.equal(res.status, 400, path);
      assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
      const body = (await res.json()) as { errors: Array<{ path: string }>; requestId: string };
      assert.equal(body.errors[0]?.path, '(path)');
      assert.equal(body.requestId, res.headers.get('x-request-id'));
    }
  });

  it('/api-docs: CSP with frame-ancestors none, nosniff, and no key kept in localStorage', async () => {
    const page = await fetch(`${server.apiUrl}/api-docs/static/index.html`);
    assert.equal(page.status, 200);
    await page.text();
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /default-src 'self'/);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    const init = await fetch(`${server.apiUrl}/api-docs/static/swagger-initializer.js`);
    assert.equal(init.status, 200);
    const script = await init.text();
    assert.match(script, /"persistAuthorization":\s*false/);
    assert.doesNotMatch(script, /"persistAuthorization":\s*true/);
  });
});
