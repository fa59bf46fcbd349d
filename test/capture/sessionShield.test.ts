// The dashboard session never meets captured traffic (issue 34): browsers send cookies by host, not port, so a
// signed-in person's browser sends the session cookie to the capture listener. Over real HTTP on every store:
// the cookie is removed before the request is stored, shown, searched or echoed (path and host routing), the
// detail names what was removed, a rule can never set the session cookie (refused at save, stripped at send),
// capture replies carry `Content-Security-Policy: sandbox` unless a rule sets its own, and the API trusts no
// session when two session cookies arrive (401, both cleared) or when an http-named cookie comes over https.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { components } from '../../openapi/schema.d.ts';
import { sendCapture, sendRecorded } from '../helpers/captureClient.ts';
import { assertProblem } from '../helpers/responses.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

type Detail = components['schemas']['RequestDetail'] & { redactedCookies: string[] };

const T = { timeout: 30_000 };

describeEachStore('Capture keeps the dashboard session out', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let sandboxId: string;
  /** `sandtrap_session=<token>` of a real signed-in session of `ws`. */
  let sessionPair: string;
  let token: string;

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace();
    sandboxId = (await ws.createSandbox({ name: 'lure' })).id as string;
    const res = await fetch(`${server.apiUrl}/api/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.apiUrl },
      body: JSON.stringify({ apiKey: ws.key }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const line = res.headers.getSetCookie().find((c) => c.startsWith('sandtrap_session='));
    assert.ok(line !== undefined);
    sessionPair = line.split(';')[0] as string;
    token = sessionPair.slice('sandtrap_session='.length);
  });
  after(() => server.close());

  const detail = async (requestId: string): Promise<Detail> => {
    const res = await ws.api(`/sandboxes/${sandboxId}/requests/${requestId}`);
    assert.equal(res.status, 200);
    return (await res.json()) as Detail;
  };
  const raw = async (requestId: string): Promise<string> =>
    (await ws.api(`/sandboxes/${sandboxId}/requests/${requestId}/raw`)).text();
  const setRules = async (mocks: unknown[]) => {
    const res = await ws.api(`/sandboxes/${sandboxId}/mocks`, {
      method: 'PUT',
      body: JSON.stringify({ mocks }),
    });
    return res;
  };

  describe('recording', () => {
    it(
      'removes the session cookie from the stored Cookie header and keeps the others as sent',
      T,
      async () => {
        await setRules([]);
        const got = await sendRecorded(server.ports.capture, sandboxId, {
          path: '/pixel.png',
          headers: { Cookie: `theme=dark; ${sessionPair}; cart=42` },
        });
        const d = await detail(got.requestId);
        const cookies = d.headers.filter((h) => h.name.toLowerCase() === 'cookie');
        assert.deepEqual(cookies, [{ name: 'Cookie', value: 'theme=dark; cart=42' }]);
        assert.deepEqual(d.redactedCookies, ['sandtrap_session']);
        assert.ok(!JSON.stringify(d).includes(token), 'the token is nowhere in the detail');
        const source = await raw(got.requestId);
        assert.ok(!source.includes(token), 'nor in the raw request');
        assert.match(source, /\r\nCookie: theme=dark; cart=42\r\n/);
      },
    );

    it('drops a Cookie header left empty, on host routing too, and for every prefixed name', T, async () => {
      const got = await sendCapture(server.ports.capture, {
        path: '/hook',
        headers: {
          Host: `${sandboxId}.capture.localhost`,
          Cookie: [sessionPair, `__Host-sandtrap_session=${token}; __Secure-sandtrap_session=${token}`],
        },
      });
      assert.equal(got.status, 200);
      const d = await detail(got.requestId as string);
      assert.equal(d.path, '/hook');
      assert.equal(
        d.headers.some((h) => h.name.toLowerCase() === 'cookie'),
        false,
        JSON.stringify(d.headers),
      );
      assert.deepEqual(d.redactedCookies, [
        'sandtrap_session',
        '__Host-sandtrap_session',
        '__Secure-sandtrap_session',
      ]);
      assert.ok(!(await raw(got.requestId as string)).includes(token));
    });

    it(
      'keeps a request without the session cookie byte for byte, with redactedCookies empty',
      T,
      async () => {
        const got = await sendRecorded(server.ports.capture, sandboxId, {
          path: '/plain',
          headers: { cookie: 'a=1;b=2' },
        });
        const d = await detail(got.requestId);
        assert.deepEqual(
          d.headers.filter((h) => h.name === 'cookie'),
          [{ name: 'cookie', value: 'a=1;b=2' }],
        );
        assert.deepEqual(d.redactedCookies, []);
      },
    );

    it('never echoes the session through a template, and a search never finds it', T, async () => {
      assert.equal(
        (
          await setRules([
            {
              pattern: '/echo',
              statusCode: 200,
              headers: { 'X-Cookie': '{{header.cookie}}' },
              body: 'cookie={{header.cookie}}',
            },
          ])
        ).status,
        200,
      );
      const got = await sendRecorded(server.ports.capture, sandboxId, {
        path: '/echo',
        headers: { Cookie: `${sessionPair}; visible=yes` },
      });
      assert.equal(got.body.toString(), 'cookie=visible=yes');
      assert.equal(got.headers['x-cookie'], 'visible=yes');
      const page = await ws.api(
        `/sandboxes/${sandboxId}/requests?q=${encodeURIComponent(token.slice(0, 12))}`,
      );
      assert.deepEqual(((await page.json()) as { items: unknown[] }).items, []);
    });
  });

  describe('replies', () => {
    it(
      '400 naming the header when a rule sets the session cookie; the rules stay as they were',
      T,
      async () => {
        assert.equal((await setRules([{ pattern: '/kept', statusCode: 204 }])).status, 200);
        for (const value of [
          'sandtrap_session=attacker; Path=/api/v1/oauth',
          ' __Host-sandtrap_session=x; Secure; Path=/',
          '__Secure-sandtrap_session=x',
        ]) {
          const res = await setRules([
            { pattern: '/plant', statusCode: 200, headers: { 'Set-Cookie': value } },
          ]);
          const problem = await assertProblem(res, 400, 'validation-error');
          assert.deepEqual(
            (problem.errors ?? []).map((e) => e.path),
            ['mocks[0].headers.Set-Cookie'],
          );
          assert.match(problem.errors?.[0]?.message ?? '', /session cookie/);
        }
        const sandbox = (await (await ws.api(`/sandboxes/${sandboxId}`)).json()) as { mocks: unknown[] };
        assert.equal(sandbox.mocks.length, 1);
      },
    );

    it(
      'strips a session cookie a template renders at send time, and keeps the rule’s other cookies',
      T,
      async () => {
        assert.equal(
          (
            await setRules([
              {
                pattern: '/plant',
                statusCode: 200,
                headers: { 'Set-Cookie': '{{query.n}}=planted; Path=/' },
              },
              { pattern: '/other', statusCode: 200, headers: { 'Set-Cookie': 'app=1; Path=/' } },
            ])
          ).status,
          200,
        );
        const planted = await sendRecorded(server.ports.capture, sandboxId, {
          path: '/plant?n=sandtrap_session',
        });
        assert.equal(planted.status, 200);
        assert.equal(planted.headers['set-cookie'], undefined);
        const harmless = await sendRecorded(server.ports.capture, sandboxId, { path: '/plant?n=theme' });
        assert.deepEqual(harmless.headers['set-cookie'], ['theme=planted; Path=/']);
        const other = await sendRecorded(server.ports.capture, sandboxId, { path: '/other' });
        assert.deepEqual(other.headers['set-cookie'], ['app=1; Path=/']);
      },
    );

    it('sends Content-Security-Policy: sandbox unless the rule sets its own', T, async () => {
      assert.equal(
        (
          await setRules([
            {
              pattern: '/page',
              statusCode: 200,
              headers: { 'Content-Type': 'text/html' },
              body: '<img src=x>',
            },
            {
              pattern: '/own',
              statusCode: 200,
              headers: { 'content-security-policy': "default-src 'self'" },
              body: 'x',
            },
          ])
        ).status,
        200,
      );
      const page = await sendRecorded(server.ports.capture, sandboxId, { path: '/page' });
      assert.equal(page.headers['content-security-policy'], 'sandbox');
      const own = await sendRecorded(server.ports.capture, sandboxId, { path: '/own' });
      assert.equal(own.headers['content-security-policy'], "default-src 'self'");
      const defaultReply = await sendRecorded(server.ports.capture, sandboxId, { path: '/unmatched' });
      assert.equal(defaultReply.headers['content-security-policy'], 'sandbox');
      const refused = await sendCapture(server.ports.capture, { path: '/not-a-sandbox/x' });
      assert.equal(refused.status, 404);
      assert.equal(refused.headers['content-security-policy'], 'sandbox');
    });
  });

  describe('the API with planted cookies', () => {
    it('401 for two session cookies, clearing each at / and at every folder above the path', T, async () => {
      const other = await server.workspace();
      const planted = await fetch(`${server.apiUrl}/api/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: server.apiUrl },
        body: JSON.stringify({ apiKey: other.key }),
      });
      const plantedPair = planted.headers.getSetCookie()[0]?.split(';')[0] as string;
      // The browser sends the more specific path first: the planted cookie, then the person's own.
      const res = await fetch(`${server.apiUrl}/api/v1/sandboxes`, {
        headers: { cookie: `${plantedPair}; ${sessionPair}` },
      });
      const problem = await assertProblem(res, 401, 'unauthorized');
      assert.match(problem.detail ?? '', /More than one dashboard session cookie/);
      const cleared = res.headers.getSetCookie();
      for (const path of ['/', '/api', '/api/', '/api/v1', '/api/v1/', '/api/v1/sandboxes']) {
        assert.ok(
          cleared.some(
            (c) => c.startsWith('sandtrap_session=;') && c.includes(`Path=${path};`) && /Max-Age=0/.test(c),
          ),
          `cleared at ${path}: ${cleared.join(' | ')}`,
        );
      }
      const who = await fetch(`${server.apiUrl}/api/v1/session`, {
        headers: { cookie: `${sessionPair}; ${plantedPair}` },
      });
      await assertProblem(who, 401, 'unauthorized');
      // One cookie alone still works: the refusal is about the pair, not either session.
      const alone = await fetch(`${server.apiUrl}/api/v1/whoami`, { headers: { cookie: sessionPair } });
      assert.equal(alone.status, 200);
    });
  });
});

