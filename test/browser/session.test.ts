// Dashboard sessions in Chromium: sign-in with an API key, the cookie's attributes, no key in web storage,
// sign-out and key revocation end the session, and a cross-site write carrying the cookie is refused.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { axe, eventually, newContext, screenshot, signIn, signedIn, useDashboard } from './helpers.ts';

const COOKIE = 'sandtrap_session';
const SESSION_HOURS = 12;

describe('dashboard sign-in and sign-out', () => {
  const h = useDashboard();

  test('a wrong key is refused with an alert; the right key signs in with an HttpOnly, SameSite=Strict, expiring cookie and is kept nowhere in the page; sign-out ends the session', async () => {
    const { context, page } = await newContext(h);
    await page.goto(h.origin + '/');
    await page.getByRole('heading', { name: 'Sign in to sandtrap' }).waitFor();
    await screenshot(page, 'sign-in');
    await axe(page, 'sign-in page');

    await page.getByLabel('API key').fill(`stk_${'x'.repeat(38)}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.notEqual((await alert.innerText()).trim(), '', 'the refusal says what went wrong');
    await screenshot(page, 'sign-in-error');
    await axe(page, 'sign-in page with an error');
    assert.deepEqual(
      (await context.cookies(h.origin)).filter((c) => c.name === COOKIE),
      [],
      'no session for a wrong key',
    );

    await page.getByLabel('API key').fill(h.apiKey);
    const before = Date.now() / 1000;
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Sandboxes', exact: true }).waitFor();
    await page.getByRole('link', { name: 'Sandboxes', exact: true }).waitFor();
    const after = Date.now() / 1000;

    const cookie = (await context.cookies(h.origin)).find((c) => c.name === COOKIE);
    assert.ok(cookie, `a ${COOKIE} cookie is set`);
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    assert.equal(cookie.path, '/');
    assert.equal(cookie.secure, false, 'plain http: no Secure flag (the browser would drop the cookie)');
    // Max-Age counts from the sign-in (whole seconds, rounded down), the browser from when it got the reply.
    const ttl = SESSION_HOURS * 3600;
    assert.ok(
      before + ttl - 1 <= cookie.expires && cookie.expires <= after + ttl + 1,
      `expires ${SESSION_HOURS} h after the sign-in: ${new Date(cookie.expires * 1000).toISOString()}`,
    );
    assert.ok(!cookie.value.includes(h.apiKey.slice(4)), 'the cookie is not the key');

    const stored = await page.evaluate(() => {
      const g = globalThis as any;
      const dump = (s: any) => JSON.stringify(Object.fromEntries(Object.entries(s)));
      return { local: dump(g.localStorage), session: dump(g.sessionStorage), cookie: g.document.cookie };
    });
    for (const [where, text] of Object.entries(stored)) {
      assert.ok(!text.includes(h.apiKey), `the key is kept in ${where}`);
    }
    assert.ok(!stored.cookie.includes(COOKIE), 'the session cookie is not readable by script');

    // The cookie alone authenticates the API (no key header), and the session survives a reload.
    const token = cookie.value;
    const withCookie = await fetch(`${h.origin}/api/v1/sandboxes`, {
      headers: { cookie: `${COOKIE}=${token}` },
    });
    assert.equal(withCookie.status, 200);
    await page.reload();
    await page.getByRole('heading', { name: 'Sandboxes', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to sandtrap' }).waitFor();
    assert.deepEqual(
      (await context.cookies(h.origin)).filter((c) => c.name === COOKIE && c.value !== ''),
      [],
      'the cookie is cleared',
    );
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to sandtrap' }).waitFor();
    const replay = await fetch(`${h.origin}/api/v1/sandboxes`, { headers: { cookie: `${COOKIE}=${token}` } });
    assert.equal(replay.status, 401, 'the old session token is revoked on the server, not only forgotten');
    await context.close();
  });

  test('revoking the key a session was made with ends the session in the open page', async () => {
    const created = await h.json<{ id: string; key: string }>('POST', '/keys', { label: 'browser' });
    const { context, page } = await newContext(h);
    await signIn(page, h, created.key);
    const token = (await context.cookies(h.origin)).find((c) => c.name === COOKIE)?.value;
    assert.ok(token);
    await h.json('DELETE', `/keys/${created.id}`);
    const res = await fetch(`${h.origin}/api/v1/session`, { headers: { cookie: `${COOKIE}=${token}` } });
    assert.equal(res.status, 401, await res.text());
    // The page learns it on its next call: a reload lands on the sign-in page.
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to sandtrap' }).waitFor();
    await context.close();
  });
});

describe('dashboard CSRF: a write from another origin with the session cookie', () => {
  const h = useDashboard();
  let evil: http.Server;
  let evilOrigin: string;
  let pageHtml = '';

  before(async () => {
    // Another port on 127.0.0.1 is another origin but the same site, so SameSite=Strict still sends the
    // cookie: only the server's Origin check stands between this page and the API.
    evil = http.createServer((_req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(pageHtml);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    evilOrigin = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
  });
  after(async () => {
    if (evil !== undefined) await new Promise((resolve) => evil.close(resolve));
  });

  test('is refused with 403 cross-site and changes nothing; the same write from the dashboard succeeds', async () => {
    const sandbox = await h.createSandbox('csrf target');
    const before = await h.json('GET', '/sandboxes');
    const { context, page } = await signedIn(h);

    const resetUrl = `${h.origin}/api/v1/sandboxes/${sandbox.id}/secret/reset`;
    const createUrl = `${h.origin}/api/v1/sandboxes`;
    pageHtml = `<!doctype html><title>elsewhere</title>
      <form id="f" method="post" action="${createUrl}" enctype="text/plain">
        <input name='{"name":"planted","x":"' value='"}'>
      </form>
      <script>
        window.attacks = Promise.allSettled([
          fetch(${JSON.stringify(resetUrl)}, { method: 'POST', mode: 'no-cors', credentials: 'include' }),
          fetch(${JSON.stringify(createUrl)}, { method: 'POST', mode: 'no-cors', credentials: 'include',
            headers: { 'content-type': 'text/plain' }, body: '{"name":"planted"}' }),
          fetch(${JSON.stringify(`${h.origin}/api/v1/sandboxes/${sandbox.id}`)}, { method: 'DELETE', credentials: 'include' }),
        ]);
      </script>`;
    const attacker = await context.newPage();
    const seen: { url: string; method: string; status: number; cookie: boolean }[] = [];
    attacker.on('response', (res) => {
      const req = res.request();
      if (!req.url().startsWith(h.origin)) return;
      void req.allHeaders().then((headers) =>
        seen.push({
          url: req.url(),
          method: req.method(),
          status: res.status(),
          cookie: (headers.cookie ?? '').includes(COOKIE),
        }),
      );
    });
    await attacker.goto(evilOrigin + '/');
    await attacker.evaluate(() => (globalThis as any).attacks);
    const formAnswer = attacker.waitForResponse((res) => res.url() === createUrl);
    await attacker.evaluate(() => (globalThis as any).document.getElementById('f').submit());
    const navigation = await formAnswer;
    assert.equal(navigation.status(), 403, 'the form post is refused');
    const problem = JSON.parse(await navigation.text());
    assert.equal(problem.type, 'urn:sandtrap:problem:cross-site');
    await eventually(
      () => `the fetches and the form to reach the server: ${JSON.stringify(seen)}`,
      () => seen.filter((s) => s.method === 'POST').length >= 3,
    );
    // The form's navigation shows its request headers to the test (no-cors fetches may not): the cookie went
    // along (same site), so its refusal is the Origin check and not a missing session.
    assert.ok(
      seen.some((s) => s.cookie && s.method === 'POST'),
      `the cookie was sent with a cross-site write: ${JSON.stringify(seen)}`,
    );
    for (const s of seen) {
      if (s.method !== 'OPTIONS') assert.equal(s.status, 403, `${s.method} ${s.url}`);
    }
    const after = await h.json('GET', `/sandboxes/${sandbox.id}`);
    assert.equal(after.smtpPassword, sandbox.smtpPassword, 'the secret was not reset');
    assert.deepEqual(
      (await h.json('GET', '/sandboxes')).items.map((s: any) => s.id),
      before.items.map((s: any) => s.id),
      'no sandbox was created or deleted',
    );

    // The control: the same write from the dashboard's own origin, with the same cookie, goes through.
    const status = await page.evaluate(
      (url) => fetch(url, { method: 'POST', credentials: 'same-origin' }).then((r) => r.status),
      resetUrl,
    );
    assert.equal(status, 200);
    assert.notEqual((await h.json('GET', `/sandboxes/${sandbox.id}`)).smtpPassword, sandbox.smtpPassword);
    await context.close();
  });
});
