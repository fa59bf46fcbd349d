// MCP authorization end to end: the MCP SDK client's own OAuth support (auth() with an OAuthClientProvider)
// against a real `sandtrap serve`, the consent step signed in and approved in Chromium, once with Dynamic
// Client Registration and once with a Client ID Metadata Document served over https by the test; then the
// SDK's refresh on a refused access token, rotation, and reuse detection ending the grant. On the embedded
// store, and on PostgreSQL when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import pg from 'pg';
import type { Browser } from 'playwright-core';
import {
  cleanupProcesses,
  runCli,
  startServerProcess,
  tempDir,
  type ServerProcess,
} from '../helpers/process.ts';
import { buildDashboard, launchBrowser, screenshot } from './helpers.ts';
import {
  MemoryOAuthProvider,
  selfSignedLoopbackCert,
  startMetadataDocumentServer,
  writeCaFile,
  type MetadataDocumentServer,
} from './oauthClient.ts';
import { startRedirectTarget, type RedirectTarget } from './oauthFlow.ts';

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
const STORES: ('embedded' | 'postgres')[] =
  TEST_DATABASE_URL === undefined || TEST_DATABASE_URL === '' ? ['embedded'] : ['embedded', 'postgres'];
const ACCESS_TOKEN = /^sta_[A-Za-z0-9_-]{43}$/;
const REFRESH_TOKEN = /^str_[A-Za-z0-9_-]{43}$/;
const CODE = /^stc_[A-Za-z0-9_-]{43}$/;
const KEY_LINE = /^API key: (stk_\w+)$/m;

