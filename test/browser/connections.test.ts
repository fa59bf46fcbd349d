// Connected apps in Chromium: the empty state pointing to how hosted MCP clients connect, the list of grants
// (client, kind, redirect host, key, connected, last used or never) reached from the header, and Disconnect with
// its confirm step, after which the list updates and the grant's refresh token is refused. axe-core and
// screenshots (also on a 375 px phone in dark mode, with no sideways scroll).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { axe, screenshot, signedIn, useDashboard, type Harness } from './helpers.ts';
import {
  exchangeCode,
  registerClient,
  startAuthorization,
  startRedirectTarget,
  type RedirectTarget,
} from './oauthFlow.ts';

/** A client registered and approved with the harness's key (over the consent API); tokens only if `use`. */
async function connect(h: Harness, target: RedirectTarget, name: string, use: boolean) {
  const clientId = await registerClient(h.origin, name, target.url);
  const pending = await startAuthorization(h.origin, clientId, target.url);
  const { redirectTo } = await h.json('POST', `/oauth/authorizations/${pending.requestId}`, {
    decision: 'approve',
  });
  const code = new URL(redirectTo).searchParams.get('code');
  assert.ok(code, redirectTo);
  return { clientId, tokens: use ? await exchangeCode(h.origin, pending, code) : undefined };
}

async function noSidewaysScroll(page: Page, view: string): Promise<void> {
  const { scroll, client } = await page.evaluate(() => {
    const root = (globalThis as any).document.documentElement;
    return { scroll: root.scrollWidth as number, client: root.clientWidth as number };
  });
  assert.ok(scroll <= client, `${view} scrolls sideways at 375 px: ${scroll} > ${client}`);
}

describe('Connected apps', () => {
  const h = useDashboard();
  let target: RedirectTarget;
  let keyLabel: string;

  before(async () => {
    target = await startRedirectTarget();
    keyLabel = (await h.json('GET', '/whoami')).label;
  });
  after(async () => {
    await target?.close();
  });

  test('with none: the empty state says how an MCP client connects', async () => {
    const { context, page } = await signedIn(h);
    await page.getByRole('link', { name: 'Connected apps' }).click();
    await page.getByRole('heading', { name: 'Connected apps', exact: true }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/connections');
    const empty = await page.locator('.empty').innerText();
    assert.match(empty, /No connected apps yet\./);
    assert.ok(empty.includes(`${h.origin}/mcp`), empty);
    assert.match(empty, /Connecting hosted MCP clients \(OAuth\)/);
    await axe(page, 'connected apps, empty');
    await screenshot(page, 'connections-empty');
    await context.close();
  });

  test('lists each grant with kind, redirect host, key and last use; Disconnect asks first, then removes it and its tokens stop working', async () => {
    const used = await connect(h, target, 'Grant Viewer', true);
    await connect(h, target, 'Never Used Client', false);

    const { context, page } = await signedIn(h);
    // A deep link is served as the dashboard too.
    const served = await page.goto(`${h.origin}/connections`);
    assert.equal(served?.status(), 200);
    const list = page.getByRole('list', { name: 'Connected apps' });
    await list.waitFor();
    assert.equal(
      await page.getByRole('link', { name: 'Connected apps' }).getAttribute('aria-current'),
      'page',
    );
    const card = (name: string) => list.getByRole('listitem').filter({ hasText: name });
    const viewer = await card('Grant Viewer').innerText();
    for (const expected of ['self-registered', target.host, keyLabel, 'Connected', 'just now']) {
      assert.ok(viewer.includes(expected), `Grant Viewer's card shows ${expected}:\n${viewer}`);
    }
    assert.match(viewer, /Last used\s+just now/, 'its token was issued a moment ago');
    assert.match(await card('Never Used Client').innerText(), /Last used\s+never/);
    await axe(page, 'connected apps');
    await screenshot(page, 'connections');

    await page.getByRole('button', { name: 'Disconnect Grant Viewer' }).click();
    const dialog = page.getByRole('dialog', { name: 'Disconnect Grant Viewer?' });
    await dialog.waitFor();
    await axe(page, 'disconnect dialog');
    await screenshot(page, 'connections-disconnect-dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await card('Grant Viewer').count(), 1, 'Cancel keeps it');

    await page.getByRole('button', { name: 'Disconnect Grant Viewer' }).click();
    await dialog.getByRole('button', { name: 'Disconnect', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Grant Viewer is disconnected.' }).waitFor();
    await card('Grant Viewer').waitFor({ state: 'detached' });
    assert.equal(await card('Never Used Client').count(), 1, 'the other one stays');
    assert.equal(
      await page.evaluate(() => (globalThis as any).document.activeElement.textContent),
      'Connected apps',
      'focus goes back to the heading',
    );

    const grants = await h.json('GET', '/oauth/grants');
    assert.ok(!grants.items.some((g: any) => g.client.clientId === used.clientId), JSON.stringify(grants));
    const refresh = await fetch(`${h.origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: used.tokens!.refresh_token,
        client_id: used.clientId,
      }),
    });
    assert.equal(refresh.status, 400);
    assert.equal(((await refresh.json()) as { error: string }).error, 'invalid_grant');
    await context.close();
  });

  test('on a phone in dark mode the header, the list and the consent card fit without sideways scroll and pass axe-core', async () => {
    await connect(h, target, 'A client with a rather long name that has to wrap somewhere', false);
    const { context, page } = await signedIn(h, {
      viewport: { width: 375, height: 740 },
      isMobile: true,
      hasTouch: true,
      colorScheme: 'dark',
    });
    await page.goto(`${h.origin}/connections`);
    await page.getByRole('list', { name: 'Connected apps' }).waitFor();
    const nav = page.getByRole('link', { name: 'Connected apps' });
    assert.ok(await nav.locator('.nav-short').isVisible(), 'the phone header shows Apps');
    const full = await nav.locator('.nav-full').boundingBox();
    assert.ok(full && full.width <= 1, 'the full name is out of sight but is the link name');
    const header = await page.locator('header.top').boundingBox();
    assert.ok(header && header.height < 60, `the header stays one line: ${header?.height} px`);
    await noSidewaysScroll(page, 'connected apps');
    await axe(page, 'connected apps (phone, dark)');
    await screenshot(page, 'connections-phone-dark');

    const clientId = await registerClient(h.origin, 'Narrow Screen Client', target.url);
    const pending = await startAuthorization(h.origin, clientId, target.url);
    await page.goto(pending.consentUrl);
    await page.getByRole('heading', { name: 'Allow Narrow Screen Client to use sandtrap?' }).waitFor();
    await noSidewaysScroll(page, 'consent card');
    await axe(page, 'consent card (phone, dark)');
    await screenshot(page, 'oauth-consent-phone-dark');
    await context.close();
  });
});