describeEachStore('Session cookie over https', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;

  before(async () => {
    server = await startTestServer(getStore(), { PUBLIC_URL: 'https://sandtrap.example' });
    ws = await server.workspace();
  });
  after(() => server.close());

  it('is named __Host-sandtrap_session (Secure, Path=/) and only that name is read', T, async () => {
    const res = await fetch(`${server.apiUrl}/api/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://sandtrap.example' },
      body: JSON.stringify({ apiKey: ws.key }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const line = res.headers.getSetCookie()[0] ?? '';
    assert.match(
      line,
      /^__Host-sandtrap_session=[^;]+; HttpOnly; SameSite=Strict; Path=\/; Max-Age=\d+; Secure$/,
    );
    const value = (line.split(';')[0] as string).slice('__Host-sandtrap_session='.length);
    const withHost = await fetch(`${server.apiUrl}/api/v1/whoami`, {
      headers: { cookie: `__Host-sandtrap_session=${value}` },
    });
    assert.equal(withHost.status, 200);
    // The unprefixed name could have been set by any page on this host (a capture reply): not a session here.
    const plain = await fetch(`${server.apiUrl}/api/v1/whoami`, {
      headers: { cookie: `sandtrap_session=${value}` },
    });
    await assertProblem(plain, 401, 'unauthorized');
  });
});
