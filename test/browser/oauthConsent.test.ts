// The OAuth consent page in Chromium: a client registered and sent the browser to /oauth/consent/{id}; the page
// asks for sign-in first, then names the client, its redirect host, the workspace, the key and what it may do;
// Approve (by keyboard) sends code and state to the client's redirect_uri, Deny sends access_denied; a decided,
// unknown or malformed request says so and links to the dashboard. axe-core on each state, screenshots saved.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { axe, newContext, screenshot, signedIn, useDashboard } from './helpers.ts';
import {
  exchangeCode,
  registerClient,
  startAuthorization,
  startRedirectTarget,
  type RedirectTarget,
} from './oauthFlow.ts';

const CAPABILITY = 'create and delete sandboxes, read captured mail and requests';

describe('OAuth consent page', () => {
  const h = useDashboard();
  let target: RedirectTarget;
  let whoami: { workspaceName: string; label: string };

  before(async () => {
    target = await startRedirectTarget();
    whoami = await h.json('GET', '/whoami');
  });
  after(async () => {
    await target?.close();
  });

  test('signed out: sign-in comes first, then the card; Approve by keyboard sends code and state to the redirect_uri, and the code buys tokens', async () => {
    const clientId = await registerClient(h.origin, 'Acme Assistant', target.url);
    const pending = await startAuthorization(h.origin, clientId, target.url);
    const { context, page } = await newContext(h);

    const served = await page.goto(pending.consentUrl);
    assert.equal(served?.status(), 200);
    assert.match(served?.headers()['content-security-policy'] ?? '', /script-src 'self'/);
    await page.getByRole('heading', { name: 'Sign in to sandtrap' }).waitFor();
    assert.match(await page.locator('main').innerText(), /An app is asking to connect to this sandtrap/);
    await axe(page, 'consent sign-in');
    await screenshot(page, 'oauth-consent-sign-in');

    await page.getByLabel('API key').fill(h.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const heading = page.getByRole('heading', { name: 'Allow Acme Assistant to use sandtrap?' });
    await heading.waitFor();
    assert.equal(new URL(page.url()).pathname, `/oauth/consent/${pending.requestId}`, 'the URL is kept');

    const card = await page.locator('.consent').innerText();
    for (const expected of [
      'self-registered',
      target.host,
      target.url,
      whoami.workspaceName,
      whoami.label,
      `Use the MCP tools of workspace ${whoami.workspaceName}: ${CAPABILITY}.`,
      'Scope: mcp',
    ]) {
      assert.ok(card.includes(expected), `the card shows ${JSON.stringify(expected)}:\n${card}`);
    }
    const minutes = /This request expires in (\d+):(\d\d)\./.exec(card);
    assert.ok(minutes, `a countdown:\n${card}`);
    const seconds = Number(minutes[1]) * 60 + Number(minutes[2]);
    assert.ok(seconds > 500 && seconds <= 600, `${seconds} s left of the 10 minutes`);
    assert.equal(
      await page.locator('.redirect-host').innerText(),
      target.host,
      'the redirect host stands out',
    );
    assert.match(await page.title(), /^Connect Acme Assistant/);

    // The question has the focus (a stray Enter decides nothing), and Esc does not leave the page.
    assert.equal(await page.evaluate(() => (globalThis as any).document.activeElement.id), 'consent-title');
    await page.keyboard.press('Escape');
    assert.equal(new URL(page.url()).pathname, `/oauth/consent/${pending.requestId}`);
    await axe(page, 'consent card');
    await screenshot(page, 'oauth-consent');

    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => (globalThis as any).document.activeElement.textContent), 'Deny');
    await page.keyboard.press('Tab');
    assert.equal(
      await page.evaluate(() => (globalThis as any).document.activeElement.textContent),
      'Approve',
    );
    await page.keyboard.press('Enter');

    const answer = await target.next();
    assert.equal(answer.get('state'), pending.state);
    assert.equal(answer.get('error'), null);
    const code = answer.get('code');
    assert.match(code ?? '', /^stc_/);
    await page.waitForURL((url) => url.host === target.host);
    assert.equal(
      new URL(page.url()).searchParams.get('code'),
      code,
      'the browser landed on the redirect_uri',
    );

    const tokens = await exchangeCode(h.origin, pending, code!);
    assert.match(tokens.access_token, /^sta_/);
    const grants = await h.json('GET', '/oauth/grants');
    assert.ok(
      grants.items.some((g: any) => g.client.clientId === clientId && g.keyLabel === whoami.label),
      JSON.stringify(grants),
    );

    // Decided: the same page now says the request is closed, and leads back to the dashboard.
    await page.goto(pending.consentUrl);
    await page.getByRole('heading', { name: 'This authorization request is closed' }).waitFor();
    await axe(page, 'closed consent request');
    await screenshot(page, 'oauth-consent-closed');
    await page.getByRole('link', { name: 'Go to the dashboard' }).click();
    await page.getByRole('heading', { name: 'Sandboxes', exact: true }).waitFor();
    await context.close();
  });

  test('signed in, following the authorize URL itself: Deny sends access_denied with the state and no code', async () => {
    const clientId = await registerClient(h.origin, 'Denied Client', target.url);
    // Its authorize URL (the fetch's own request is left pending), opened the way a client opens it.
    const { authorizeUrl, state } = await startAuthorization(h.origin, clientId, target.url);
    const { context, page } = await signedIn(h);
    await page.goto(authorizeUrl);
    await page.getByRole('heading', { name: 'Allow Denied Client to use sandtrap?' }).waitFor();
    const requestId = /^\/oauth\/consent\/([^/]+)$/.exec(new URL(page.url()).pathname)?.[1];
    assert.ok(requestId, page.url());

    await page.getByRole('button', { name: 'Deny' }).click();
    const answer = await target.next();
    assert.equal(answer.get('error'), 'access_denied');
    assert.equal(answer.get('state'), state);
    assert.equal(answer.get('code'), null);
    await page.waitForURL((url) => url.host === target.host);

    const grants = await h.json('GET', '/oauth/grants');
    assert.ok(!grants.items.some((g: any) => g.client.clientId === clientId), 'no grant for a denial');
    const again = await h.api(`/oauth/authorizations/${requestId}`);
    assert.equal(again.status, 404, 'a denied request is closed');
    await context.close();
  });

  test('an unknown or malformed request id shows the closed message with a link to the dashboard', async () => {
    const { context, page } = await signedIn(h);
    for (const id of [randomUUID(), 'not-a-request']) {
      const res = await page.goto(`${h.origin}/oauth/consent/${id}`);
      assert.equal(res?.status(), 200, 'the page itself is served');
      await page.getByRole('heading', { name: 'This authorization request is closed' }).waitFor();
      assert.match(await page.locator('main').innerText(), /Start the connection again from the app/);
      await page.getByRole('link', { name: 'Go to the dashboard' }).waitFor();
    }
    await context.close();
  });
});
