// core.oauth on both stores, below HTTP: redirect URI rules, the consent-to-token flow, PKCE, single-use codes,
// refresh rotation with replay ending the grant, audience, and grants that die with their approving key.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { createCore, type Core } from '../../src/core/core.ts';
import { matchRedirectUri, redirectUriProblem } from '../../src/core/oauth/redirectUris.ts';
import type { PresentedClient, TokenResponse } from '../../src/core/oauth/types.ts';
import { testConfig } from '../helpers/api.ts';
import { testClock, type TestClock } from '../helpers/clock.ts';
import { describeEachStore } from '../helpers/stores.ts';

const REDIRECT = 'http://127.0.0.1:4567/callback';
const FROM = { address: '127.0.0.1' };

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

describe('redirect URIs', () => {
  it('registers https, loopback http and private-use schemes, and nothing that runs code or leaves loopback', () => {
    for (const ok of [
      'https://claude.ai/api/mcp/auth_callback',
      'http://127.0.0.1/cb',
      'http://[::1]:9/cb',
      'http://localhost:3000/x',
      'cursor://anysphere.cursor-retrieval/oauth/callback',
      'com.example.app:/oauth2redirect',
    ]) {
      assert.equal(redirectUriProblem(ok), undefined, ok);
    }
    for (const bad of [
      'http://example.com/cb',
      'javascript:alert(1)',
      'data:text/html,hi',
      'https://a.example/cb#frag',
      'https://u:p@a.example/cb',
      '/relative',
      'file:///etc/passwd',
      'myapp://callback',
      'https://@a.example/cb',
    ]) {
      assert.notEqual(redirectUriProblem(bad), undefined, bad);
    }
  });

  it('matches exactly, except the port of a loopback address (RFC 8252 §7.3)', () => {
    assert.equal(
      matchRedirectUri('http://127.0.0.1:61234/cb', ['http://127.0.0.1/cb']),
      'http://127.0.0.1:61234/cb',
    );
    assert.equal(matchRedirectUri('http://127.0.0.1:61234/other', ['http://127.0.0.1/cb']), undefined);
    assert.equal(matchRedirectUri('https://a.example:8443/cb', ['https://a.example/cb']), undefined);
    assert.equal(matchRedirectUri('https://a.example/cb?x=1', ['https://a.example/cb']), undefined);
    assert.equal(matchRedirectUri('https://a.example/cb', ['https://a.example/cb']), 'https://a.example/cb');
    assert.equal(matchRedirectUri('http://u@127.0.0.1:61234/cb', ['http://127.0.0.1/cb']), undefined);
  });
});

