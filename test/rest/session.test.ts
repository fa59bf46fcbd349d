// Dashboard sessions over real HTTP (fetch), on every store: sign-in sets an HttpOnly SameSite=Strict cookie
// (Secure only over https: a trusted proxy's X-Forwarded-Proto, or an https PUBLIC_URL), the cookie reads the
// API and opens the live stream, sign-out and expiry end it, revoking its key ends it (and its stream), and a
// cookie write from another origin, or with none, is 403 and changes nothing.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { SESSION_TTL_MS } from '../../src/core/sessions.ts';
import { sendRecorded } from '../helpers/captureClient.ts';
import { assertJson, assertProblem } from '../helpers/responses.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

const T = { timeout: 30_000 };

interface SessionBody {
  workspaceId: string;
  keyId: string;
  keyLabel: string;
  expiresAt: string;
}

/** The Set-Cookie for the session cookie (`__Host-` prefixed over https), split into its value and attributes. */
function sessionSetCookie(
  res: Response,
  name = 'sandtrap_session',
): { value: string; attrs: Map<string, string> } {
  const line = res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
  assert.ok(line !== undefined, `a ${name} cookie is set: ${res.headers.getSetCookie().join(' | ')}`);
  const [pair, ...rest] = line.split(';').map((p) => p.trim());
  const attrs = new Map<string, string>();
  for (const a of rest) {
    const eq = a.indexOf('=');
    attrs.set((eq === -1 ? a : a.slice(0, eq)).toLowerCase(), eq === -1 ? '' : a.slice(eq + 1));
  }
  return { value: (pair as string).slice(name.length + 1), attrs };
}

const HOST_COOKIE = '__Host-sandtrap_session';

