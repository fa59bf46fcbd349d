// What a stranger can do with the anonymous OAuth endpoints, bounded, over real HTTP: client metadata is at most
// 8 KB (400 invalid_client_metadata past it, however the body is sent), registrations per address and hour are
// limited (429 with Retry-After; RATE_LIMITS=off lifts it), redirect URIs are https, loopback http or a
// reverse-domain private-use scheme (the policy as a table), /oauth/authorize refuses userinfo in a presented
// redirect_uri as registration does, a refresh refused for its parameters leaves the refresh token usable, and a
// registration logs its size.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, it } from 'node:test';
import { pino } from 'pino';
import { createCore } from '../../src/core/core.ts';
import { buildApi } from '../../src/rest/app.ts';
import { testConfig } from '../helpers/api.ts';
import { testClock } from '../helpers/clock.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import {
  authorize,
  authorizeParams,
  connectedTokens,
  oauthError,
  pkce,
  REDIRECT_URI,
  refresh,
  registerClient,
  tokenRequest,
  tokensFrom,
} from './oauthSupport.ts';

const LIMIT = 8192;

/** Public-client metadata whose JSON is exactly `bytes` long (the padding goes in redirect URI paths). */
function metadataOf(bytes: number): Record<string, unknown> {
  const body = {
    client_name: 'Padded client',
    token_endpoint_auth_method: 'none',
    redirect_uris: [] as string[],
  };
  const size = () => Buffer.byteLength(JSON.stringify(body));
  // Full URIs of 2000 characters (core takes up to 2048) while one more and a short last one still fit; the
  // last one takes the rest.
  const base = 'https://app.example/';
  while (size() + 2003 + base.length + 3 <= bytes)
    body.redirect_uris.push(base + 'p'.repeat(2000 - base.length));
  body.redirect_uris.push(base);
  body.redirect_uris[body.redirect_uris.length - 1] = base + 'q'.repeat(bytes - size());
  assert.equal(size(), bytes);
  return body;
}

