// The client's side of an OAuth authorization as the dashboard's consent tests need it, done over fetch the way an
// MCP client would: discovery, Dynamic Client Registration, the authorization request (PKCE S256) that sends the
// browser to /oauth/consent/{id}, a loopback redirect_uri server receiving the answer, and the code exchange.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A native app's redirect_uri (RFC 8252): http on 127.0.0.1 with its own port; keeps every query it receives. */
export interface RedirectTarget {
  url: string;
  /** host:port, as the consent page shows it. */
  host: string;
  /** Resolves with the query of the next request to `url` (one already received counts). */
  next(timeoutMs?: number): Promise<URLSearchParams>;
  close(): Promise<void>;
}

export async function startRedirectTarget(): Promise<RedirectTarget> {
  const received: URLSearchParams[] = [];
  const waiters: ((query: URLSearchParams) => void)[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Back in the app</title><h1>Back in the app</h1>');
    const waiter = waiters.shift();
    if (waiter) waiter(url.searchParams);
    else received.push(url.searchParams);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `http://${host}/callback`,
    host,
    next(timeoutMs = 15_000) {
      const ready = received.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve, reject) => {
        const waiter = (query: URLSearchParams) => {
          clearTimeout(timer);
          resolve(query);
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`nothing reached ${host}/callback within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface PendingAuthorization {
  clientId: string;
  /** The authorize URL as the client would open it in the browser. */
  authorizeUrl: string;
  /** Where GET /oauth/authorize sent the browser: <origin>/oauth/consent/{requestId}. */
  consentUrl: string;
  requestId: string;
  redirectUri: string;
  state: string;
  verifier: string;
  resource: string;
}

async function readJson(res: Response, what: string): Promise<any> {
  const text = await res.text();
  assert.ok(res.ok, `${what} answered ${res.status}: ${text}`);
  return JSON.parse(text);
}

/** The MCP resource URL from the protected resource metadata, as a client learns it. */
export async function discoverResource(origin: string): Promise<string> {
  const doc = await readJson(
    await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`),
    'protected resource metadata',
  );
  assert.equal(typeof doc.resource, 'string');
  return doc.resource as string;
}

/** POST /oauth/register (RFC 7591) for a public client with one redirect URI; its client_id. */
export async function registerClient(origin: string, name: string, redirectUri: string): Promise<string> {
  const res = await fetch(`${origin}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  const body = (await res.json()) as { client_id: string };
  assert.match(body.client_id, /^stcl_/);
  return body.client_id as string;
}

/**
 * GET /oauth/authorize for `clientId` without following the redirect: it must send the browser to the consent
 * page of a new request.
 */
export async function startAuthorization(
  origin: string,
  clientId: string,
  redirectUri: string,
): Promise<PendingAuthorization> {
  const resource = await discoverResource(origin);
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(12).toString('base64url');
  const authorizeUrl = `${origin}/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state,
    scope: 'mcp',
    resource,
  })}`;
  const res = await fetch(authorizeUrl, { redirect: 'manual' });
  assert.equal(res.status, 302, await res.text());
  const consentUrl = new URL(res.headers.get('location') ?? '', origin);
  assert.equal(consentUrl.origin, origin, 'the consent page is on the dashboard origin');
  const requestId = /^\/oauth\/consent\/([^/]+)$/.exec(consentUrl.pathname)?.[1];
  assert.ok(requestId, `Location ${consentUrl} is a consent page`);
  return {
    clientId,
    authorizeUrl,
    consentUrl: consentUrl.toString(),
    requestId: decodeURIComponent(requestId),
    redirectUri,
    state,
    verifier,
    resource,
  };
}

/** POST /oauth/token with the code and the PKCE verifier; the token response. */
export async function exchangeCode(
  origin: string,
  pending: PendingAuthorization,
  code: string,
): Promise<{ access_token: string; refresh_token: string }> {
  const res = await fetch(`${origin}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: pending.redirectUri,
      client_id: pending.clientId,
      code_verifier: pending.verifier,
      resource: pending.resource,
    }),
  });
  return readJson(res, 'the token endpoint');
}