describeEachStore('REST dashboard sessions', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let origin: string;

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace();
    origin = server.apiUrl;
  });
  after(() => server.close());

  const signIn = (apiKey: string, headers: Record<string, string> = {}, base = server.apiUrl) =>
    fetch(`${base}/api/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ apiKey }),
    });

  async function cookieFor(apiKey: string): Promise<string> {
    const res = await signIn(apiKey, { origin });
    assert.equal(res.status, 200, await res.clone().text());
    return `sandtrap_session=${sessionSetCookie(res).value}`;
  }

  /** fetch /api/v1 with the cookie only (no key header), as the dashboard does. */
  const withCookie = (cookie: string, path: string, init: RequestInit = {}) =>
    fetch(`${server.apiUrl}/api/v1${path}`, {
      ...init,
      headers: {
        cookie,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(init.headers as Record<string, string> | undefined),
      },
    });

  it(
    'signs in with a key: the session body, and a cookie that is HttpOnly, SameSite=Strict, Path=/, 12 h',
    T,
    async () => {
      const before = server.clock.now().getTime();
      const res = await signIn(ws.key, { origin });
      const after = server.clock.now().getTime();
      const text = await res.clone().text();
      const body = await assertJson<SessionBody>(res);
      const who = await assertJson<{ workspaceId: string; keyId: string; label: string }>(
        await ws.api('/whoami'),
      );
      assert.equal(body.workspaceId, who.workspaceId);
      assert.equal(body.keyId, who.keyId);
      assert.equal(body.keyLabel, who.label);
      const expiresAt = Date.parse(body.expiresAt);
      assert.ok(
        before + SESSION_TTL_MS <= expiresAt && expiresAt <= after + SESSION_TTL_MS,
        `expires 12 h after the sign-in: ${body.expiresAt}`,
      );
      assert.ok(!text.includes(ws.key), 'the key is never echoed');
      assert.equal(res.headers.get('cache-control'), 'no-store');

      const { value, attrs } = sessionSetCookie(res);
      assert.match(value, /^[A-Za-z0-9_-]{43}$/);
      assert.ok(!value.includes(ws.key.slice(4, 20)), 'the token is not derived from the key text');
      assert.ok(attrs.has('httponly'));
      assert.equal(attrs.get('samesite'), 'Strict');
      assert.equal(attrs.get('path'), '/');
      assert.ok(Math.abs(Number(attrs.get('max-age')) - SESSION_TTL_MS / 1000) <= 60);
      assert.ok(!attrs.has('secure'), 'no Secure over plain http');
    },
  );

  it('reads the session back and uses the cookie on /api/v1 without a key header', T, async () => {
    const cookie = await cookieFor(ws.key);
    const session = await assertJson<SessionBody>(await withCookie(cookie, '/session'));
    const who = await assertJson<{ keyId: string }>(await withCookie(cookie, '/whoami'));
    assert.equal(who.keyId, session.keyId);
    const sandbox = await ws.createSandbox({ name: 'seen-by-cookie' });
    const got = await assertJson<{ id: string }>(await withCookie(cookie, `/sandboxes/${sandbox.id}`));
    assert.equal(got.id, sandbox.id);
  });

  it('a key header wins over the cookie', T, async () => {
    const other = await server.workspace();
    const cookie = await cookieFor(ws.key);
    const res = await fetch(`${server.apiUrl}/api/v1/whoami`, {
      headers: { cookie, authorization: `Bearer ${other.key}` },
    });
    const who = await assertJson<{ workspaceId: string }>(res);
    const theirs = await assertJson<{ workspaceId: string }>(await other.api('/whoami'));
    assert.equal(who.workspaceId, theirs.workspaceId);
  });

  it('refuses a bad key at sign-in (401, no cookie) and a sign-in from another site (403)', T, async () => {
    const bad = await signIn('stk_nope');
    await assertProblem(bad, 401, 'unauthorized');
    assert.equal(bad.headers.getSetCookie().length, 0);
    const revokedKey = await ws.api('/keys', { method: 'POST', body: JSON.stringify({ label: 'x' }) });
    const created = (await revokedKey.json()) as { id: string; key: string };
    await ws.api(`/keys/${created.id}`, { method: 'DELETE' });
    const revoked = await signIn(created.key);
    const problem = await assertProblem(revoked, 401, 'unauthorized');
    assert.match(problem.detail ?? '', /revoked/);

    const crossSite = await signIn(ws.key, { origin: 'https://evil.example' });
    await assertProblem(crossSite, 403, 'cross-site');
    assert.equal(crossSite.headers.getSetCookie().length, 0);
    // No Origin at all (curl, scripts) may sign in.
    assert.equal((await signIn(ws.key)).status, 200);
  });

  it('answers 401 without a cookie and for a made-up one, clearing it', T, async () => {
    const none = await fetch(`${server.apiUrl}/api/v1/session`);
    await assertProblem(none, 401, 'unauthorized');
    const madeUp = await withCookie(`sandtrap_session=${'A'.repeat(43)}`, '/sandboxes');
    await assertProblem(madeUp, 401, 'unauthorized');
    const cleared = sessionSetCookie(madeUp);
    assert.equal(cleared.value, '');
    assert.equal(cleared.attrs.get('max-age'), '0');
  });

  it('signs out: 204, the cookie cleared, and the token dead on every route', T, async () => {
    const cookie = await cookieFor(ws.key);
    const out = await withCookie(cookie, '/session', { method: 'DELETE', headers: { origin } });
    assert.equal(out.status, 204);
    assert.equal(sessionSetCookie(out).attrs.get('max-age'), '0');
    await assertProblem(await withCookie(cookie, '/session'), 401, 'unauthorized');
    await assertProblem(await withCookie(cookie, '/sandboxes'), 401, 'unauthorized');
  });

  it('refuses a cookie write without our Origin (403 cross-site) and changes nothing', T, async () => {
    const cookie = await cookieFor(ws.key);
    const sandbox = await ws.createSandbox({ name: 'keep-me' });
    const attempts: Array<Record<string, string>> = [
      {},
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: origin.replace('127.0.0.1', 'localhost') },
      { origin: origin.replace('http:', 'https:') },
    ];
    for (const headers of attempts) {
      const rename = await withCookie(cookie, `/sandboxes/${sandbox.id}`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ name: 'hijacked' }),
      });
      await assertProblem(rename, 403, 'cross-site');
      await assertProblem(
        await withCookie(cookie, `/sandboxes/${sandbox.id}`, { method: 'DELETE', headers }),
        403,
        'cross-site',
      );
      await assertProblem(
        await withCookie(cookie, '/sandboxes', {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: 'planted' }),
        }),
        403,
        'cross-site',
      );
      // Sign-out is a write too: another site cannot end the session.
      await assertProblem(
        await withCookie(cookie, '/session', { method: 'DELETE', headers }),
        403,
        'cross-site',
      );
    }
    const still = await assertJson<{ name: string }>(await ws.api(`/sandboxes/${sandbox.id}`));
    assert.equal(still.name, 'keep-me');
    const list = await assertJson<{ items: Array<{ name: string }> }>(await ws.api('/sandboxes?q=planted'));
    assert.equal(list.items.length, 0);
    assert.equal((await withCookie(cookie, '/session')).status, 200, 'the session survived');

    // Reads need no Origin; a same-origin write goes through.
    assert.equal((await withCookie(cookie, `/sandboxes/${sandbox.id}`)).status, 200);
    const renamed = await withCookie(cookie, `/sandboxes/${sandbox.id}`, {
      method: 'PUT',
      headers: { origin },
      body: JSON.stringify({ name: 'renamed' }),
    });
    assert.equal((await assertJson<{ name: string }>(renamed)).name, 'renamed');
  });

  it('ends the session when it expires (401), at 12 h', T, async () => {
    const cookie = await cookieFor(ws.key);
    server.clock.advance(SESSION_TTL_MS - 60_000);
    assert.equal((await withCookie(cookie, '/session')).status, 200);
    server.clock.advance(61_000);
    const expired = await withCookie(cookie, '/sandboxes');
    const problem = await assertProblem(expired, 401, 'unauthorized');
    assert.match(problem.detail ?? '', /expired/);
    await assertProblem(await withCookie(cookie, '/session'), 401, 'unauthorized');
  });

  it('ends a session no later than its key expires', T, async () => {
    const res = await ws.api('/keys', {
      method: 'POST',
      body: JSON.stringify({ label: 'short', expiresInDays: 1 }),
    });
    const created = (await res.json()) as { key: string; expiresAt: string };
    server.clock.advance(24 * 3_600_000 - 3_600_000);
    const signed = await signIn(created.key, { origin });
    const body = await assertJson<SessionBody>(signed.clone());
    assert.equal(body.expiresAt, created.expiresAt);
    assert.ok(Number(sessionSetCookie(signed).attrs.get('max-age')) <= 3_600);
    const cookie = `sandtrap_session=${sessionSetCookie(signed).value}`;
    server.clock.advance(3_600_000 + 1_000);
    await assertProblem(await withCookie(cookie, '/whoami'), 401, 'unauthorized');
  });

  it(
    'revoking the key ends its sessions and their live streams; the cookie opens the stream',
    T,
    async () => {
      const created = (await (
        await ws.api('/keys', { method: 'POST', body: JSON.stringify({ label: 'dashboard' }) })
      ).json()) as { id: string; key: string };
      const cookie = await cookieFor(created.key);
      const sandbox = await ws.createSandbox({ name: 'live' });

      const stream = await withCookie(cookie, `/sandboxes/${sandbox.id}/events`);
      assert.equal(stream.status, 200);
      assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
      const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = '';
      // Reads until `pattern` shows; a stream that never shows it ends the test at its timeout.
      const readUntil = async (pattern: RegExp) => {
        while (!pattern.test(text)) {
          const { value, done } = await reader.read();
          if (done) return false;
          text += decoder.decode(value, { stream: true });
        }
        return true;
      };
      await readUntil(/retry: \d+/);
      const sent = await sendRecorded(server.ports.capture, sandbox.id, {
        method: 'POST',
        path: '/hook',
        body: 'x',
      });
      assert.ok(await readUntil(new RegExp(`event: request.received\\ndata: .*"id":"${sent.requestId}"`)));

      assert.equal((await ws.api(`/keys/${created.id}`, { method: 'DELETE' })).status, 204);
      const gone = await withCookie(cookie, '/session');
      const problem = await assertProblem(gone, 401, 'unauthorized');
      assert.match(problem.detail ?? '', /revoked/);
      await assertProblem(await withCookie(cookie, '/sandboxes'), 401, 'unauthorized');
      await server.core.liveEvents.endStreamsOfUnusableKeys();
      assert.equal(await readUntil(/(?!)/), false, 'the stream ended');
    },
  );
});

describeEachStore('REST dashboard sessions behind https', (getStore) => {
  it('sets Secure when a trusted proxy says https, and takes its https origin for writes', T, async () => {
    const server = await startTestServer(getStore(), { TRUSTED_PROXIES: 'loopback' });
    try {
      const ws = await server.workspace();
      const host = new URL(server.apiUrl).host;
      const res = await fetch(`${server.apiUrl}/api/v1/session`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-forwarded-proto': 'https',
          origin: `https://${host}`,
        },
        body: JSON.stringify({ apiKey: ws.key }),
      });
      assert.equal(res.status, 200);
      const { value, attrs } = sessionSetCookie(res, HOST_COOKIE);
      assert.ok(attrs.has('secure'));
      const write = (origin: string) =>
        fetch(`${server.apiUrl}/api/v1/sandboxes`, {
          method: 'POST',
          headers: {
            cookie: `${HOST_COOKIE}=${value}`,
            'content-type': 'application/json',
            'x-forwarded-proto': 'https',
            origin,
          },
          body: JSON.stringify({ name: 'via proxy' }),
        });
      assert.equal((await write(`https://${host}`)).status, 201);
      await assertProblem(await write(`http://${host}`), 403, 'cross-site');
    } finally {
      await server.close();
    }
  });
});