describeEachStore('OAuth registration bounds', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  // Behind a trusted proxy, so each test registers from addresses of its own (X-Forwarded-For).
  before(async () => {
    server = await startTestServer(getStore(), {
      OAUTH_REGISTRATIONS_PER_HOUR: '3',
      TRUSTED_PROXIES: 'loopback',
    });
    ws = await server.workspace('oauth bounds');
  });
  after(() => server.close());

  const register = (body: unknown, from: string, init: RequestInit = {}) =>
    fetch(`${server.apiUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
      body: JSON.stringify(body),
      ...init,
    });

  it('takes client metadata up to 8 KB and refuses more with 400 invalid_client_metadata (RFC 7591 §3.2.2)', async () => {
    const atLimit = await register(metadataOf(LIMIT), '198.51.100.1');
    assert.equal(atLimit.status, 201, await atLimit.text());
    const over = await oauthError(
      await register(metadataOf(LIMIT + 1), '198.51.100.1'),
      400,
      'invalid_client_metadata',
    );
    assert.match(over.error_description, /8193 bytes; the limit is 8192 bytes/);
    // Chunked (no Content-Length): cut off as it arrives, the size unknown.
    const body = JSON.stringify(metadataOf(LIMIT * 4));
    const chunked = await fetch(`${server.apiUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.1' },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(body));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    const refused = await oauthError(chunked, 400, 'invalid_client_metadata');
    assert.match(refused.error_description, /more than 8192 bytes/);
  });

  it('limits registrations per address and hour: 429 with Retry-After and an OAuth error', async () => {
    const from = '203.0.113.7';
    const good = { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' };
    for (let i = 0; i < 2; i++) assert.equal((await register(good, from)).status, 201);
    // Refused metadata does not use up the budget: a client fixing its request is not the one that runs out.
    await oauthError(
      await register({ redirect_uris: ['javascript:alert(1)'] }, from),
      400,
      'invalid_redirect_uri',
    );
    assert.equal((await register(good, from)).status, 201, 'the third registration is within the limit');
    const limited = await register(good, from);
    const body = await oauthError(limited, 429, 'invalid_request');
    assert.match(body.error_description, /OAUTH_REGISTRATIONS_PER_HOUR/);
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(
      Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 3600,
      `Retry-After ${retryAfter}`,
    );
    assert.equal(limited.headers.get('access-control-allow-origin'), '*');
    assert.equal(limited.headers.get('cache-control'), 'no-store');
    // Another address has its own budget.
    assert.equal((await register(good, '203.0.113.8')).status, 201);
  });

  it('registers https, loopback http and reverse-domain private-use schemes, and refuses every other', async () => {
    const table: Array<[string, boolean]> = [
      ['https://claude.ai/api/mcp/auth_callback', true],
      ['https://app.example:8443/cb?x=1', true],
      ['http://127.0.0.1/callback', true],
      ['http://127.0.0.1:33418/callback', true],
      ['http://[::1]:9/cb', true],
      ['http://localhost:3000/oauth', true],
      ['com.example.app:/oauth2redirect', true],
      ['com.example.app://callback', true],
      ['dev.zed.Zed:/oauth', true],
      // Cursor's own single-label scheme, kept so Cursor can connect.
      ['cursor://anysphere.cursor-mcp/oauth/callback', true],
      ['http://example.com/cb', false],
      ['http://10.0.0.5/cb', false],
      ['http://127.0.0.1.example.com/cb', false],
      ['javascript:alert(1)', false],
      ['JavaScript:alert(1)', false],
      ['data:text/html,<script>alert(1)</script>', false],
      ['file:///etc/passwd', false],
      ['blob:https://app.example/0b2a', false],
      ['vbscript:msgbox', false],
      ['about:blank', false],
      ['ws://127.0.0.1/cb', false],
      ['ftp://files.example/cb', false],
      ['myapp://callback', false],
      ['urn:ietf:wg:oauth:2.0:oob', false],
      ['https://user:pw@app.example/cb', false],
      ['https://@app.example/cb', false],
      ['https://app.example/cb#frag', false],
      ['https://app.example\\@evil.example/cb', false],
      [' https://app.example/cb', false],
      ['/relative/cb', false],
    ];
    let n = 0;
    for (const [uri, accepted] of table) {
      const res = await register(
        { redirect_uris: [uri], token_endpoint_auth_method: 'none' },
        // Each from an address of its own: the table is longer than the hourly limit.
        `192.0.2.${++n}`,
      );
      if (accepted) assert.equal(res.status, 201, `${uri}: ${await res.text()}`);
      else await oauthError(res, 400, 'invalid_redirect_uri');
    }
  });

  it('refuses a presented redirect_uri carrying userinfo at /oauth/authorize, as registration does', async () => {
    const client = await registerClient(server.apiUrl, {}, { 'x-forwarded-for': '198.51.100.20' });
    const good = authorizeParams(server, client, pkce());
    for (const redirect of [
      // A loopback match ignores the port: the userinfo must not ride along on it.
      'http://evil@127.0.0.1:5555/callback',
      'http://u:p@127.0.0.1:9/callback',
      'http://@127.0.0.1:9/callback',
    ]) {
      const res = await authorize(server, { ...good, redirect_uri: redirect });
      const body = await oauthError(res, 400, 'invalid_request');
      assert.equal(res.headers.get('location'), null, redirect);
      assert.match(body.error_description, /carries credentials/, redirect);
      // Registration refuses the same URI for the same reason.
      const registered = await oauthError(
        await register({ redirect_uris: [redirect] }, '198.51.100.21'),
        400,
        'invalid_redirect_uri',
      );
      assert.match(registered.error_description, /carries credentials/, redirect);
    }
    // The same client on another loopback port is still fine (RFC 8252 §7.3).
    const ok = await authorize(server, { ...good, redirect_uri: 'http://127.0.0.1:5555/callback' });
    await ok.text();
    assert.equal(ok.status, 302);
    assert.match(ok.headers.get('location') ?? '', /\/oauth\/consent\//);
  });

  it('a refresh refused for its scope or resource leaves the refresh token usable', async () => {
    const client = await registerClient(server.apiUrl, {}, { 'x-forwarded-for': '198.51.100.30' });
    const tokens = await connectedTokens(server, ws.key, client);
    const ask = (fields: Record<string, string>) =>
      tokenRequest(server, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: client.client_id,
        ...fields,
      });
    const scope = await oauthError(await ask({ scope: 'mcp admin' }), 400, 'invalid_scope');
    assert.match(scope.error_description, /admin/);
    await oauthError(await ask({ resource: 'https://other.example/mcp' }), 400, 'invalid_target');
    // Still the same, unspent token: the right request now succeeds, and the connection was never revoked.
    const renewed = await tokensFrom(await ask({ scope: 'mcp', resource: `${server.apiUrl}/mcp` }));
    assert.notEqual(renewed.refresh_token, tokens.refresh_token);
    // Rotation still holds: the spent token is a replay, which ends the grant.
    await oauthError(await refresh(server, client, tokens.refresh_token), 400, 'invalid_grant');
    await oauthError(await refresh(server, client, renewed.refresh_token), 400, 'invalid_grant');
  });
});

describeEachStore('OAuth registration limit with RATE_LIMITS=off', (getStore) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(getStore(), { OAUTH_REGISTRATIONS_PER_HOUR: '1', RATE_LIMITS: 'off' });
  });
  after(() => server.close());

  it('lifts the registration limit with every other', async () => {
    for (let i = 0; i < 3; i++) await registerClient(server.apiUrl);
  });
});

describeEachStore('OAuth registration log', (getStore) => {
  it('logs each registration with its size and address, and a refused one too', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const core = createCore({
      store: getStore(),
      config: testConfig({ HOST: '127.0.0.1' }),
      clock: testClock(),
    });
    const app = await buildApi({ core, logger: pino({ level: 'info' }, sink) });
    await app.ready();
    const payload = JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' });
    const created = await app.inject({
      method: 'POST',
      url: '/oauth/register',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    assert.equal(created.statusCode, 201);
    const tooBig = await app.inject({
      method: 'POST',
      url: '/oauth/register',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(metadataOf(LIMIT + 100)),
    });
    assert.equal(tooBig.statusCode, 400);
    await app.close();
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const registered = entries.find((e) => e.msg === 'client registered');
    assert.ok(registered, lines.join(''));
    assert.equal(registered.bytes, Buffer.byteLength(payload));
    assert.equal(registered.clientId, (created.json() as { client_id: string }).client_id);
    assert.equal(registered.address, '127.0.0.1');
    const refused = entries.find((e) => String(e.msg).startsWith('client registration refused'));
    assert.ok(refused, lines.join(''));
    assert.equal(refused.bytes, LIMIT + 100);
  });
});
