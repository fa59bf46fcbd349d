// OAuth discovery over real HTTP: the Protected Resource Metadata (RFC 9728) and Authorization Server Metadata
// (RFC 8414) documents at every well-known path, their issuer on loopback and with PUBLIC_URL, CORS, the 401
// challenge of /mcp that points at them, and none of it when OAuth is off (bound to all interfaces without
// PUBLIC_URL).
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { mcpInitialize } from './oauthSupport.ts';

const PRM_PATHS = ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'];
const AS_PATHS = ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'];

async function document(url: string): Promise<{ res: Response; body: Record<string, any> }> {
  const res = await fetch(url, { headers: { origin: 'https://claude.ai' } });
  const text = await res.text();
  assert.equal(res.status, 200, `${url}: ${text}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(res.headers.get('access-control-allow-origin'), '*');
  assert.match(res.headers.get('cache-control') ?? '', /^public, max-age=\d+$/);
  return { res, body: JSON.parse(text) as Record<string, any> };
}

function checkAsMetadata(body: Record<string, any>, issuer: string): void {
  assert.equal(body.issuer, issuer);
  assert.equal(body.authorization_endpoint, `${issuer}/oauth/authorize`);
  assert.equal(body.token_endpoint, `${issuer}/oauth/token`);
  assert.equal(body.registration_endpoint, `${issuer}/oauth/register`);
  assert.equal(body.revocation_endpoint, `${issuer}/oauth/revoke`);
  assert.deepEqual(body.response_types_supported, ['code']);
  assert.deepEqual(body.code_challenge_methods_supported, ['S256']);
  assert.deepEqual(body.grant_types_supported, ['authorization_code', 'refresh_token']);
  assert.deepEqual(body.scopes_supported, ['mcp', 'offline_access']);
  assert.equal(body.client_id_metadata_document_supported, true);
  assert.deepEqual([...body.token_endpoint_auth_methods_supported].sort(), [
    'client_secret_basic',
    'client_secret_post',
    'none',
  ]);
}

/** The challenge parameters of a WWW-Authenticate: Bearer header. */
function challenge(header: string | null): Record<string, string> {
  assert.ok(header !== null, 'a WWW-Authenticate header');
  assert.match(header, /^Bearer /);
  const params: Record<string, string> = {};
  for (const m of header.slice('Bearer '.length).matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)) {
    params[m[1] as string] = (m[2] as string).replace(/\\(.)/g, '$1');
  }
  return params;
}

// A server closes its store, so each configuration gets its own describeEachStore (and store).
describeEachStore('OAuth discovery on loopback without PUBLIC_URL', (getStore) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(getStore());
  });
  after(() => server.close());

  it('serves the Protected Resource Metadata at both paths, naming /mcp and the issuer', async () => {
    for (const path of PRM_PATHS) {
      const { body } = await document(`${server.apiUrl}${path}`);
      assert.equal(body.resource, `${server.apiUrl}/mcp`);
      assert.deepEqual(body.authorization_servers, [server.apiUrl]);
      assert.deepEqual(body.scopes_supported, ['mcp']);
      assert.deepEqual(body.bearer_methods_supported, ['header']);
    }
  });

  it('serves the Authorization Server Metadata at the RFC 8414 and OpenID paths', async () => {
    for (const path of AS_PATHS) {
      const { body } = await document(`${server.apiUrl}${path}`);
      checkAsMetadata(body, server.apiUrl);
    }
  });

  it('answers CORS preflights for discovery, token, registration and revocation', async () => {
    for (const path of [...PRM_PATHS, ...AS_PATHS, '/oauth/token', '/oauth/register', '/oauth/revoke']) {
      const res = await fetch(`${server.apiUrl}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://claude.ai',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, authorization',
        },
      });
      await res.text();
      assert.equal(res.status, 204, path);
      assert.equal(res.headers.get('access-control-allow-origin'), '*', path);
      assert.match(res.headers.get('access-control-allow-methods') ?? '', /POST/, path);
      assert.match(res.headers.get('access-control-allow-headers') ?? '', /Authorization/i, path);
      assert.match(res.headers.get('access-control-allow-headers') ?? '', /Content-Type/i, path);
    }
  });

  it('challenges a request to /mcp without a credential with the metadata URL and scope', async () => {
    const res = await mcpInitialize(server.apiUrl);
    const body = (await res.json()) as Record<string, any>;
    assert.equal(res.status, 401);
    const params = challenge(res.headers.get('www-authenticate'));
    assert.equal(params.resource_metadata, `${server.apiUrl}/.well-known/oauth-protected-resource/mcp`);
    assert.equal(params.scope, 'mcp');
    assert.equal(params.error, undefined, 'no error when no token was sent (RFC 6750 §3.1)');
    assert.equal(body.type, 'urn:sandtrap:problem:unauthorized');
    assert.match(body.detail, /No API key or access token/);
    // The document the challenge names is there.
    const { body: prm } = await document(params.resource_metadata as string);
    assert.equal(prm.resource, `${server.apiUrl}/mcp`);
  });

  it('adds invalid_token and a description when a bad token or key was sent', async () => {
    const badToken = `sta_${'A'.repeat(43)}`;
    for (const credential of [badToken, 'stk_nope', 'something-else']) {
      const res = await mcpInitialize(server.apiUrl, credential);
      const body = (await res.json()) as Record<string, any>;
      assert.equal(res.status, 401, credential);
      const params = challenge(res.headers.get('www-authenticate'));
      assert.equal(params.error, 'invalid_token', credential);
      assert.equal(params.error_description, body.detail, credential);
      assert.equal(params.scope, 'mcp');
      assert.equal(params.resource_metadata, `${server.apiUrl}/.well-known/oauth-protected-resource/mcp`);
    }
    const res = await mcpInitialize(server.apiUrl, badToken);
    assert.match(((await res.json()) as { detail: string }).detail, /access token is not recognised/);
  });
});

