// /mcp with OAuth on: API keys keep working exactly as before (Bearer and X-Api-Key, the same refusals), an
// OAuth access token acts as its grant's workspace and key, and every 401 carries the challenge the MCP SDK
// client reads to discover the authorization server (checked with the SDK's own discovery functions).
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import {
  Client,
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { generateApiKey } from '../../src/core/apiKeyFormat.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { TOOL_NAMES } from './client.ts';
import { connectedTokens, mcpInitialize, registerClient, type Tokens } from '../rest/oauthSupport.ts';

async function connect(apiUrl: string, headers: Record<string, string>): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${apiUrl}/mcp`), {
    requestInit: { headers },
  });
  const client = new Client({ name: 'oauth-bearer-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function sandboxNames(client: Client): Promise<string[]> {
  const listed: any = await client.callTool({ name: 'list_sandboxes', arguments: {} });
  assert.ok(!listed.isError, JSON.stringify(listed));
  return (listed.structuredContent.sandboxes as { name: string }[]).map((s) => s.name);
}

describeEachStore('MCP bearer authentication with OAuth on', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let tokens: Tokens;

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace('bearer');
    await ws.createSandbox({ name: 'made with the key' });
    tokens = await connectedTokens(server, ws.key, await registerClient(server.apiUrl));
  });
  after(() => server.close());

  it('API keys work as before, in the Authorization header and in X-Api-Key', async () => {
    const headerSets: Record<string, string>[] = [
      { Authorization: `Bearer ${ws.key}` },
      { 'X-Api-Key': ws.key },
    ];
    for (const headers of headerSets) {
      const client = await connect(server.apiUrl, headers);
      try {
        assert.equal((await client.listTools()).tools.length, TOOL_NAMES.length);
        assert.deepEqual(await sandboxNames(client), ['made with the key']);
      } finally {
        await client.close();
      }
    }
  });

  it('an access token acts in the workspace of the key that approved it', async () => {
    const client = await connect(server.apiUrl, { Authorization: `Bearer ${tokens.access_token}` });
    try {
      assert.deepEqual(await sandboxNames(client), ['made with the key']);
    } finally {
      await client.close();
    }
  });

  it('API key refusals keep their messages, now with the OAuth challenge', async () => {
    const cases: [string, RegExp][] = [
      [generateApiKey(), /The API key is not recognised/],
      ['stk_nope', /The API key is malformed/],
    ];
    for (const [key, detail] of cases) {
      const res = await mcpInitialize(server.apiUrl, key);
      const body = (await res.json()) as { detail: string };
      assert.equal(res.status, 401);
      assert.match(body.detail, detail);
      const challenge = extractWWWAuthenticateParams(res);
      assert.equal(challenge.error, 'invalid_token');
      assert.equal(challenge.scope, 'mcp');
      assert.equal(
        challenge.resourceMetadataUrl?.href,
        `${server.apiUrl}/.well-known/oauth-protected-resource/mcp`,
      );
    }
  });

  it('the SDK client finds the authorization server from the 401 challenge', async () => {
    const refused = await mcpInitialize(server.apiUrl);
    await refused.text();
    assert.equal(refused.status, 401);
    const { resourceMetadataUrl, scope, error } = extractWWWAuthenticateParams(refused);
    assert.equal(scope, 'mcp');
    assert.equal(error, undefined);
    assert.ok(resourceMetadataUrl !== undefined);
    const resource = await discoverOAuthProtectedResourceMetadata(`${server.apiUrl}/mcp`, {
      resourceMetadataUrl,
    });
    assert.equal(resource.resource, `${server.apiUrl}/mcp`);
    const issuer = resource.authorization_servers?.[0];
    assert.equal(issuer, server.apiUrl);
    const as = await discoverAuthorizationServerMetadata(issuer as string);
    assert.ok(as !== undefined);
    assert.equal(as.issuer, server.apiUrl);
    assert.equal(as.token_endpoint, `${server.apiUrl}/oauth/token`);
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
  });

  it('the SDK client cannot connect with a refused token', async () => {
    await assert.rejects(connect(server.apiUrl, { Authorization: `Bearer sta_${'Z'.repeat(43)}` }));
  });
});
