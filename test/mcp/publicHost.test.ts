// /mcp on a loopback-bound server behind a TLS proxy: requests naming PUBLIC_URL's host (and browser Origins of
// PUBLIC_URL) pass the DNS-rebinding guard, so hosted clients reach the 401 that starts OAuth discovery; any
// other host is still refused.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, it } from 'node:test';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

const PUBLIC = 'https://sandtrap.example.com';

function post(
  port: number,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'mcp-protocol-version': '2025-06-18',
          ...headers,
        },
        timeout: 5_000,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describeEachStore('/mcp behind a proxy for PUBLIC_URL', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  before(async () => {
    server = await startTestServer(getStore(), { PUBLIC_URL: PUBLIC, TRUSTED_PROXIES: 'loopback' });
    ws = await server.workspace();
  });
  after(() => server.close());

  it("passes the guard with PUBLIC_URL's host: 401 pointing at the resource metadata, 200 with a key", async () => {
    const anonymous = await post(server.ports.api, {
      host: 'sandtrap.example.com',
      'x-forwarded-proto': 'https',
    });
    assert.equal(anonymous.status, 401);
    assert.match(
      String(anonymous.headers['www-authenticate']),
      /resource_metadata="https:\/\/sandtrap\.example\.com\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    const keyed = await post(server.ports.api, {
      host: 'sandtrap.example.com',
      origin: PUBLIC,
      authorization: `Bearer ${ws.key}`,
    });
    assert.equal(keyed.status, 200);
  });

  it('still refuses other hosts and origins, and another port on the public name', async () => {
    const auth = { authorization: `Bearer ${ws.key}` };
    assert.equal((await post(server.ports.api, { ...auth, host: 'evil.example' })).status, 403);
    assert.equal((await post(server.ports.api, { ...auth, host: 'sandtrap.example.com:8443' })).status, 403);
    assert.equal(
      (
        await post(server.ports.api, {
          ...auth,
          host: 'sandtrap.example.com',
          origin: 'https://evil.example',
        })
      ).status,
      403,
    );
    assert.equal(
      (
        await post(server.ports.api, {
          ...auth,
          host: 'sandtrap.example.com',
          origin: 'http://sandtrap.example.com',
        })
      ).status,
      403,
    );
  });
});
