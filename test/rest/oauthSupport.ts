// Helpers for the OAuth endpoint tests: a client driving the authorization code flow by hand with fetch
// (registration, /oauth/authorize, the consent API, the token endpoint) and raw calls to /mcp with a token.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { TestServer } from '../helpers/server.ts';

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function pkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface Registration {
  client_id: string;
  client_secret?: string;
  token_endpoint_auth_method: string;
  redirect_uris: string[];
  [field: string]: unknown;
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** POST /oauth/register and expect 201. */
export async function registerClient(
  apiUrl: string,
  metadata: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Registration> {
  const res = await postJson(
    `${apiUrl}/oauth/register`,
    {
      client_name: 'Test MCP client',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      ...metadata,
    },
    headers,
  );
  const text = await res.text();
  assert.equal(res.status, 201, text);
  return JSON.parse(text) as Registration;
}

/** A form body as the token and revocation endpoints take it; an array value repeats the parameter. */
export function form(fields: Record<string, string | string[] | undefined>): URLSearchParams {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
  }
  return body;
}

export function basic(id: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}`;
}

export function postForm(
  url: string,
  fields: Record<string, string | string[] | undefined>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, { method: 'POST', headers, body: form(fields) });
}

/** The RFC error body of a refusal, with its status checked. */
export async function oauthError(
  res: Response,
  status: number,
  error: string,
): Promise<{ error: string; error_description: string }> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const body = JSON.parse(text) as { error: string; error_description: string };
  assert.equal(body.error, error, text);
  assert.ok(body.error_description.length > 10, `a description that says what was wrong: ${text}`);
  return body;
}

export interface AuthorizeParams {
  client_id?: string;
  redirect_uri?: string;
  response_type?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  resource?: string;
  state?: string;
  scope?: string;
}

/** GET /oauth/authorize without following the redirect. */
export function authorize(server: TestServer, params: AuthorizeParams): Promise<Response> {
  const url = new URL(`${server.apiUrl}/oauth/authorize`);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return fetch(url, { redirect: 'manual' });
}

/** The query of a 302 back to the client's redirect URI. */
export function redirectedTo(res: Response, redirectUri = REDIRECT_URI): URLSearchParams {
  assert.equal(res.status, 302);
  const location = res.headers.get('location') ?? '';
  assert.ok(location.startsWith(`${redirectUri}?`), `redirect to the client: ${location}`);
  return new URL(location).searchParams;
}

/** Default authorization parameters for a registered public client. */
export function authorizeParams(server: TestServer, client: Registration, p: Pkce): AuthorizeParams {
  return {
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    code_challenge: p.challenge,
    code_challenge_method: 'S256',
    resource: `${server.apiUrl}/mcp`,
    state: randomBytes(8).toString('hex'),
    scope: 'mcp',
  };
}

/** /oauth/authorize up to the consent page: the pending request's id. */
export async function consentRequestId(server: TestServer, params: AuthorizeParams): Promise<string> {
  const res = await authorize(server, params);
  const text = await res.text();
  assert.equal(res.status, 302, text);
  const location = res.headers.get('location') ?? '';
  const match = new RegExp(`^${server.apiUrl}/oauth/consent/([0-9a-f-]{36})$`).exec(location);
  assert.ok(match !== null, `redirect to the consent page: ${location}`);
  return match[1] as string;
}

/** POST the decision with an API key header; the redirectTo. */
export async function decide(
  server: TestServer,
  key: string,
  requestId: string,
  decision: 'approve' | 'deny',
): Promise<URL> {
  const res = await postJson(
    `${server.apiUrl}/api/v1/oauth/authorizations/${requestId}`,
    { decision },
    { authorization: `Bearer ${key}` },
  );
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return new URL((JSON.parse(text) as { redirectTo: string }).redirectTo);
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

/** Register-free: authorize, approve with `key`, and return the code and the verifier that goes with it. */
export async function approvedCode(
  server: TestServer,
  key: string,
  client: Registration,
): Promise<{ code: string; pkce: Pkce; state: string }> {
  const p = pkce();
  const params = authorizeParams(server, client, p);
  const requestId = await consentRequestId(server, params);
  const back = await decide(server, key, requestId, 'approve');
  assert.equal(`${back.origin}${back.pathname}`, REDIRECT_URI);
  assert.equal(back.searchParams.get('state'), params.state);
  assert.equal(back.searchParams.get('iss'), server.apiUrl);
  const code = back.searchParams.get('code');
  assert.ok(code !== null && code.startsWith('stc_'), `a code: ${back.href}`);
  return { code, pkce: p, state: params.state as string };
}

/** POST /oauth/token with a public client's client_id (or `headers` for Basic). */
export function tokenRequest(
  server: TestServer,
  fields: Record<string, string | string[] | undefined>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return postForm(`${server.apiUrl}/oauth/token`, fields, headers);
}

export async function tokensFrom(res: Response): Promise<Tokens> {
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  const tokens = JSON.parse(text) as Tokens;
  assert.match(tokens.access_token, /^sta_[A-Za-z0-9_-]{43}$/);
  assert.match(tokens.refresh_token, /^str_[A-Za-z0-9_-]{43}$/);
  assert.equal(tokens.token_type, 'Bearer');
  assert.equal(tokens.expires_in, 3600);
  assert.equal(tokens.scope, 'mcp');
  return tokens;
}

export function exchangeCode(
  server: TestServer,
  client: Registration,
  code: string,
  verifier: string,
): Promise<Response> {
  return tokenRequest(server, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT_URI,
    client_id: client.client_id,
    resource: `${server.apiUrl}/mcp`,
  });
}

/** The whole flow for a public client: tokens for `key`'s workspace. */
export async function connectedTokens(
  server: TestServer,
  key: string,
  client: Registration,
): Promise<Tokens> {
  const { code, pkce: p } = await approvedCode(server, key, client);
  return tokensFrom(await exchangeCode(server, client, code, p.verifier));
}

export function refresh(server: TestServer, client: Registration, refreshToken: string): Promise<Response> {
  return tokenRequest(server, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: client.client_id,
  });
}

/** A raw JSON-RPC initialize on /mcp with `Authorization: Bearer <token>` (or none). */
export function mcpInitialize(apiUrl: string, token?: string): Promise<Response> {
  return fetch(`${apiUrl}/mcp`, {
    method: 'POST',
    headers: {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'oauth-test', version: '1.0.0' },
      },
    }),
  });
}

/** The access token works on /mcp (200) or is refused (401 with its challenge); the body is drained. */
export async function mcpStatus(apiUrl: string, token: string): Promise<number> {
  const res = await mcpInitialize(apiUrl, token);
  await res.text();
  return res.status;
}
