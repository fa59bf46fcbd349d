// The authorization code flow end to end over real HTTP, driven with fetch: register, /oauth/authorize to the
// consent request, the decision through the consent API (key header or dashboard session), the code at the
// redirect, PKCE at the token endpoint, /mcp with the access token (SDK client), refresh rotation and replay,
// code replay, expiry of codes and access tokens, the audience (REST refuses the token), and every way a grant
// ends: /oauth/revoke, revoking the approving key, disconnecting it in the dashboard's API.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { assertNotFound, assertProblem, assertUnauthorized } from '../helpers/responses.ts';
import { describeEachStore } from '../helpers/stores.ts';
import {
  approvedCode,
  authorizeParams,
  consentRequestId,
  decide,
  exchangeCode,
  mcpInitialize,
  mcpStatus,
  oauthError,
  pkce,
  postForm,
  postJson,
  REDIRECT_URI,
  refresh,
  registerClient,
  tokensFrom,
  connectedTokens,
  type Registration,
} from './oauthSupport.ts';
import { TOOL_NAMES } from '../mcp/client.ts';

describeEachStore('OAuth authorization code flow', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let client: Registration;

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace('oauth flow');
    client = await registerClient(server.apiUrl, { client_name: 'Flow client' });
  });
  after(() => server.close());

  /** A second key of the workspace, so revoking it leaves the workspace's own key working. */
  async function newKey(label: string): Promise<{ id: string; key: string }> {
    const res = await ws.api('/keys', { method: 'POST', body: JSON.stringify({ label }) });
    assert.equal(res.status, 201);
    return (await res.json()) as { id: string; key: string };
  }

  async function mcpClient(token: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.apiUrl}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    const mcp = new Client({ name: 'oauth-flow-test', version: '1.0.0' });
    await mcp.connect(transport);
    return mcp;
  }

  async function grants(): Promise<Record<string, any>[]> {
    const res = await ws.api('/oauth/grants');
    assert.equal(res.status, 200);
    return ((await res.json()) as { items: Record<string, any>[] }).items;
  }

  it('shows the pending request to the approver, then issues tokens that work on /mcp in the workspace', async () => {
    const approver = await newKey('approver');
    const p = pkce();
    const params = authorizeParams(server, client, p);
    const asked = server.clock.now().getTime();
    const requestId = await consentRequestId(server, params);
    const shownBy = server.clock.now().getTime();

    const view = await fetch(`${server.apiUrl}/api/v1/oauth/authorizations/${requestId}`, {
      headers: { authorization: `Bearer ${approver.key}` },
    });
    assert.equal(view.status, 200);
    assert.equal(view.headers.get('cache-control'), 'no-store');
    const shown = (await view.json()) as Record<string, any>;
    assert.equal(shown.id, requestId);
    assert.deepEqual(shown.client, {
      clientId: client.client_id,
      kind: 'registered',
      name: 'Flow client',
      uri: null,
      logoUri: null,
    });
    assert.equal(shown.redirectUri, REDIRECT_URI);
    assert.equal(shown.redirectHost, '127.0.0.1:9');
    assert.equal(shown.scope, 'mcp');
    assert.equal(shown.resource, `${server.apiUrl}/mcp`);
    const whoami = (await (await ws.api('/whoami')).json()) as { workspaceId: string };
    assert.deepEqual(shown.workspace, { id: whoami.workspaceId, name: 'oauth flow' });
    assert.deepEqual(shown.approver, { keyId: approver.id, keyLabel: 'approver' });
    const expiresAt = Date.parse(shown.expiresAt);
    assert.ok(
      asked + 600_000 <= expiresAt && expiresAt <= shownBy + 600_000,
      `10 minutes to decide from the request: ${shown.expiresAt}`,
    );

    const back = await decide(server, approver.key, requestId, 'approve');
    assert.equal(back.searchParams.get('state'), params.state);
    const code = back.searchParams.get('code') as string;
    // Decided: the request is gone.
    await assertNotFound(
      await fetch(`${server.apiUrl}/api/v1/oauth/authorizations/${requestId}`, {
        headers: { authorization: `Bearer ${approver.key}` },
      }),
      'a decided request',
    );
    const tokens = await tokensFrom(await exchangeCode(server, client, code, p.verifier));

    const mcp = await mcpClient(tokens.access_token);
    try {
      const { tools } = await mcp.listTools();
      assert.equal(tools.length, TOOL_NAMES.length);
      // Tools act in the approving key's workspace: a sandbox made over MCP is listed by REST.
      const created: any = await mcp.callTool({ name: 'create_sandbox', arguments: { name: 'via oauth' } });
      assert.ok(!created.isError, JSON.stringify(created));
      const listed = await ws.api('/sandboxes');
      const items = ((await listed.json()) as { items: { id: string; name: string }[] }).items;
      assert.ok(items.some((s) => s.id === created.structuredContent.sandbox_id && s.name === 'via oauth'));
    } finally {
      await mcp.close();
    }

    const [grant] = (await grants()).filter(
      (g) => g.client.clientId === client.client_id && g.keyId === approver.id,
    );
    assert.ok(grant !== undefined, 'the grant is listed');
    assert.equal(grant.keyLabel, 'approver');
    assert.equal(grant.redirectHost, '127.0.0.1:9');
    assert.equal(grant.client.kind, 'registered');
    assert.ok(grant.lastUsedAt !== null, 'last use recorded');
  });

  it('rotates refresh tokens; replaying an old one revokes the whole grant', async () => {
    const first = await connectedTokens(server, ws.key, client);
    const second = await tokensFrom(await refresh(server, client, first.refresh_token));
    assert.notEqual(second.refresh_token, first.refresh_token);
    assert.notEqual(second.access_token, first.access_token);
    assert.equal(await mcpStatus(server.apiUrl, second.access_token), 200);

    const replay = await oauthError(await refresh(server, client, first.refresh_token), 400, 'invalid_grant');
    assert.match(replay.error_description, /already used/);
    assert.equal(await mcpStatus(server.apiUrl, second.access_token), 401, 'the new access token is refused');
    await oauthError(await refresh(server, client, second.refresh_token), 400, 'invalid_grant');
  });

  it('refuses a wrong PKCE verifier with invalid_grant', async () => {
    const { code } = await approvedCode(server, ws.key, client);
    const res = await exchangeCode(server, client, code, pkce().verifier);
    assert.match((await oauthError(res, 400, 'invalid_grant')).error_description, /code_verifier/);
  });

  it('a code works once; its replay is invalid_grant and withdraws the tokens it gave', async () => {
    const { code, pkce: p } = await approvedCode(server, ws.key, client);
    const tokens = await tokensFrom(await exchangeCode(server, client, code, p.verifier));
    assert.equal(await mcpStatus(server.apiUrl, tokens.access_token), 200);
    const again = await oauthError(
      await exchangeCode(server, client, code, p.verifier),
      400,
      'invalid_grant',
    );
    assert.match(again.error_description, /already used/);
    assert.equal(await mcpStatus(server.apiUrl, tokens.access_token), 401);
    await oauthError(await refresh(server, client, tokens.refresh_token), 400, 'invalid_grant');
  });

  it('a code expires after 60 s', async () => {
    const { code, pkce: p } = await approvedCode(server, ws.key, client);
    server.clock.advance(61_000);
    const res = await exchangeCode(server, client, code, p.verifier);
    assert.match((await oauthError(res, 400, 'invalid_grant')).error_description, /expired/);
  });

  it('an access token is refused on REST (audience) with a message naming /mcp', async () => {
    const tokens = await connectedTokens(server, ws.key, client);
    for (const token of [tokens.access_token, tokens.refresh_token]) {
      await assertUnauthorized(
        await ws.api('/sandboxes', { headers: { authorization: `Bearer ${token}` } }),
        /OAuth access token for \/mcp; the REST API takes an API key/,
      );
      await assertUnauthorized(
        await fetch(`${server.apiUrl}/api/v1/whoami`, { headers: { 'x-api-key': token } }),
        /REST API takes an API key/,
      );
    }
    assert.equal(await mcpStatus(server.apiUrl, tokens.access_token), 200, 'still good on /mcp');
    // A refresh token is not an access token on /mcp either.
    assert.equal(await mcpStatus(server.apiUrl, tokens.refresh_token), 401);
  });

  it('an access token expires after an hour; the refresh token still gets a new one', async () => {
    const tokens = await connectedTokens(server, ws.key, client);
    assert.equal(await mcpStatus(server.apiUrl, tokens.access_token), 200);
    server.clock.advance(3_601_000);
    const res = await mcpInitialize(server.apiUrl, tokens.access_token);
    const body = (await res.json()) as { detail: string };
    assert.equal(res.status, 401);
    assert.match(body.detail, /expired/);
    assert.match(
      res.headers.get('www-authenticate') ?? '',
      /error="invalid_token", error_description="[^"]*expired/,
    );
    const renewed = await tokensFrom(await refresh(server, client, tokens.refresh_token));
    assert.equal(await mcpStatus(server.apiUrl, renewed.access_token), 200);
  });

  it('revokes an access token, or the whole grant by its refresh token, at /oauth/revoke', async () => {
    const url = `${server.apiUrl}/oauth/revoke`;
    const tokens = await connectedTokens(server, ws.key, client);
    const other = await registerClient(server.apiUrl);
    // Another client cannot revoke it (answered 200 all the same, RFC 7009 §2.1).
    const foreign = await postForm(url, { token: tokens.access_token, client_id: other.client_id });
    assert.equal(foreign.status, 200);
    assert.equal(await mcpStatus(server.apiUrl, tokens.access_token), 200);

    const revoked = await postForm(url, {
      token: tokens.access_token,
      token_type_hint: 'access_token',
      client_id: client.client_id,
    });
    assert.equal(revoked.status, 200);
    assert.equal(await revoked.text(), '');
    assert.equal(await mcpStatus(server.apiUrl, tokens.access_token), 401);
    const renewed = await tokensFrom(await refresh(server, client, tokens.refresh_token));
    assert.equal(await mcpStatus(server.apiUrl, renewed.access_token), 200);

    const ended = await postForm(url, { token: renewed.refresh_token, client_id: client.client_id });
    assert.equal(ended.status, 200);
    assert.equal(await mcpStatus(server.apiUrl, renewed.access_token), 401, 'the grant ended');
    await oauthError(await refresh(server, client, renewed.refresh_token), 400, 'invalid_grant');
  });

  it('revoking the approving key ends the grant at once', async () => {
    const approver = await newKey('to revoke');
    const tokens = await connectedTokens(server, approver.key, client);
    assert.equal(await mcpStatus(server.apiUrl, tokens.access_token), 200);
    assert.equal((await ws.api(`/keys/${approver.id}`, { method: 'DELETE' })).status, 204);
    const res = await mcpInitialize(server.apiUrl, tokens.access_token);
    assert.equal(res.status, 401);
    assert.match(
      ((await res.json()) as { detail: string }).detail,
      /API key that approved this connection has been revoked/,
    );
    await oauthError(await refresh(server, client, tokens.refresh_token), 400, 'invalid_grant');
    assert.ok(!(await grants()).some((g) => g.keyId === approver.id), 'no longer listed');
  });

  it('disconnecting in the dashboard API (DELETE /oauth/grants/{id}) ends the grant', async () => {
    const approver = await newKey('disconnect');
    const tokens = await connectedTokens(server, approver.key, client);
    const grant = (await grants()).find((g) => g.keyId === approver.id);
    assert.ok(grant !== undefined);
    const deleted = await ws.api(`/oauth/grants/${grant.id}`, { method: 'DELETE' });
    assert.equal(deleted.status, 204);
    assert.equal(await deleted.text(), '');
    assert.equal(await mcpStatus(server.apiUrl, tokens.access_token), 401);
    await oauthError(await refresh(server, client, tokens.refresh_token), 400, 'invalid_grant');
    await assertNotFound(await ws.api(`/oauth/grants/${grant.id}`, { method: 'DELETE' }), 'an ended grant');
    await assertProblem(
      await ws.api('/oauth/grants/not-a-uuid', { method: 'DELETE' }),
      400,
      'validation-error',
    );
  });

  it("another workspace neither sees nor ends this workspace's grants", async () => {
    const stranger = await server.workspace('stranger');
    await connectedTokens(server, ws.key, client);
    const grant = (await grants())[0];
    assert.ok(grant !== undefined);
    const list = await stranger.api('/oauth/grants');
    assert.deepEqual(await list.json(), { items: [] });
    await assertNotFound(
      await stranger.api(`/oauth/grants/${grant.id}`, { method: 'DELETE' }),
      'foreign grant',
    );
  });

  it('deny sends access_denied with the state back to the client and issues nothing', async () => {
    const params = authorizeParams(server, client, pkce());
    const requestId = await consentRequestId(server, params);
    const back = await decide(server, ws.key, requestId, 'deny');
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT_URI);
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('state'), params.state);
    assert.equal(back.searchParams.get('code'), null);
    // Once decided, it cannot be decided again.
    const again = await postJson(
      `${server.apiUrl}/api/v1/oauth/authorizations/${requestId}`,
      { decision: 'approve' },
      { authorization: `Bearer ${ws.key}` },
    );
    await assertNotFound(again, 'a decided request');
  });

  it('refuses a malformed decision, an unknown request, and an expired one', async () => {
    const requestId = await consentRequestId(server, authorizeParams(server, client, pkce()));
    const url = `${server.apiUrl}/api/v1/oauth/authorizations/${requestId}`;
    const auth = { authorization: `Bearer ${ws.key}` };
    await assertProblem(await postJson(url, { decision: 'maybe' }, auth), 400, 'validation-error');
    await assertProblem(await postJson(url, {}, auth), 400, 'validation-error');
    await assertNotFound(
      await postJson(
        `${server.apiUrl}/api/v1/oauth/authorizations/${crypto.randomUUID()}`,
        { decision: 'approve' },
        auth,
      ),
      'unknown request',
    );
    await assertUnauthorized(await postJson(url, { decision: 'approve' }), /No API key/);
    server.clock.advance(601_000);
    await assertNotFound(await fetch(url, { headers: auth }), 'an expired request');
    await assertNotFound(await postJson(url, { decision: 'approve' }, auth), 'an expired request');
  });

  it('a decision made with the session cookie must come from our own origin', async () => {
    const signIn = await postJson(`${server.apiUrl}/api/v1/session`, { apiKey: ws.key });
    assert.equal(signIn.status, 200);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] as string;
    assert.match(cookie, /^sandtrap_session=./);
    const requestId = await consentRequestId(server, authorizeParams(server, client, pkce()));
    const url = `${server.apiUrl}/api/v1/oauth/authorizations/${requestId}`;

    // Reading the request with the cookie is fine (a GET changes nothing).
    const view = await fetch(url, { headers: { cookie } });
    assert.equal(view.status, 200);
    await view.text();

    for (const origin of ['https://evil.example', undefined]) {
      const res = await postJson(
        url,
        { decision: 'approve' },
        { cookie, ...(origin === undefined ? {} : { origin }) },
      );
      await assertProblem(res, 403, 'cross-site');
    }
    // Nothing was decided: from our own origin it goes through.
    const ok = await postJson(url, { decision: 'approve' }, { cookie, origin: server.apiUrl });
    assert.equal(ok.status, 200);
    const { redirectTo } = (await ok.json()) as { redirectTo: string };
    assert.match(new URL(redirectTo).searchParams.get('code') ?? '', /^stc_/);
  });
});