describeEachStore('OAuth discovery with PUBLIC_URL', (getStore) => {
  const PUBLIC_URL = 'https://sandtrap.example.com';
  let server: TestServer;
  before(async () => {
    server = await startTestServer(getStore(), { PUBLIC_URL });
  });
  after(() => server.close());

  it('uses PUBLIC_URL as the issuer and derives the MCP resource from it', async () => {
    for (const path of AS_PATHS) {
      checkAsMetadata((await document(`${server.apiUrl}${path}`)).body, PUBLIC_URL);
    }
    for (const path of PRM_PATHS) {
      const { body } = await document(`${server.apiUrl}${path}`);
      assert.equal(body.resource, `${PUBLIC_URL}/mcp`);
      assert.deepEqual(body.authorization_servers, [PUBLIC_URL]);
    }
    const res = await mcpInitialize(server.apiUrl);
    await res.text();
    assert.equal(
      challenge(res.headers.get('www-authenticate')).resource_metadata,
      `${PUBLIC_URL}/.well-known/oauth-protected-resource/mcp`,
    );
  });
});

describeEachStore('OAuth off: bound to all interfaces without PUBLIC_URL', (getStore) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(getStore(), { HOST: '0.0.0.0' });
  });
  after(() => server.close());

  it('has no discovery documents and no OAuth endpoints', async () => {
    for (const path of [...PRM_PATHS, ...AS_PATHS, '/oauth/authorize']) {
      const res = await fetch(`${server.apiUrl}${path}`);
      await res.text();
      assert.equal(res.status, 404, path);
    }
    for (const path of ['/oauth/token', '/oauth/register', '/oauth/revoke']) {
      const res = await fetch(`${server.apiUrl}${path}`, { method: 'POST' });
      await res.text();
      assert.equal(res.status, 404, path);
    }
  });

  it('challenges /mcp for an API key only, as before OAuth', async () => {
    const res = await mcpInitialize(server.apiUrl);
    const body = (await res.json()) as Record<string, any>;
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="sandtrap"');
    assert.match(body.detail, /^No API key was sent/);
    const token = await mcpInitialize(server.apiUrl, `sta_${'A'.repeat(43)}`);
    await token.text();
    assert.equal(token.status, 401);
    assert.equal(token.headers.get('www-authenticate'), 'Bearer realm="sandtrap", error="invalid_token"');
  });
});
