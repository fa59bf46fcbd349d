// The OAuth endpoints' own rules over real HTTP: Dynamic Client Registration and its RFC 7591 errors, the
// authorization endpoint's refusals (answered as JSON when the client or redirect_uri cannot be trusted,
// redirected with state otherwise), the token and revocation endpoints' form bodies, repeated parameters and
// client authentication (HTTP Basic or form), the per-client limit on failed token requests, and the per-IP
// REST limit over all of them.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import {
  approvedCode,
  authorize,
  authorizeParams,
  basic,
  exchangeCode,
  oauthError,
  pkce,
  postForm,
  postJson,
  REDIRECT_URI,
  redirectedTo,
  registerClient,
  tokenRequest,
  tokensFrom,
  type Registration,
} from './oauthSupport.ts';

describeEachStore('OAuth endpoints', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let client: Registration;

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace('oauth endpoints');
    client = await registerClient(server.apiUrl);
  });
  after(() => server.close());

  // ---- registration (RFC 7591) ----

  it('registers a public client: 201 with its metadata, no secret, never cached', async () => {
    const before = Math.floor(server.clock.now().getTime() / 1000);
    const res = await postJson(
      `${server.apiUrl}/oauth/register`,
      {
        client_name: 'Claude',
        client_uri: 'https://claude.ai',
        redirect_uris: ['https://claude.ai/api/mcp/auth_callback', 'http://127.0.0.1:33418/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: 'mcp',
      },
      { origin: 'https://claude.ai' },
    );
    const after = Math.ceil(server.clock.now().getTime() / 1000);
    const text = await res.text();
    assert.equal(res.status, 201, text);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    const body = JSON.parse(text) as Record<string, any>;
    assert.match(body.client_id, /^stcl_[A-Za-z0-9_-]{22}$/);
    assert.equal(body.client_secret, undefined);
    assert.equal(body.client_name, 'Claude');
    assert.equal(body.client_uri, 'https://claude.ai');
    assert.deepEqual(body.redirect_uris, [
      'https://claude.ai/api/mcp/auth_callback',
      'http://127.0.0.1:33418/callback',
    ]);
    assert.equal(body.token_endpoint_auth_method, 'none');
    assert.equal(typeof body.client_id_issued_at, 'number');
    const issued = body.client_id_issued_at as number;
    assert.ok(before <= issued && issued <= after, `issued at ${issued}, during the call`);
  });

  it('registers a confidential client with a secret (client_secret_basic is the default)', async () => {
    const res = await postJson(`${server.apiUrl}/oauth/register`, { redirect_uris: [REDIRECT_URI] });
    const text = await res.text();
    assert.equal(res.status, 201, text);
    const body = JSON.parse(text) as Record<string, any>;
    assert.equal(body.token_endpoint_auth_method, 'client_secret_basic');
    assert.match(body.client_secret, /^sts_[A-Za-z0-9_-]{43}$/);
    assert.equal(body.client_secret_expires_at, 0);
  });

  it('refuses bad client metadata with the RFC 7591 errors', async () => {
    const register = (body: unknown) => postJson(`${server.apiUrl}/oauth/register`, body);
    await oauthError(await register({ client_name: 'no redirects' }), 400, 'invalid_redirect_uri');
    await oauthError(await register({ redirect_uris: [] }), 400, 'invalid_redirect_uri');
    const plainHttp = await oauthError(
      await register({ redirect_uris: ['http://evil.example/cb'] }),
      400,
      'invalid_redirect_uri',
    );
    assert.match(plainHttp.error_description, /http:\/\/evil\.example\/cb/);
    await oauthError(await register({ redirect_uris: ['javascript:alert(1)'] }), 400, 'invalid_redirect_uri');
    await oauthError(
      await register({ redirect_uris: ['https://app.example/cb#frag'] }),
      400,
      'invalid_redirect_uri',
    );
    const method = await oauthError(
      await register({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'private_key_jwt' }),
      400,
      'invalid_client_metadata',
    );
    assert.match(method.error_description, /private_key_jwt/);
    await oauthError(await register([REDIRECT_URI]), 400, 'invalid_client_metadata');
    await oauthError(await register('just a string'), 400, 'invalid_client_metadata');
  });

  it('refuses a registration body that is not JSON, of another type, or too large', async () => {
    const url = `${server.apiUrl}/oauth/register`;
    const notJson = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"redirect_uris": [',
    });
    const syntax = await oauthError(notJson, 400, 'invalid_client_metadata');
    assert.match(syntax.error_description, /not valid JSON/);
    const wrongType = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `redirect_uris=${encodeURIComponent(REDIRECT_URI)}`,
    });
    assert.match(
      (await oauthError(wrongType, 400, 'invalid_client_metadata')).error_description,
      /application\/json/,
    );
    const huge = await postJson(url, { redirect_uris: [REDIRECT_URI], client_name: 'x'.repeat(70_000) });
    // RFC 7591 §3.2.2: a registration error is 400 with the error object (oauthBounds.test.ts has the limit).
    assert.match((await oauthError(huge, 400, 'invalid_client_metadata')).error_description, /8192 bytes/);
  });

  // ---- the authorization endpoint ----

  it('answers an unknown client or a bad redirect_uri with JSON, never a redirect', async () => {
    const p = pkce();
    const good = authorizeParams(server, client, p);
    const unknown = await authorize(server, { ...good, client_id: 'stcl_AAAAAAAAAAAAAAAAAAAAAA' });
    assert.match((await oauthError(unknown, 400, 'invalid_client')).error_description, /not registered/);
    assert.equal(unknown.headers.get('location'), null);

    await oauthError(await authorize(server, { ...good, client_id: undefined }), 400, 'invalid_request');

    for (const redirect of [
      'https://evil.example/callback',
      'http://127.0.0.1:9/other',
      `${REDIRECT_URI}?x=1`,
      'not a uri',
    ]) {
      const res = await authorize(server, { ...good, redirect_uri: redirect });
      const body = await oauthError(res, 400, 'invalid_request');
      assert.equal(res.headers.get('location'), null, redirect);
      assert.match(body.error_description, /redirect_uri/);
    }
  });

  it('accepts a loopback redirect_uri on any port (RFC 8252)', async () => {
    const res = await authorize(server, {
      ...authorizeParams(server, client, pkce()),
      redirect_uri: 'http://127.0.0.1:53682/callback',
    });
    await res.text();
    assert.equal(res.status, 302);
    assert.match(res.headers.get('location') ?? '', /\/oauth\/consent\/[0-9a-f-]{36}$/);
  });

  it('sends other refusals back to the client with error, description, state and iss', async () => {
    const good = authorizeParams(server, client, pkce());
    const cases: [Record<string, string | undefined>, string, RegExp][] = [
      [{ code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request', /PKCE/],
      [{ code_challenge_method: 'plain' }, 'invalid_request', /S256/],
      [{ code_challenge_method: undefined }, 'invalid_request', /S256/],
      [{ code_challenge: 'too-short' }, 'invalid_request', /code_challenge/],
      [{ resource: undefined }, 'invalid_target', /resource is required/],
      [{ resource: 'https://other.example/mcp' }, 'invalid_target', /not served here/],
      [{ response_type: 'token' }, 'unsupported_response_type', /code/],
    ];
    for (const [change, error, why] of cases) {
      const res = await authorize(server, { ...good, ...change });
      await res.text();
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const query = redirectedTo(res);
      assert.equal(query.get('error'), error, JSON.stringify(change));
      assert.match(query.get('error_description') ?? '', why, JSON.stringify(change));
      assert.equal(query.get('state'), good.state, 'state passed through');
      assert.equal(query.get('iss'), server.apiUrl);
      assert.equal(query.get('code'), null);
    }
  });

  it('leaves unknown scopes out instead of refusing them (RFC 6749 §3.3), and keeps offline_access', async () => {
    for (const scope of ['mcp admin', 'claudeai', 'openid profile offline_access']) {
      const res = await authorize(server, { ...authorizeParams(server, client, pkce()), scope });
      await res.text();
      assert.equal(res.status, 302, scope);
      assert.match(res.headers.get('location') ?? '', /\/oauth\/consent\/[0-9a-f-]{36}$/, scope);
    }
  });

  it('refuses a repeated parameter (RFC 6749 §3.1) without redirecting', async () => {
    const good = authorizeParams(server, client, pkce());
    const url = new URL(`${server.apiUrl}/oauth/authorize`);
    for (const [name, value] of Object.entries(good)) url.searchParams.set(name, value as string);
    url.searchParams.append('state', 'second');
    const res = await fetch(url, { redirect: 'manual' });
    const body = await oauthError(res, 400, 'invalid_request');
    assert.match(body.error_description, /state was sent more than once/);
  });

  // ---- the token endpoint: form bodies and client authentication ----

  it('takes only form bodies and refuses repeated parameters', async () => {
    const json = await postJson(`${server.apiUrl}/oauth/token`, {
      grant_type: 'authorization_code',
      client_id: client.client_id,
    });
    const wrong = await oauthError(json, 400, 'invalid_request');
    assert.match(wrong.error_description, /x-www-form-urlencoded/);
    assert.equal(json.headers.get('access-control-allow-origin'), '*');

    const twice = await tokenRequest(server, {
      grant_type: ['authorization_code', 'refresh_token'],
      client_id: client.client_id,
    });
    assert.match(
      (await oauthError(twice, 400, 'invalid_request')).error_description,
      /grant_type was sent more than once/,
    );
    const twoIds = await tokenRequest(server, {
      grant_type: 'authorization_code',
      client_id: [client.client_id, client.client_id],
    });
    assert.match(
      (await oauthError(twoIds, 400, 'invalid_request')).error_description,
      /client_id was sent more than once/,
    );

    await oauthError(await tokenRequest(server, { client_id: client.client_id }), 400, 'invalid_request');
    const implicit = await tokenRequest(server, { grant_type: 'password', client_id: client.client_id });
    await oauthError(implicit, 400, 'unsupported_grant_type');
  });

  it('refuses an unknown or missing client with 401 invalid_client and a Basic challenge', async () => {
    for (const fields of [
      { grant_type: 'authorization_code', client_id: 'stcl_AAAAAAAAAAAAAAAAAAAAAA' },
      { grant_type: 'authorization_code' },
    ]) {
      const res = await tokenRequest(server, fields);
      await oauthError(res, 401, 'invalid_client');
      assert.equal(res.headers.get('www-authenticate'), 'Basic realm="sandtrap"');
      assert.equal(res.headers.get('cache-control'), 'no-store');
    }
    const basicUnknown = await tokenRequest(
      server,
      { grant_type: 'authorization_code' },
      { authorization: basic('stcl_AAAAAAAAAAAAAAAAAAAAAA', 'sts_x') },
    );
    await oauthError(basicUnknown, 401, 'invalid_client');
    assert.equal(basicUnknown.headers.get('www-authenticate'), 'Basic realm="sandtrap"');

    const garbled = await tokenRequest(
      server,
      { grant_type: 'authorization_code' },
      { authorization: 'Basic !!!not-base64' },
    );
    await oauthError(garbled, 401, 'invalid_client');
    const noColon = await tokenRequest(
      server,
      { grant_type: 'authorization_code' },
      { authorization: `Basic ${Buffer.from('just-an-id').toString('base64')}` },
    );
    assert.match((await oauthError(noColon, 401, 'invalid_client')).error_description, /":"/);
    const bearer = await tokenRequest(
      server,
      { grant_type: 'authorization_code', client_id: client.client_id },
      { authorization: 'Bearer stk_whatever' },
    );
    await oauthError(bearer, 400, 'invalid_request');
  });

  it('authenticates a confidential client with HTTP Basic or with the form, not both', async () => {
    const confidential = await registerClient(server.apiUrl, {
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const secret = confidential.client_secret as string;

    // HTTP Basic (client id and secret form-urlencoded, then base64).
    const viaBasic = await approvedCode(server, ws.key, confidential);
    await tokensFrom(
      await tokenRequest(
        server,
        {
          grant_type: 'authorization_code',
          code: viaBasic.code,
          code_verifier: viaBasic.pkce.verifier,
          redirect_uri: REDIRECT_URI,
        },
        { authorization: basic(confidential.client_id, secret) },
      ),
    );

    // client_secret_post.
    const viaPost = await approvedCode(server, ws.key, confidential);
    await tokensFrom(
      await tokenRequest(server, {
        grant_type: 'authorization_code',
        code: viaPost.code,
        code_verifier: viaPost.pkce.verifier,
        redirect_uri: REDIRECT_URI,
        client_id: confidential.client_id,
        client_secret: secret,
      }),
    );

    const code = await approvedCode(server, ws.key, confidential);
    const fields = {
      grant_type: 'authorization_code',
      code: code.code,
      code_verifier: code.pkce.verifier,
      redirect_uri: REDIRECT_URI,
    };
    const wrongSecret = await tokenRequest(server, fields, {
      authorization: basic(confidential.client_id, `${secret}x`),
    });
    assert.match((await oauthError(wrongSecret, 401, 'invalid_client')).error_description, /wrong/);
    assert.equal(wrongSecret.headers.get('www-authenticate'), 'Basic realm="sandtrap"');
    const noSecret = await tokenRequest(server, { ...fields, client_id: confidential.client_id });
    await oauthError(noSecret, 401, 'invalid_client');
    const both = await tokenRequest(
      server,
      { ...fields, client_secret: secret },
      { authorization: basic(confidential.client_id, secret) },
    );
    assert.match((await oauthError(both, 400, 'invalid_request')).error_description, /one method/);
    const otherId = await tokenRequest(
      server,
      { ...fields, client_id: client.client_id },
      { authorization: basic(confidential.client_id, secret) },
    );
    await oauthError(otherId, 400, 'invalid_request');
    // None of that spent the code: the right credentials still redeem it.
    await tokensFrom(
      await tokenRequest(server, fields, { authorization: basic(confidential.client_id, secret) }),
    );
  });

  it('refuses a secret from a public client', async () => {
    const { code, pkce: p } = await approvedCode(server, ws.key, client);
    const res = await tokenRequest(server, {
      grant_type: 'authorization_code',
      code,
      code_verifier: p.verifier,
      client_id: client.client_id,
      client_secret: 'sts_guess',
    });
    assert.match((await oauthError(res, 401, 'invalid_client')).error_description, /public client/);
  });

  it('limits failed token requests per client: the 11th failure in a minute is 429', async () => {
    const limited = await registerClient(server.apiUrl);
    const other = await registerClient(server.apiUrl);
    const bad = (c: Registration) =>
      tokenRequest(server, {
        grant_type: 'authorization_code',
        code: `stc_${'A'.repeat(43)}`,
        code_verifier: 'v'.repeat(43),
        client_id: c.client_id,
      });
    for (let i = 0; i < 9; i++) await oauthError(await bad(limited), 400, 'invalid_grant');
    // A success is not a failure: it does not count.
    const { code, pkce: p } = await approvedCode(server, ws.key, limited);
    await tokensFrom(await exchangeCode(server, limited, code, p.verifier));
    await oauthError(await bad(limited), 400, 'invalid_grant');
    const refused = await bad(limited);
    const body = await oauthError(refused, 429, 'invalid_request');
    assert.match(body.error_description, /Too many failed token requests/);
    const retry = Number(refused.headers.get('retry-after'));
    assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
    // Even a good request from that client waits; another client is not affected.
    const next = await approvedCode(server, ws.key, limited);
    await oauthError(
      await exchangeCode(server, limited, next.code, next.pkce.verifier),
      429,
      'invalid_request',
    );
    await oauthError(await bad(other), 400, 'invalid_grant');
  });

  it('takes HTTP Basic with an empty secret from a public client as no secret', async () => {
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:`).toString('base64')}`;
    const res = await tokenRequest(
      server,
      { grant_type: 'authorization_code', code: `stc_${'C'.repeat(43)}`, code_verifier: 'v'.repeat(43) },
      { authorization: basic },
    );
    await oauthError(res, 400, 'invalid_grant');
  });

  // ---- revocation (RFC 7009) ----

  it('revokes with a form body: 200 for an unknown token, RFC errors otherwise', async () => {
    const url = `${server.apiUrl}/oauth/revoke`;
    const unknown = await postForm(url, { token: `sta_${'B'.repeat(43)}`, client_id: client.client_id });
    assert.equal(unknown.status, 200);
    assert.equal(await unknown.text(), '');
    assert.equal(unknown.headers.get('access-control-allow-origin'), '*');
    const garbage = await postForm(url, { token: 'whatever', client_id: client.client_id });
    assert.equal(garbage.status, 200);
    await garbage.text();
    await oauthError(await postForm(url, { client_id: client.client_id }), 400, 'invalid_request');
    await oauthError(
      await postForm(url, { token: 'x', token_type_hint: 'access_token' }),
      401,
      'invalid_client',
    );
    await oauthError(
      await postForm(url, { token: ['a', 'b'], client_id: client.client_id }),
      400,
      'invalid_request',
    );
    const json = await postJson(url, { token: 'x', client_id: client.client_id });
    await oauthError(json, 400, 'invalid_request');
  });
});

describeEachStore('OAuth endpoints under the per-IP REST limit', (getStore) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(getStore(), { RATE_LIMIT_API_PER_IP: '4' });
  });
  after(() => server.close());

  it('counts every OAuth endpoint against the per-IP limit and answers 429 in the RFC shape', async () => {
    const calls = [
      () => fetch(`${server.apiUrl}/.well-known/oauth-authorization-server`),
      () => fetch(`${server.apiUrl}/.well-known/oauth-protected-resource/mcp`),
      () => postJson(`${server.apiUrl}/oauth/register`, { redirect_uris: [REDIRECT_URI] }),
      () => postForm(`${server.apiUrl}/oauth/token`, { grant_type: 'refresh_token' }),
    ];
    for (const call of calls) {
      const res = await call();
      await res.text();
      assert.notEqual(res.status, 429);
    }
    for (const path of ['/oauth/authorize', '/oauth/revoke', '/.well-known/openid-configuration']) {
      const res = await fetch(`${server.apiUrl}${path}`, {
        method: path === '/oauth/revoke' ? 'POST' : 'GET',
      });
      await oauthError(res, 429, 'invalid_request');
      assert.ok(Number(res.headers.get('retry-after')) >= 1, path);
      if (path !== '/oauth/authorize') assert.equal(res.headers.get('access-control-allow-origin'), '*');
    }
  });
});

// A server of its own (behind a trusted proxy): closing it closes its store.
describeEachStore('OAuth token failure limit behind a proxy', (getStore) => {
  let proxied: TestServer;
  before(async () => {
    proxied = await startTestServer(getStore(), { TRUSTED_PROXIES: 'loopback' });
  });
  after(() => proxied.close());

  it('counts failures per client and address: junk from one address does not lock the client out elsewhere', async () => {
    const shared = await registerClient(proxied.apiUrl);
    const from = (ip: string) =>
      tokenRequest(
        proxied,
        {
          grant_type: 'authorization_code',
          code: `stc_${'A'.repeat(43)}`,
          code_verifier: 'v'.repeat(43),
          client_id: shared.client_id,
        },
        { 'x-forwarded-for': ip },
      );
    for (let i = 0; i < 10; i++) await oauthError(await from('203.0.113.7'), 400, 'invalid_grant');
    await oauthError(await from('203.0.113.7'), 429, 'invalid_request');
    // The same public client_id from another user's address still gets an answer on its merits.
    await oauthError(await from('198.51.100.9'), 400, 'invalid_grant');
  });
});