// startTestServer's close() closes its store: one suite (one store) per server.
describeEachStore('REST dashboard sessions, untrusted proxy', (getStore) => {
  it('ignores X-Forwarded-Proto from a peer it does not trust', T, async () => {
    const server = await startTestServer(getStore());
    try {
      const ws = await server.workspace();
      const res = await fetch(`${server.apiUrl}/api/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
        body: JSON.stringify({ apiKey: ws.key }),
      });
      assert.equal(res.status, 200);
      assert.ok(!sessionSetCookie(res).attrs.has('secure'));
    } finally {
      await server.close();
    }
  });
});

describeEachStore('REST dashboard sessions, https PUBLIC_URL', (getStore) => {
  it('sets Secure and accepts PUBLIC_URL as the origin when PUBLIC_URL is https', T, async () => {
    const server = await startTestServer(getStore(), { PUBLIC_URL: 'https://sandtrap.example.com/' });
    try {
      const ws = await server.workspace();
      const res = await fetch(`${server.apiUrl}/api/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'https://sandtrap.example.com' },
        body: JSON.stringify({ apiKey: ws.key }),
      });
      assert.equal(res.status, 200);
      const { value, attrs } = sessionSetCookie(res, HOST_COOKIE);
      assert.ok(attrs.has('secure'));
      const out = await fetch(`${server.apiUrl}/api/v1/session`, {
        method: 'DELETE',
        headers: { cookie: `${HOST_COOKIE}=${value}`, origin: 'https://sandtrap.example.com' },
      });
      assert.equal(out.status, 204);
      assert.ok(sessionSetCookie(out, HOST_COOKIE).attrs.has('secure'));
    } finally {
      await server.close();
    }
  });
});
