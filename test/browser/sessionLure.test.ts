// The dashboard session never meets captured traffic, proven in Chromium (issue 34). Cookies ignore ports, so a
// signed-in person's browser sends `sandtrap_session` to the capture listener on the same host. A tenant
// (workspace "tenant") lures the person (workspace "default", signed in) to its sandbox: the capture URL opened
// directly, from a mail's Links tab and from a click in the mail's HTML preview. Every stored capture is read
// back with the tenant's key (detail, raw source) and must hold no session token, and `redactedCookies` names
// the cookie exactly where Chromium sent it. A rule cannot plant a session (refused at save, stripped when a
// template renders one), and two session cookies are no session: 401, both cleared from the jar. On the
// embedded store, and on PostgreSQL when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test, type TestContext } from 'node:test';
import pg from 'pg';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { eventually, screenshot, signedIn, newContext, signIn, useDashboard } from './helpers.ts';
import type { HarnessOptions, Sandbox } from './helpers.ts';

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
const STORES: ('embedded' | 'postgres')[] =
  TEST_DATABASE_URL === undefined || TEST_DATABASE_URL === '' ? ['embedded'] : ['embedded', 'postgres'];
const SESSION = 'sandtrap_session';

/** A database of the suite's own on the PostgreSQL server of TEST_DATABASE_URL, dropped afterwards. */
async function freshDatabase(base: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `lure_e2e_${randomBytes(6).toString('hex')}`;
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

interface Detail {
  id: string;
  method: string;
  path: string;
  query: string | null;
  headers: { name: string; value: string }[];
  redactedCookies: string[];
}

/** The session cookie(s) in the context's jar. */
async function sessionCookies(context: BrowserContext) {
  return (await context.cookies()).filter((c) => c.name.endsWith(SESSION));
}

/** The person's own token: the one session cookie the dashboard set at sign-in. */
async function personToken(context: BrowserContext): Promise<string> {
  const cookies = await sessionCookies(context);
  assert.equal(cookies.length, 1, JSON.stringify(cookies));
  assert.equal(cookies[0]?.path, '/');
  return cookies[0]?.value ?? assert.fail('no session cookie');
}

/** GET /api/v1/session through the page's own fetch (the cookie, as the dashboard sends it). */
async function sessionThroughPage(page: Page): Promise<{ status: number; body: any }> {
  return page.evaluate(async () => {
    const res = await fetch('/api/v1/session', { credentials: 'same-origin' });
    return { status: res.status, body: await res.json() };
  });
}

for (const store of STORES) {
  describe(`the dashboard session never meets captured traffic, in Chromium [${store}]`, () => {
    // The PostgreSQL database is made in a hook registered before useDashboard's own, which reads the options
    // only when it runs.
    const options: HarnessOptions = { workspaces: ['tenant'], env: {} };
    let dropDatabase: (() => Promise<void>) | undefined;
    if (store === 'postgres') {
      before(async () => {
        const db = await freshDatabase(TEST_DATABASE_URL as string);
        dropDatabase = db.drop;
        (options.env as Record<string, string>).DATABASE_URL = db.url;
      });
    }
    const h = useDashboard(options);
    after(async () => {
      await dropDatabase?.();
    });

    /** The person's workspace id and the tenant's, from their keys. */
    let personWorkspace: string;
    let tenantWorkspace: string;
    const tenantKey = () => h.workspaceKeys.tenant ?? assert.fail('no tenant workspace');
    const asTenant = async (method: string, path: string, body?: unknown) => {
      const res = await h.api(path, {
        method,
        headers: { authorization: `Bearer ${tenantKey()}` },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
    };

    before(async () => {
      personWorkspace = (await h.json('GET', '/whoami')).workspaceId;
      const tenant = await asTenant('GET', '/whoami');
      assert.equal(tenant.status, 200);
      tenantWorkspace = tenant.body.workspaceId;
      assert.notEqual(personWorkspace, tenantWorkspace);
    });

    /**
     * A sandbox of the tenant whose `/lure` answers HTML that loads `/pixel.png` (tagged with the lure's
     * `?via=`) and runs a script that would send the page's cookies to `/steal`.
     */
    async function lureSandbox(name: string): Promise<Sandbox> {
      const created = await asTenant('POST', '/sandboxes', { name });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const sandbox = created.body as Sandbox;
      const base = `/${sandbox.id}`;
      const saved = await asTenant('PUT', `/sandboxes/${sandbox.id}/mocks`, {
        mocks: [
          {
            name: 'lure',
            method: 'GET',
            pattern: '/lure',
            statusCode: 200,
            headers: { 'Content-Type': 'text/html; charset=utf-8' },
            body:
              '<!doctype html><html><head><title>Your invoice</title></head><body>' +
              '<h1>Your invoice is ready</h1><p>Loading the pixel below:</p>' +
              `<img id="pixel" src="${base}/pixel.png?via={{query.via}}" alt="tracking pixel" width="80" height="80">` +
              `<script>fetch('${base}/steal?via={{query.via}}', { credentials: 'include' });` +
              `document.title = 'script ran';</script></body></html>`,
          },
          {
            name: 'pixel',
            method: 'GET',
            pattern: '/pixel.png',
            statusCode: 200,
            headers: { 'Content-Type': 'image/svg+xml' },
            body: '<svg xmlns="http://www.w3.org/2000/svg" width="80" height="80"><rect width="80" height="80" fill="#c00"/></svg>',
          },
        ],
      });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      return sandbox;
    }

    const captureBase = (sandbox: Sandbox) => sandbox.captureUrl.replace(/\/$/, '');

    /** Every request the sandbox stored, read back with the tenant's key (every page, then each detail). */
    async function storedCaptures(sandbox: Sandbox): Promise<Detail[]> {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await asTenant(
          'GET',
          `/sandboxes/${sandbox.id}/requests?limit=200${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
        );
        assert.equal(page.status, 200);
        ids.push(...page.body.items.map((i: { id: string }) => i.id));
        cursor = page.body.nextCursor;
      } while (cursor !== null);
      const details: Detail[] = [];
      for (const id of ids) {
        const d = await asTenant('GET', `/sandboxes/${sandbox.id}/requests/${id}`);
        assert.equal(d.status, 200);
        details.push(d.body);
      }
      return details;
    }

    /**
     * The check every case ends with: no stored capture of the sandbox holds the token (detail or raw source),
     * each one was made by one of the browser's requests, and `redactedCookies` names the session cookie
     * exactly where Chromium sent it. Returns one line per capture, for the test's diagnostics.
     */
    async function assertNoTokenStored(
      sandbox: Sandbox,
      tokens: string[],
      browserRequests: Request[],
    ): Promise<string[]> {
      const lines: string[] = [];
      for (const d of await storedCaptures(sandbox)) {
        const raw = await h.api(`/sandboxes/${sandbox.id}/requests/${d.id}/raw`, {
          headers: { authorization: `Bearer ${tenantKey()}` },
        });
        assert.equal(raw.status, 200);
        const rawText = await raw.text();
        const shown = JSON.stringify(d);
        for (const token of tokens) {
          assert.ok(!shown.includes(token), `${d.path}: the session token is in the stored detail: ${shown}`);
          assert.ok(!rawText.includes(token), `${d.path}: the session token is in the raw request`);
        }
        const cookieHeader = d.headers.filter((x) => x.name.toLowerCase() === 'cookie').map((x) => x.value);
        assert.ok(!cookieHeader.some((v) => v.includes(`${SESSION}=`)), `${d.path}: ${cookieHeader}`);
        const target = `/${sandbox.id}${d.path}${d.query === null || d.query === '' ? '' : `?${d.query}`}`;
        const made = browserRequests.filter((r) => {
          const u = new URL(r.url());
          return u.pathname + u.search === target;
        });
        assert.ok(made.length > 0, `the capture ${target} was made by none of the browser's requests`);
        let sent = false;
        for (const r of made) {
          const cookie = (await r.allHeaders()).cookie ?? '';
          if (cookie.split(';').some((c) => c.trim().startsWith(`${SESSION}=`))) sent = true;
        }
        assert.equal(
          d.redactedCookies.includes(SESSION),
          sent,
          `${target}: redactedCookies ${JSON.stringify(d.redactedCookies)}, Chromium ${sent ? 'sent' : 'did not send'} the session cookie`,
        );
        lines.push(
          `${d.method} ${target}: Chromium ${sent ? 'sent' : 'did not send'} ${SESSION}; stored Cookie ` +
            `${cookieHeader.length === 0 ? '(none)' : JSON.stringify(cookieHeader)}, redactedCookies ` +
            JSON.stringify(d.redactedCookies),
        );
      }
      return lines;
    }

    const report = (t: TestContext, lines: string[]) => {
      for (const line of lines) t.diagnostic(line);
    };

    test('a signed-in page opens the lure: the pixel and the page are stored without the session, the script never runs', async (t) => {
      const sandbox = await lureSandbox('lure direct');
      const { context, page, requests } = await signedIn(h);
      const token = await personToken(context);
      const consoleLines: string[] = [];
      page.on('console', (m) => consoleLines.push(m.text()));

      const lure = `${captureBase(sandbox)}/lure?via=direct`;
      const response = (await page.goto(lure)) ?? assert.fail('no response for the lure');
      assert.equal(response.status(), 200);
      // goto waits for the load event, after the image; the script would have asked for /steal before it.
      const loaded = await page
        .locator('#pixel')
        .evaluate((img: any) => img.complete && img.naturalWidth === 80);
      assert.equal(loaded, true, 'the pixel loaded');
      assert.notEqual(await page.title(), 'script ran', 'the lure’s script ran');
      await eventually('Chromium says it blocked the script', () =>
        consoleLines.some((l) => /Blocked script execution/.test(l) && /allow-scripts/.test(l)),
      );
      await screenshot(page, 'session-lure-page');

      const urls = requests.map((r) => r.url());
      assert.ok(urls.includes(lure), JSON.stringify(urls));
      assert.ok(
        urls.some((u) => u.endsWith('/pixel.png?via=direct')),
        JSON.stringify(urls),
      );
      assert.ok(!urls.some((u) => u.includes('/steal')), `the script asked for /steal: ${urls}`);
      // What stopped it: the capture reply's policy, not the rule (which sets none).
      assert.equal((await response.allHeaders())['content-security-policy'], 'sandbox');
      const stored = await eventually('the page and the pixel stored', async () => {
        const all = await storedCaptures(sandbox);
        return all.some((d) => d.path === '/pixel.png') ? all : undefined;
      });
      assert.deepEqual(stored.map((d) => d.path).sort(), ['/lure', '/pixel.png']);
      assert.ok(!stored.some((d) => d.path === '/steal'));

      // The pixel is asked for by a sandboxed (opaque-origin) document, so Chromium 156 sends it without the
      // SameSite=Strict cookie; the check holds either way, as it compares with what Chromium sent.
      const lines = await assertNoTokenStored(sandbox, [token], requests);
      report(t, lines);
      // The top-level navigation certainly carried the cookie (SameSite=Strict holds on one host): that is
      // the capture that would have leaked it.
      const navigation = stored.find((d) => d.path === '/lure') ?? assert.fail('no /lure capture');
      assert.deepEqual(navigation.redactedCookies, [SESSION]);

      // The tenant's own dashboard shows the capture without the person's session.
      const tenant = await newContext(h);
      await signIn(tenant.page, h, tenantKey());
      await tenant.page.goto(`${h.origin}/s/${sandbox.id}/requests/${navigation.id}`);
      await tenant.page.getByRole('heading', { name: 'GET /lure' }).waitFor();
      await tenant.page.getByRole('table').first().waitFor();
      assert.ok(!(await tenant.page.content()).includes(token), 'the tenant’s view shows the token');
      // ...and says what was removed, so the tenant does not think the sender sent fewer cookies.
      await tenant.page
        .getByText(/Removed before storing: the dashboard's session cookie \(sandtrap_session\)/)
        .waitFor();
      await screenshot(tenant.page, 'session-lure-tenant-view');
      await tenant.context.close();

      // The person is still signed in as themselves, with the same cookie.
      await page.goto(`${h.origin}/`);
      const who = await sessionThroughPage(page);
      assert.equal(who.status, 200);
      assert.equal(who.body.workspaceId, personWorkspace);
      assert.equal(await personToken(context), token);
      await context.close();
    });

    test('a mail links and embeds the lure: the Links tab, a click in the HTML preview and its image store no session', async (t) => {
      const sandbox = await lureSandbox('lure by mail');
      const inbox = await h.createSandbox('person inbox');
      const base = captureBase(sandbox);
      const linkUrl = `${base}/lure?via=links-tab`;
      const previewUrl = `${base}/lure?via=preview`;
      await h.sendMail(inbox, {
        from: 'billing@tenant.example',
        subject: 'Your invoice is ready',
        text: `Open your invoice: ${linkUrl}\nClaim your reward: ${previewUrl}`,
        html:
          '<h1>Your invoice is ready</h1>' +
          `<p><a href="${linkUrl}">Open your invoice</a></p>` +
          `<p><a id="reward" href="${previewUrl}">Claim your reward</a></p>` +
          `<p><img src="${base}/pixel.png?via=mail-img" alt="tracking pixel" width="80" height="80"></p>`,
      });
      const [message] = (await h.json('GET', `/sandboxes/${inbox.id}/messages`)).items;
      assert.ok(message);

      const { context, page, requests } = await signedIn(h);
      const token = await personToken(context);
      await page.goto(`${h.origin}/s/${inbox.id}/messages/${message.id}`);
      await page.getByRole('heading', { name: 'Your invoice is ready' }).first().waitFor();

      // The preview loads the mail's image straight from the capture listener.
      await page.getByRole('tab', { name: 'HTML', exact: true }).click();
      const frame = page.frameLocator('iframe[title="Message HTML"]');
      await frame.getByRole('link', { name: 'Claim your reward' }).waitFor();
      await eventually('the mail’s image loaded in the preview', () =>
        frame.locator('img').evaluate((img: any) => img.complete && img.naturalWidth === 80),
      );
      await screenshot(page, 'session-lure-mail-preview');

      // A click in the preview opens the link in a new tab (the frame may open popups that escape it).
      const [fromPreview] = await Promise.all([
        context.waitForEvent('page'),
        frame.getByRole('link', { name: 'Claim your reward' }).click(),
      ]);
      await fromPreview.waitForLoadState('load');
      assert.equal(fromPreview.url(), previewUrl);
      await screenshot(fromPreview, 'session-lure-from-preview');

      // The Links tab lists the link; a click opens it in a new tab without opener or referrer.
      await page.getByRole('tab', { name: 'Links', exact: true }).click();
      const listed = page.getByRole('tabpanel', { name: 'Links' }).getByRole('link', { name: linkUrl });
      await listed.waitFor();
      await screenshot(page, 'session-lure-links-tab');
      const [fromLinks] = await Promise.all([context.waitForEvent('page'), listed.click()]);
      await fromLinks.waitForLoadState('load');
      assert.equal(fromLinks.url(), linkUrl);
      assert.equal(
        await fromLinks.locator('#pixel').evaluate((img: any) => img.complete && img.naturalWidth === 80),
        true,
      );
      // The new tabs stay open until the check below has read what Chromium sent from them.
      await screenshot(fromLinks, 'session-lure-from-links-tab');

      const wanted = [
        '/pixel.png?via=mail-img',
        '/lure?via=preview',
        '/pixel.png?via=preview',
        '/lure?via=links-tab',
        '/pixel.png?via=links-tab',
      ];
      assert.ok(!requests.some((r) => r.url().includes('/steal')), 'a lure’s script ran');
      const stored = await eventually('every capture stored', async () => {
        const all = await storedCaptures(sandbox);
        const got = all.map((d) => `${d.path}?${d.query}`);
        return wanted.every((w) => got.includes(w)) ? all : undefined;
      });
      assert.equal(stored.length, wanted.length, JSON.stringify(stored.map((d) => [d.path, d.query])));
      const lines = await assertNoTokenStored(sandbox, [token], requests);
      report(t, lines);
      // The Links tab's new tab is a same-site navigation from the dashboard: Chromium sends the Strict
      // cookie with it, and that is the capture the shield has to clean. (What the sandboxed preview asks for,
      // and the tab a click in it opens, come from an opaque origin: Chromium 156 sends no Strict cookie.)
      const fromTab = stored.find((d) => d.path === '/lure' && d.query === 'via=links-tab');
      assert.deepEqual(fromTab?.redactedCookies, [SESSION]);
      await context.close();
    });

    test('a rule cannot plant a session: refused at save, and a templated one is stripped before the browser sees it', async (t) => {
      const sandbox = await lureSandbox('lure plant');
      // The tenant signs in to its own dashboard: that session is what it would like the person to carry.
      const tenant = await newContext(h);
      await signIn(tenant.page, h, tenantKey());
      const attackerToken = await personToken(tenant.context);
      const planted = `${SESSION}=${attackerToken}; Path=/api/v1`;

      const refused = await asTenant('PUT', `/sandboxes/${sandbox.id}/mocks`, {
        mocks: [{ pattern: '/plant', statusCode: 200, headers: { 'Set-Cookie': planted } }],
      });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.type, 'urn:sandtrap:problem:validation-error');
      assert.deepEqual(
        refused.body.errors.map((e: { path: string }) => e.path),
        ['mocks[0].headers.Set-Cookie'],
      );

      // The same rule typed into the tenant's Rules tab: the API's refusal shows on the Headers field.
      await tenant.page.goto(`${h.origin}/s/${sandbox.id}/rules`);
      const rule = (n: number) => tenant.page.getByRole('group', { name: `Rule ${n}`, exact: true });
      await rule(1).getByLabel('Name', { exact: true }).waitFor();
      await tenant.page.getByRole('button', { name: 'Add rule' }).click();
      await rule(3).getByLabel('Name', { exact: true }).fill('plant');
      await rule(3).getByLabel('Pattern', { exact: true }).fill('/plant');
      await rule(3).getByLabel('Status', { exact: true }).fill('200');
      await rule(3).getByLabel('Headers', { exact: true }).fill(`Set-Cookie: ${planted}`);
      await tenant.page.getByRole('button', { name: 'Save rules' }).click();
      const headersField = rule(3).getByLabel('Headers', { exact: true });
      await eventually(
        'aria-invalid on Headers',
        async () => (await headersField.getAttribute('aria-invalid')) === 'true',
      );
      assert.match(await rule(3).getByRole('alert').first().innerText(), /session cookie/);
      await screenshot(tenant.page, 'session-lure-rule-refused');
      const kept = await asTenant('GET', `/sandboxes/${sandbox.id}`);
      assert.deepEqual(
        kept.body.mocks.map((m: { name: string }) => m.name),
        ['lure', 'pixel'],
        'nothing saved',
      );
      // The refused rule is still an unsaved edit: dropped here, or leaving the page would ask first.
      await tenant.page.getByRole('button', { name: 'Discard changes' }).click();

      // A template names the cookie only when the request comes: it saves, and is stripped when it renders.
      const current = kept.body.mocks;
      const templated = await asTenant('PUT', `/sandboxes/${sandbox.id}/mocks`, {
        mocks: [
          ...current,
          {
            name: 'plant',
            pattern: '/plant',
            statusCode: 200,
            headers: {
              'Content-Type': 'text/html',
              'Set-Cookie': '{{query.n}}={{query.v}}; Path=/api/v1',
            },
            body: '<!doctype html><title>Nothing here</title><p>Nothing to see.</p>',
          },
        ],
      });
      assert.equal(templated.status, 200, JSON.stringify(templated.body));
      // The same template plants any other name, as its author meant, and Chromium keeps it: a capture reply
      // (with its CSP sandbox) can set cookies, so the jar checks below can see a planted one.
      const control = await tenant.page.goto(`${captureBase(sandbox)}/plant?n=theme&v=dark`);
      assert.deepEqual(
        (await control?.headersArray())
          ?.filter((x) => x.name.toLowerCase() === 'set-cookie')
          .map((x) => x.value),
        ['theme=dark; Path=/api/v1'],
      );
      assert.deepEqual(
        (await tenant.context.cookies()).filter((c) => c.name === 'theme').map((c) => [c.value, c.path]),
        [['dark', '/api/v1']],
      );

      const { context, page, requests } = await signedIn(h);
      const token = await personToken(context);
      const whoBefore = await sessionThroughPage(page);
      assert.equal(whoBefore.status, 200);
      assert.equal(whoBefore.body.workspaceId, personWorkspace);

      const plantUrl = `${captureBase(sandbox)}/plant?n=${SESSION}&v=${attackerToken}`;
      const response = (await page.goto(plantUrl)) ?? assert.fail('no response');
      assert.equal(response.status(), 200);
      assert.equal(
        (await response.headersArray()).filter((x) => x.name.toLowerCase() === 'set-cookie').length,
        0,
        'the reply sets no cookie',
      );
      const jar = await sessionCookies(context);
      assert.deepEqual(
        jar.map((c) => [c.name, c.path, c.value === token]),
        [[SESSION, '/', true]],
        'only the person’s own session cookie is in the jar',
      );
      assert.ok(!(await context.cookies()).some((c) => c.path.startsWith('/api/v1')), 'nothing at /api/v1');

      await page.goto(`${h.origin}/`);
      await page.getByRole('heading', { name: 'Sandboxes', exact: true }).waitFor();
      const whoAfter = await sessionThroughPage(page);
      assert.equal(whoAfter.status, 200, JSON.stringify(whoAfter.body));
      assert.equal(whoAfter.body.workspaceId, personWorkspace, 'still the person’s workspace');
      assert.notEqual(whoAfter.body.workspaceId, tenantWorkspace);
      const listed: string[] = await page.evaluate(async () => {
        const body: any = await (await fetch('/api/v1/sandboxes')).json();
        return body.items.map((s: { name: string }) => s.name);
      });
      assert.equal(
        listed.includes('lure plant'),
        false,
        'the dashboard does not list the tenant’s sandboxes',
      );
      // The plant request itself carried the person's cookie, and the attacker's token was in its query.
      report(t, await assertNoTokenStored(sandbox, [token], [...tenant.requests, ...requests]));
      await context.close();
      await tenant.context.close();
    });

    test('two session cookies are no session: the dashboard gets 401 and both cookies leave the jar', async () => {
      const tenant = await newContext(h);
      await signIn(tenant.page, h, tenantKey());
      const attackerToken = await personToken(tenant.context);
      await tenant.context.close();

      const { context, page } = await signedIn(h);
      const token = await personToken(context);
      // The page is left first: a live dashboard's own calls (the cards' activity) would meet both cookies and
      // clear them before the count below.
      const dashboardUrl = page.url();
      await page.goto('about:blank');
      // As an attacker who found another way to plant it: the more specific path, so sent first.
      await context.addCookies([
        {
          name: SESSION,
          value: attackerToken,
          domain: '127.0.0.1',
          path: '/api/v1',
          httpOnly: true,
          sameSite: 'Strict',
          secure: false,
          expires: -1,
        },
      ]);
      assert.equal((await sessionCookies(context)).length, 2);

      const apiAnswers: { url: string; status: number; cookie: string }[] = [];
      page.on('response', async (res) => {
        if (!new URL(res.url()).pathname.startsWith('/api/v1/')) return;
        apiAnswers.push({
          url: new URL(res.url()).pathname,
          status: res.status(),
          cookie: (await res.request().allHeaders()).cookie ?? '',
        });
      });
      await page.goto(dashboardUrl);
      // The dashboard finds no session it can trust and asks for a key again.
      await page.getByLabel('API key').waitFor();
      await screenshot(page, 'session-lure-two-cookies');
      await eventually('the dashboard’s API answers recorded', () => apiAnswers.length > 0);
      const withBoth = apiAnswers.filter(
        (a) => a.cookie.includes(`${SESSION}=${attackerToken}`) && a.cookie.includes(`${SESSION}=${token}`),
      );
      assert.ok(withBoth.length > 0, `the browser sent both cookies: ${JSON.stringify(apiAnswers)}`);
      assert.ok(
        withBoth.every((a) => a.status === 401),
        `every call with both cookies got 401: ${JSON.stringify(apiAnswers)}`,
      );
      assert.deepEqual(await sessionCookies(context), [], 'the 401 cleared both cookies');
      const now = await sessionThroughPage(page);
      assert.equal(now.status, 401);

      // Signing in again gives one cookie, the person's workspace.
      await page.getByLabel('API key').fill(h.apiKey);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Sandboxes', exact: true }).waitFor();
      assert.equal((await sessionCookies(context)).length, 1);
      const again = await sessionThroughPage(page);
      assert.equal(again.status, 200);
      assert.equal(again.body.workspaceId, personWorkspace);
      await context.close();
    });
  });
}