/** A database of the suite's own on the PostgreSQL server of TEST_DATABASE_URL, dropped afterwards. */
async function freshDatabase(base: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `oauth_e2e_${randomBytes(6).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: base, connectionTimeoutMillis: 5_000 });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

for (const store of STORES) {
  describe(`MCP SDK client OAuth against sandtrap, consent in Chromium [${store}]`, () => {
    let server: ServerProcess;
    let browser: Browser;
    let callback: RedirectTarget;
    let documentServer: MetadataDocumentServer;
    let dropDatabase: (() => Promise<void>) | undefined;
    /** Workspace "default" (BOOTSTRAP_API_KEY) and workspace "approvers" (made with the CLI before start). */
    let defaultKey: string;
    let approversKey: string;

    before(async () => {
      buildDashboard();
      const dataDir = tempDir();
      const storeEnv: Record<string, string> = {};
      if (store === 'postgres') {
        const db = await freshDatabase(TEST_DATABASE_URL as string);
        dropDatabase = db.drop;
        storeEnv.DATABASE_URL = db.url;
      }
      callback = await startRedirectTarget();
      const tls = await selfSignedLoopbackCert();
      documentServer = await startMetadataDocumentServer(tls, (clientId) => ({
        client_id: clientId,
        client_name: 'Metadata Document Client',
        client_uri: new URL('/', clientId).href,
        redirect_uris: [callback.url],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }));

      const generated = await runCli(['keys', 'generate']);
      assert.equal(generated.code, 0, generated.stderr);
      defaultKey = generated.stdout.trim();
      const created = await runCli(['workspaces', 'create', 'approvers'], { DATA_DIR: dataDir, ...storeEnv });
      assert.equal(created.code, 0, created.stderr);
      approversKey = KEY_LINE.exec(created.stdout)?.[1] ?? assert.fail(created.stdout);

      server = await startServerProcess({
        dataDir,
        env: {
          ...storeEnv,
          BOOTSTRAP_API_KEY: defaultKey,
          // The metadata document lives on 127.0.0.1 behind a certificate only this file trusts.
          NODE_EXTRA_CA_CERTS: writeCaFile(tempDir(), tls.cert),
          OAUTH_ALLOW_PRIVATE_CLIENT_URLS: 'true',
        },
      });
      await server.waitHealthy(20_000);
      browser = await launchBrowser();
    });

    after(async () => {
      await browser?.close().catch(() => undefined);
      await server?.stop().catch(() => undefined);
      await callback?.close();
      await documentServer?.close();
      await cleanupProcesses();
      await dropDatabase?.();
    });

    const mcpUrl = () => new URL(`${server.apiUrl}/mcp`);
    const connect = async (provider: MemoryOAuthProvider) => {
      const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
      const client = new Client({ name: 'sandtrap-oauth-e2e', version: '1.0.0' });
      await client.connect(transport, { timeout: 10_000 });
      return client;
    };
    const rest = (key: string, path: string) =>
      fetch(`${server.apiUrl}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
    const tokenRequest = (form: Record<string, string>) =>
      fetch(`${server.apiUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams(form),
      });

    /**
     * Opens the authorization URL in a fresh browser context, which the server sends to the consent page;
     * signs in there with `key`, checks what the card says, approves, and returns the redirect_uri's query.
     */
    async function consentInBrowser(
      authorizationUrl: URL,
      key: string,
      expect: { clientName: string; shows: string[]; shot: string },
    ): Promise<URLSearchParams> {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        const opened = await page.goto(authorizationUrl.href);
        const consentPage = new RegExp(`^${server.apiUrl}/oauth/consent/[^/?#]+$`);
        if (!consentPage.test(page.url())) {
          assert.fail(
            `/oauth/authorize did not lead to the consent page: ${opened?.status()} at ${page.url()}\n` +
              (await page.locator('body').innerText()),
          );
        }
        await page.getByLabel('API key').fill(key);
        await page.getByRole('button', { name: 'Sign in' }).click();
        const approve = page.getByRole('button', { name: 'Approve' });
        await approve.waitFor();
        const card = await page.locator('body').innerText();
        assert.ok(card.includes(expect.clientName), `the consent page names the client:\n${card}`);
        assert.ok(card.includes(new URL(callback.url).host), `and its redirect host:\n${card}`);
        for (const shown of expect.shows) assert.ok(card.includes(shown), `it says ${shown}:\n${card}`);
        await screenshot(page, expect.shot);
        await approve.click();
        const query = await callback.next(20_000);
        await page.waitForURL((url) => url.href.startsWith(callback.url));
        return query;
      } finally {
        await context.close();
      }
    }

    /**
     * The whole flow as an MCP host runs it: a connect that ends in UnauthorizedError after discovery,
     * registration (or a metadata-document client_id) and redirectToAuthorization; consent in Chromium;
     * finishAuth with the callback's query; a fresh connect; tools/list and create_sandbox, which lands in
     * the approving key's workspace and not the other one.
     */
    async function authorizeAndUse(
      provider: MemoryOAuthProvider,
      approver: { key: string; workspace: string; keyLabel: string; otherKey: string },
      expect: { clientName: string; clientId: RegExp | string; kindNote: string; shot: string },
    ): Promise<void> {
      const firstTransport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
      const first = new Client({ name: 'sandtrap-oauth-e2e', version: '1.0.0' });
      await assert.rejects(first.connect(firstTransport, { timeout: 10_000 }), (err: unknown) => {
        assert.ok(err instanceof UnauthorizedError, `UnauthorizedError expected, got ${String(err)}`);
        return true;
      });
      assert.equal(provider.authorizationUrls.length, 1, 'the SDK asked once to send the user to authorize');
      const authorizationUrl = provider.authorizationUrls[0] as URL;
      assert.equal(
        `${authorizationUrl.origin}${authorizationUrl.pathname}`,
        `${server.apiUrl}/oauth/authorize`,
      );
      const q = authorizationUrl.searchParams;
      assert.equal(q.get('response_type'), 'code');
      assert.equal(q.get('code_challenge_method'), 'S256');
      assert.equal(q.get('redirect_uri'), callback.url);
      assert.equal(q.get('resource'), mcpUrl().href, 'the resource indicator is the MCP URL (RFC 8707)');
      assert.equal(
        q.get('scope'),
        'mcp offline_access',
        'the scope from WWW-Authenticate, plus offline_access because the AS metadata lists it (SEP-2207)',
      );
      assert.equal(q.get('state'), provider.lastState);
      const clientId = q.get('client_id') ?? assert.fail('no client_id');
      if (typeof expect.clientId === 'string') assert.equal(clientId, expect.clientId);
      else assert.match(clientId, expect.clientId);

      const callbackQuery = await consentInBrowser(authorizationUrl, approver.key, {
        clientName: expect.clientName,
        shows: [approver.workspace, approver.keyLabel, expect.kindNote, 'mcp'],
        shot: expect.shot,
      });
      assert.equal(callbackQuery.get('error'), null, `the callback carried ${callbackQuery.toString()}`);
      assert.equal(callbackQuery.get('state'), provider.lastState, 'state comes back unchanged');
      assert.match(callbackQuery.get('code') ?? '', CODE);
      await firstTransport.finishAuth(callbackQuery);

      const tokens = provider.tokens() ?? assert.fail('finishAuth saved no tokens');
      assert.match(tokens.access_token, ACCESS_TOKEN);
      assert.match(tokens.refresh_token ?? '', REFRESH_TOKEN);
      assert.equal(tokens.token_type.toLowerCase(), 'bearer');
      assert.equal(tokens.expires_in, 3600);
      assert.equal(tokens.scope, 'mcp offline_access');

      const client = await connect(provider);
      try {
        const { tools } = await client.listTools();
        assert.ok(
          tools.some((t) => t.name === 'create_sandbox'),
          tools.map((t) => t.name).join(),
        );
        const name = `via ${expect.shot}`;
        const result: any = await client.callTool({ name: 'create_sandbox', arguments: { name } });
        assert.ok(!result.isError, JSON.stringify(result));
        const sandboxId: string = result.structuredContent.sandbox_id;

        const mine = await rest(approver.key, `/sandboxes/${sandboxId}`);
        assert.equal(mine.status, 200, 'the sandbox is in the approving key’s workspace');
        assert.equal(((await mine.json()) as { name: string }).name, name);
        const theirs = await rest(approver.otherKey, `/sandboxes/${sandboxId}`);
        await theirs.arrayBuffer();
        assert.equal(theirs.status, 404, 'and not in the other workspace');
      } finally {
        await client.close();
      }
      assert.equal(provider.authorizationUrls.length, 1, 'no second authorization was needed');

      const grants = await rest(approver.key, '/oauth/grants');
      assert.equal(grants.status, 200);
      const { items } = (await grants.json()) as { items: any[] };
      assert.ok(
        items.some((g) => g.client.clientId === clientId && g.client.name === expect.clientName),
        `the dashboard lists the connected client: ${JSON.stringify(items)}`,
      );
    }

    /**
     * With the stored access token refused (as once it expires), the SDK refreshes on its own and connects;
     * the refresh rotated both tokens; presenting the replaced refresh token again is invalid_grant and ends
     * the grant, after which the SDK's own refresh is refused and it starts a new authorization.
     */
    async function refreshAndReuse(provider: MemoryOAuthProvider, clientId: string): Promise<void> {
      const before = provider.tokens() ?? assert.fail('no tokens');
      const saved = provider.savedTokens.length;
      provider.spoilAccessToken(`sta_${randomBytes(32).toString('base64url')}`);
      const client = await connect(provider);
      try {
        await client.listTools();
      } finally {
        await client.close();
      }
      assert.equal(provider.savedTokens.length, saved + 1, 'the SDK saved one refreshed token set');
      const after = provider.tokens() ?? assert.fail('no tokens after the refresh');
      assert.match(after.access_token, ACCESS_TOKEN);
      assert.match(after.refresh_token ?? '', REFRESH_TOKEN);
      assert.notEqual(after.access_token, before.access_token);
      assert.notEqual(after.refresh_token, before.refresh_token, 'the refresh token rotated');
      assert.equal(provider.authorizationUrls.length, 1, 'refreshing needed no new authorization');

      const reuse = await tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: before.refresh_token as string,
        client_id: clientId,
        resource: mcpUrl().href,
      });
      assert.equal(reuse.status, 400);
      assert.equal(
        ((await reuse.json()) as { error: string }).error,
        'invalid_grant',
        'a replaced refresh token is refused',
      );

      const refused = await fetch(mcpUrl(), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${after.access_token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      await refused.arrayBuffer();
      assert.equal(
        refused.status,
        401,
        'reuse of a refresh token ended the grant: its access token is refused',
      );
      const challenge = refused.headers.get('www-authenticate') ?? '';
      assert.match(challenge, /^Bearer /);
      assert.match(challenge, /error="invalid_token"/);
      assert.ok(
        challenge.includes(`resource_metadata="${server.apiUrl}/.well-known/oauth-protected-resource/mcp"`),
        challenge,
      );

      const again = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
      await assert.rejects(
        new Client({ name: 'sandtrap-oauth-e2e', version: '1.0.0' }).connect(again, { timeout: 10_000 }),
        (err: unknown) => err instanceof UnauthorizedError,
      );
      assert.ok(provider.invalidated.includes('tokens'), 'the SDK dropped the refused tokens');
      assert.equal(provider.authorizationUrls.length, 2, 'and asked for a new authorization');
    }

    test('Dynamic Client Registration: UnauthorizedError, consent in Chromium, finishAuth, tools in the approving workspace; refresh, rotation, reuse detection', async () => {
      const provider = new MemoryOAuthProvider({
        redirectUrl: callback.url,
        clientName: 'Registered Test Client',
      });
      await authorizeAndUse(
        provider,
        // `workspaces create` labels a workspace's first key "first key".
        { key: approversKey, workspace: 'approvers', keyLabel: 'first key', otherKey: defaultKey },
        {
          clientName: 'Registered Test Client',
          clientId: /^stcl_[A-Za-z0-9_-]{22}$/,
          kindNote: 'self-registered',
          shot: 'oauth-consent-dcr',
        },
      );
      const info = provider.clientInformation() ?? assert.fail('no client information saved');
      assert.equal(info.client_secret, undefined, 'a public client (token_endpoint_auth_method none)');
      await refreshAndReuse(provider, info.client_id);
    });

    test('Client ID Metadata Document over https: the document URL is the client_id, fetched by the server; same flow', async () => {
      const provider = new MemoryOAuthProvider({
        redirectUrl: callback.url,
        clientName: 'ignored: the document names the client',
        clientMetadataUrl: documentServer.url,
      });
      await authorizeAndUse(
        provider,
        { key: defaultKey, workspace: 'default', keyLabel: 'bootstrap', otherKey: approversKey },
        {
          clientName: 'Metadata Document Client',
          clientId: documentServer.url,
          // Where the document lives is what vouches for the name.
          kindNote: new URL(documentServer.url).host,
          shot: 'oauth-consent-cimd',
        },
      );
      assert.ok(documentServer.fetches() >= 1, 'sandtrap fetched the metadata document');
      assert.equal(provider.clientInformation()?.client_id, documentServer.url, 'no registration happened');
      await refreshAndReuse(provider, documentServer.url);
    });
  });
}