describeEachStore('core.oauth', (getStore) => {
  let core: Core;
  let clock: TestClock;

  async function setUp() {
    clock = testClock();
    core = createCore({
      store: getStore(),
      config: testConfig({ HOST: '127.0.0.1', API_PORT: '8025' }),
      clock,
    });
    const { account, key } = await core.workspaces.create(`oauth-${randomBytes(3).toString('hex')}`);
    const auth = await core.apiKeys.authenticate(key.key, null);
    assert.ok(auth.ok);
    return { principal: auth.principal, account };
  }

  async function registerPublic(): Promise<PresentedClient> {
    const reg = await core.oauth.register(
      {
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        client_name: 'Test agent',
      },
      FROM,
    );
    assert.ok(reg.ok, JSON.stringify(reg));
    return { clientId: reg.registration.client_id, clientSecret: undefined, method: 'none' };
  }

  async function approve(
    principal: Awaited<ReturnType<typeof setUp>>['principal'],
    client: PresentedClient,
    state = 'st-1',
  ) {
    const { verifier, challenge } = pkce();
    const started = await core.oauth.startAuthorization({
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: REDIRECT,
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: core.oauth.urls.resource(),
    });
    assert.ok(started.ok, JSON.stringify(started));
    const decided = await core.oauth.decide(started.requestId, principal, 'approve');
    assert.ok(decided);
    const url = new URL(decided.redirectTo);
    assert.equal(url.searchParams.get('state'), state);
    assert.equal(url.searchParams.get('iss'), core.oauth.urls.issuer());
    return { code: url.searchParams.get('code') as string, verifier };
  }

  async function exchange(client: PresentedClient, code: string, verifier: string): Promise<TokenResponse> {
    const result = await core.oauth.token(
      { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT },
      client,
    );
    assert.ok(result.ok, JSON.stringify(result));
    return result.tokens;
  }

  it('approves, exchanges the code with PKCE, and the access token stands for the approving key in its workspace', async () => {
    const { principal } = await setUp();
    const client = await registerPublic();
    const view = await core.oauth.describeAuthorization(
      await core.oauth
        .startAuthorization({
          response_type: 'code',
          client_id: client.clientId,
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
          resource: core.oauth.urls.resource(),
        })
        .then((s) => (s.ok ? s.requestId : '')),
      principal,
    );
    assert.equal(view?.client.name, 'Test agent');
    assert.equal(view?.redirectHost, '127.0.0.1:4567');
    assert.equal(view?.workspace.id, principal.workspaceId);
    assert.equal(view?.approver.keyId, principal.keyId);

    const { code, verifier } = await approve(principal, client);
    const tokens = await exchange(client, code, verifier);
    assert.match(tokens.access_token, /^sta_/);
    assert.equal(tokens.expires_in, 3600);
    const auth = await core.oauth.authenticateAccessToken(tokens.access_token);
    assert.ok(auth.ok);
    assert.equal(auth.principal.workspaceId, principal.workspaceId);
    assert.equal(auth.principal.keyId, principal.keyId);
    const grants = await core.oauth.listGrants(principal);
    assert.equal(grants.length, 1);
    assert.equal(grants[0]?.client.name, 'Test agent');

    // Only hashes are stored.
    const raw = JSON.stringify(
      await getStore()
        .db.selectFrom('oauth_tokens' as never)
        .selectAll()
        .execute(),
    );
    assert.ok(!raw.includes(tokens.access_token) && !raw.includes(tokens.refresh_token));
  });

  it('refuses a wrong verifier, a second use of a code (revoking what it gave) and an expired code', async () => {
    const { principal } = await setUp();
    const client = await registerPublic();
    const a = await approve(principal, client);
    const wrong = await core.oauth.token(
      { grant_type: 'authorization_code', code: a.code, code_verifier: pkce().verifier },
      client,
    );
    assert.equal(!wrong.ok && wrong.error, 'invalid_grant');

    const b = await approve(principal, client);
    const tokens = await exchange(client, b.code, b.verifier);
    const again = await core.oauth.token(
      { grant_type: 'authorization_code', code: b.code, code_verifier: b.verifier },
      client,
    );
    assert.equal(!again.ok && again.error, 'invalid_grant');
    assert.deepEqual(await core.oauth.authenticateAccessToken(tokens.access_token), {
      ok: false,
      reason: 'unknown',
    });

    const c = await approve(principal, client);
    clock.advance(61_000);
    const late = await core.oauth.token(
      { grant_type: 'authorization_code', code: c.code, code_verifier: c.verifier },
      client,
    );
    assert.equal(!late.ok && late.error, 'invalid_grant');
    assert.match(!late.ok ? late.description : '', /expired/);
  });

  it('rotates refresh tokens; a replayed one ends the whole grant', async () => {
    const { principal } = await setUp();
    const client = await registerPublic();
    const { code, verifier } = await approve(principal, client);
    const first = await exchange(client, code, verifier);
    const second = await core.oauth.token(
      { grant_type: 'refresh_token', refresh_token: first.refresh_token },
      client,
    );
    assert.ok(second.ok);
    assert.notEqual(second.tokens.refresh_token, first.refresh_token);
    assert.ok((await core.oauth.authenticateAccessToken(second.tokens.access_token)).ok);

    const replay = await core.oauth.token(
      { grant_type: 'refresh_token', refresh_token: first.refresh_token },
      client,
    );
    assert.equal(!replay.ok && replay.error, 'invalid_grant');
    assert.equal((await core.oauth.authenticateAccessToken(second.tokens.access_token)).ok, false);
    const afterReplay = await core.oauth.token(
      { grant_type: 'refresh_token', refresh_token: second.tokens.refresh_token },
      client,
    );
    assert.equal(afterReplay.ok, false);
    assert.deepEqual(await core.oauth.listGrants(principal), []);
  });

  it('expires access tokens after an hour and refuses them once the approving key is revoked', async () => {
    const { principal } = await setUp();
    const client = await registerPublic();
    const t1 = await approve(principal, client).then(({ code, verifier }) =>
      exchange(client, code, verifier),
    );
    clock.advance(3_600_000);
    assert.deepEqual(await core.oauth.authenticateAccessToken(t1.access_token), {
      ok: false,
      reason: 'expired',
    });
    const t2 = await approve(principal, client).then(({ code, verifier }) =>
      exchange(client, code, verifier),
    );
    await core.apiKeys.revoke(principal.workspaceId, principal.keyId);
    assert.deepEqual(await core.oauth.authenticateAccessToken(t2.access_token), {
      ok: false,
      reason: 'key-revoked',
    });
    const refreshed = await core.oauth.token(
      { grant_type: 'refresh_token', refresh_token: t2.refresh_token },
      client,
    );
    assert.equal(!refreshed.ok && refreshed.error, 'invalid_grant');
  });

  it('binds tokens to the MCP resource: a token for another resource URL is refused', async () => {
    const { principal } = await setUp();
    const client = await registerPublic();
    const t = await approve(principal, client).then(({ code, verifier }) => exchange(client, code, verifier));
    const before = core.endpoints.dashboardBaseUrl;
    core.endpoints.dashboardBaseUrl = 'https://elsewhere.example';
    try {
      assert.deepEqual(await core.oauth.authenticateAccessToken(t.access_token), {
        ok: false,
        reason: 'wrong-audience',
      });
    } finally {
      core.endpoints.dashboardBaseUrl = before;
    }
    assert.ok((await core.oauth.authenticateAccessToken(t.access_token)).ok);
  });

  it('denies with access_denied and the state; a decided request cannot be decided again', async () => {
    const { principal } = await setUp();
    const client = await registerPublic();
    const started = await core.oauth.startAuthorization({
      response_type: 'code',
      client_id: client.clientId,
      state: 'xyz',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      resource: core.oauth.urls.resource(),
    });
    assert.ok(started.ok);
    const denied = await core.oauth.decide(started.requestId, principal, 'deny');
    const url = new URL(denied?.redirectTo ?? 'http://x');
    assert.equal(url.searchParams.get('error'), 'access_denied');
    assert.equal(url.searchParams.get('state'), 'xyz');
    assert.equal(await core.oauth.decide(started.requestId, principal, 'approve'), undefined);
    assert.equal(await core.oauth.describeAuthorization(started.requestId, principal), undefined);
  });

  it('refuses bad authorization requests without redirecting until client and redirect are trusted', async () => {
    await setUp();
    const client = await registerPublic();
    const base = {
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: REDIRECT,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      resource: core.oauth.urls.resource(),
      state: 's',
    };
    const unknown = await core.oauth.startAuthorization({
      ...base,
      client_id: 'stcl_AAAAAAAAAAAAAAAAAAAAAA',
    });
    assert.ok(!unknown.ok && unknown.redirectTo === undefined && unknown.error === 'invalid_client');
    const badRedirect = await core.oauth.startAuthorization({
      ...base,
      redirect_uri: 'https://evil.example/cb',
    });
    assert.ok(
      !badRedirect.ok && badRedirect.redirectTo === undefined && badRedirect.error === 'invalid_request',
    );
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ code_challenge: undefined }, 'invalid_request'],
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ resource: undefined }, 'invalid_target'],
      [{ resource: 'https://other.example/mcp' }, 'invalid_target'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
    ];
    for (const [change, error] of cases) {
      const result = await core.oauth.startAuthorization({ ...base, ...change });
      assert.ok(!result.ok && result.redirectTo !== undefined, JSON.stringify(change));
      const url = new URL(result.redirectTo);
      assert.equal(url.searchParams.get('error'), error, JSON.stringify(change));
      assert.equal(url.searchParams.get('state'), 's');
    }
    const twice = await core.oauth.startAuthorization({ ...base, state: ['a', 'b'] });
    assert.ok(!twice.ok && twice.error === 'invalid_request');
  });

  it('authenticates confidential clients by their secret', async () => {
    const { principal } = await setUp();
    const reg = await core.oauth.register({ redirect_uris: [REDIRECT], client_name: 'Server app' }, FROM);
    assert.ok(reg.ok && reg.registration.client_secret !== undefined);
    assert.equal(reg.registration.token_endpoint_auth_method, 'client_secret_basic');
    const client: PresentedClient = {
      clientId: reg.registration.client_id,
      clientSecret: reg.registration.client_secret,
      method: 'client_secret_basic',
    };
    const { code, verifier } = await approve(principal, client);
    const wrong = await core.oauth.token(
      { grant_type: 'authorization_code', code, code_verifier: verifier },
      { ...client, clientSecret: 'sts_nope' },
    );
    assert.ok(!wrong.ok && wrong.error === 'invalid_client' && wrong.status === 401);
    // The failed attempt did not burn the code: client authentication comes first.
    await exchange(client, code, verifier);
  });

  it('sweeps expired consent requests and tokens, and grants whose refresh token expired unused', async () => {
    const { principal } = await setUp();
    const client = await registerPublic();
    const kept = await approve(principal, client).then(({ code, verifier }) =>
      exchange(client, code, verifier),
    );
    await approve(principal, client).then(({ code, verifier }) => exchange(client, code, verifier));
    const pending = await core.oauth.startAuthorization({
      response_type: 'code',
      client_id: client.clientId,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      resource: core.oauth.urls.resource(),
    });
    assert.ok(pending.ok);
    const count = async (table: string) =>
      Number(
        (
          (await getStore()
            .db.selectFrom(table as never)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()) as { n: unknown }
        ).n,
      );
    // 29 days on, one grant refreshes; a day later the other's refresh token has expired unused.
    clock.advance(29 * 86_400_000);
    const refreshed = await core.oauth.token(
      { grant_type: 'refresh_token', refresh_token: kept.refresh_token },
      client,
    );
    assert.ok(refreshed.ok);
    clock.advance(2 * 86_400_000);
    await core.sweep();
    assert.equal(await count('oauth_authorization_requests'), 0);
    const grants = await core.oauth.listGrants(principal);
    assert.equal(grants.length, 1);
    assert.ok((await core.oauth.authenticateAccessToken(refreshed.tokens.access_token)).ok === false); // 1 h is long gone
    const again = await core.oauth.token(
      { grant_type: 'refresh_token', refresh_token: refreshed.tokens.refresh_token },
      client,
    );
    assert.ok(again.ok, 'the live grant still refreshes after the sweep');
  });

  it('grants mcp (and offline_access when asked), ignores unknown scopes, and never widens a scope on refresh', async () => {
    const { principal } = await setUp();
    const client = await registerPublic();
    const { verifier, challenge } = pkce();
    const started = await core.oauth.startAuthorization({
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: REDIRECT,
      scope: 'claudeai offline_access',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: core.oauth.urls.resource(),
    });
    assert.ok(started.ok);
    assert.equal(
      (await core.oauth.describeAuthorization(started.requestId, principal))?.scope,
      'mcp offline_access',
    );
    const decided = await core.oauth.decide(started.requestId, principal, 'approve');
    const code = new URL(decided?.redirectTo ?? 'http://x').searchParams.get('code') ?? '';
    const tokens = await exchange(client, code, verifier);
    assert.equal(tokens.scope, 'mcp offline_access');
    const narrowed = await core.oauth.token(
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope: 'mcp' },
      client,
    );
    assert.ok(narrowed.ok);
    const wider = await core.oauth.token(
      { grant_type: 'refresh_token', refresh_token: narrowed.tokens.refresh_token, scope: 'mcp admin' },
      client,
    );
    assert.ok(!wider.ok && wider.error === 'invalid_scope');
  });
  it('prunes clients never authorized after a day and every client unused for 90 days', async () => {
    const { principal } = await setUp();
    const DAY = 86_400_000;
    const exists = async (client: PresentedClient) => {
      const started = await core.oauth.startAuthorization({ client_id: client.clientId });
      return started.ok || started.error !== 'invalid_client';
    };
    const connect = async (client: PresentedClient) => {
      const { code, verifier } = await approve(principal, client);
      return exchange(client, code, verifier);
    };
    // Far past every earlier test's clients (same store), so that this test's are all there is.
    clock.advance(365 * DAY);
    await core.sweep();
    assert.equal((await core.oauth.sweepClients())?.clients, 0);

    const never = await registerPublic();
    const authorized = await registerPublic();
    await connect(authorized);
    const refreshing = await registerPublic();
    let tokens = await connect(refreshing);
    // Registered a day ago and mid-consent now: a person slow to approve keeps the client.
    const pending = await registerPublic();

    clock.advance(DAY - 60_000);
    const early = await core.oauth.sweepClients();
    assert.equal(early?.prunedNeverAuthorized, 0, 'not a day old yet');
    assert.equal(early?.clients, 4);
    assert.equal(early?.registeredLastDay, 4);
    // Each holds its name and its redirect URIs as JSON (["…"]).
    assert.equal(early?.metadataBytes, 4 * ('Test agent'.length + REDIRECT.length + 4));

    clock.advance(120_000);
    const started = await core.oauth.startAuthorization({
      response_type: 'code',
      client_id: pending.clientId,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      resource: core.oauth.urls.resource(),
    });
    assert.ok(started.ok);
    const day = await core.oauth.sweepClients();
    assert.deepEqual(day, {
      prunedNeverAuthorized: 1,
      prunedUnused: 0,
      clients: 3,
      registeredLastDay: 0,
      metadataBytes: 3 * ('Test agent'.length + REDIRECT.length + 4),
    });
    assert.equal(await exists(never), false, 'never authorized, a day old: gone');
    assert.equal(await exists(authorized), true);
    assert.equal(await exists(refreshing), true);
    assert.equal(await exists(pending), true, 'its consent request is still open');

    // One client keeps refreshing (refresh tokens last 30 days); the other is never heard of again.
    for (const days of [28, 29, 29]) {
      clock.advance(days * DAY);
      const renewed = await core.oauth.token(
        { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
        refreshing,
      );
      assert.ok(renewed.ok, JSON.stringify(renewed));
      tokens = renewed.tokens;
      await core.sweep();
    }
    clock.advance(4 * DAY); // 91 days after the last tokens of `authorized`
    const late = await core.oauth.sweepClients();
    assert.equal(late?.prunedUnused, 1);
    assert.equal(late?.prunedNeverAuthorized, 1, 'the pending one, its request long expired');
    assert.equal(late?.clients, 1);
    assert.equal(await exists(pending), false);
    assert.equal(await exists(authorized), false, 'unused for 91 days: gone');
    assert.equal(await exists(refreshing), true, 'used within the 90 days: kept');
    const refreshed = await core.oauth.token(
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      refreshing,
    );
    assert.ok(refreshed.ok, 'the kept client still refreshes');
  });
});
