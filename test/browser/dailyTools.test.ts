// Daily use in Chromium: sandbox cards count mail and requests live, a captured request replays to a URL (or
// shows the target rule that refused it), Notify and Auto-open react to arrivals, a key revoked mid-session
// lands on the sign-in page saying so, and the sandboxes search lives in the URL.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axe, eventually, newContext, screenshot, signedIn, signIn, useDashboard } from './helpers.ts';
import type { Harness, Sandbox } from './helpers.ts';

type Options = Parameters<Browser['newContext']>[0];

/** An element's visible text with its whitespace (flex items break lines) made single spaces. */
const text = async (locator: { innerText(): Promise<string> }) =>
  (await locator.innerText()).replace(/\s+/g, ' ');

/** Polls until the assertions in `check` hold. */
const until = (what: string, check: () => Promise<void>) =>
  eventually(what, async () => {
    await check();
    return true;
  });

const LOOKS: Array<[string, Options]> = [
  ['desktop-light', { viewport: { width: 1440, height: 900 } }],
  ['desktop-dark', { viewport: { width: 1440, height: 900 }, colorScheme: 'dark' }],
  ['phone-light', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }],
  [
    'phone-dark',
    { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, colorScheme: 'dark' },
  ],
];

/** Opens `path` in each look, lets `ready` wait for the content, saves a screenshot and runs axe. */
async function looks(h: Harness, name: string, path: string, ready: (page: Page) => Promise<void>) {
  for (const [look, options] of LOOKS) {
    const { context, page } = await signedIn(h, options);
    await page.goto(h.origin + path);
    await ready(page);
    const overflow = await page.evaluate(() => {
      const d = (globalThis as any).document.documentElement;
      return d.scrollWidth - d.clientWidth;
    });
    assert.ok(overflow <= 1, `${name} (${look}) scrolls sideways by ${overflow} px`);
    await screenshot(page, `daily-${name}-${look}`);
    await axe(page, `${name} (${look})`);
    await context.close();
  }
}

function card(page: Page, name: string) {
  return page
    .getByRole('list', { name: 'Sandboxes' })
    .getByRole('listitem')
    .filter({
      has: page.getByRole('link', { name, exact: true }),
    });
}

/** Records every `new Notification` the page makes, passing it on to the browser's own. */
const NOTIFICATION_SPY = () => {
  const g = globalThis as any;
  const Real = g.Notification;
  g.__notes = [];
  function Spy(title: string, options?: { body?: string }) {
    g.__notes.push({ title, body: options?.body ?? '' });
    try {
      return new Real(title, options);
    } catch {
      return { close() {} };
    }
  }
  Object.defineProperty(Spy, 'permission', { get: () => Real.permission });
  (Spy as any).requestPermission = (...args: unknown[]) => Real.requestPermission(...args);
  g.Notification = Spy;
};

describe('dashboard daily tools', () => {
  const h = useDashboard();

  test('cards show counts, unread and last arrival, updated live; tagless and catch-all cards line up', async () => {
    const tagged = await h.createSandbox('cards tagged', { tags: { env: 'staging', team: 'web' } });
    await h.createSandbox('cards plain');
    const { context, page } = await signedIn(h, { viewport: { width: 1440, height: 900 } });
    const activity = card(page, 'cards tagged').locator('.card-activity');
    await until('empty counts', async () =>
      assert.match(await text(activity), /^0 messages 0 requests nothing caught yet$/),
    );
    assert.match(await text(activity), /nothing caught yet/);

    await page.evaluate(() => ((globalThis as any).__sameDocument = true));
    await h.sendMail(tagged, { subject: 'Counted', text: 'one' });
    await until('the message counted', async () =>
      assert.match(await text(activity), /^1 message 1 unread 0 requests last arrival/),
    );
    const res = await h.capture(tagged, '/hook', { method: 'POST', body: 'x' });
    assert.ok(res.status < 500);
    await until('the request counted', async () =>
      assert.match(await text(activity), /^1 message 1 unread 1 request 1 unread last arrival/),
    );
    assert.match(await text(activity), /last arrival/);
    assert.equal(await page.evaluate(() => (globalThis as any).__sameDocument), true, 'no reload');

    // Reading the message takes it off the unread count, live.
    const [message] = (await h.json('GET', `/sandboxes/${tagged.id}/messages`)).items;
    await h.json('PATCH', `/sandboxes/${tagged.id}/messages/${message.id}`, { isRead: true });
    await until('the read message uncounted', async () =>
      assert.match(await text(activity), /^1 message 1 request 1 unread last arrival/),
    );

    // Side by side, the activity lines sit at the same height whether or not the card has tags, and on the
    // catch-all card (the server makes one on loopback) whose badge once pushed its line down.
    const plain = card(page, 'cards plain');
    const catchAll = page
      .getByRole('list', { name: 'Sandboxes' })
      .getByRole('listitem')
      .filter({ hasText: 'catch-all: any address, no login' });
    const others = [card(page, 'cards tagged')];
    if ((await catchAll.count()) === 1) others.push(catchAll);
    const plainBox = await plain.boundingBox();
    const plainLine = await plain.locator('.card-activity').boundingBox();
    assert.ok(plainBox && plainLine);
    let compared = 0;
    for (const other of others) {
      const [box, line] = [await other.boundingBox(), await other.locator('.card-activity').boundingBox()];
      assert.ok(box && line);
      if (Math.abs(box.y - plainBox.y) >= 1) continue; // not on the same row
      assert.ok(Math.abs(line.y - plainLine.y) < 1, `activity line at ${line.y} vs ${plainLine.y}`);
      compared++;
    }
    assert.ok(compared > 0, 'at 1440 px the cards share a row');
    assert.equal(await page.getByRole('status').filter({ hasText: 'Live updates on' }).count(), 1);
    await context.close();

    await looks(h, 'cards', '/', async (p) => {
      await card(p, 'cards tagged').locator('.card-activity strong').first().waitFor();
    });
  });

  describe('replay', () => {
    let target: http.Server;
    let targetUrl: string;
    const seen: Array<{ method: string; url: string; body: string }> = [];
    let sandbox: Sandbox;
    let requestId: string;

    before(async () => {
      target = http.createServer((req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        req.on('end', () => {
          seen.push({ method: req.method ?? '', url: req.url ?? '', body });
          res.writeHead(201, { 'content-type': 'application/json', 'x-target': 'yes' });
          res.end('{"replayed":true}');
        });
      });
      await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
      targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
      sandbox = await h.createSandbox('replay');
      await h.capture(sandbox, '/orders?x=1', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: '{"order":42}',
      });
      requestId = (await h.json('GET', `/sandboxes/${sandbox.id}/requests`)).items[0].id;
    });
    after(() => new Promise<void>((resolve) => target.close(() => resolve())));

    test('sends to a local server and shows its answer; a refused target names the rule', async () => {
      const { context, page } = await signedIn(h);
      await page.goto(`${h.origin}/s/${sandbox.id}/requests/${requestId}`);
      const input = page.getByLabel('Send this request again to');
      await input.fill(`${targetUrl}/local/orders`);
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      const answer = page.locator('.replay-answer');
      await answer.getByText('201', { exact: true }).waitFor();
      await answer.getByText(/"replayed": ?true/).waitFor();
      assert.deepEqual(seen.at(-1), { method: 'PUT', url: '/local/orders', body: '{"order":42}' });
      const headers = await answer.locator('table').innerText();
      assert.match(headers, /x-target\s+yes/i);
      await axe(page, 'replay answer');
      await screenshot(page, 'daily-replay-answer');

      const count = seen.length;
      await input.fill('http://10.1.2.3/hook');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      const refused = page.getByRole('alert').filter({ hasText: 'Not sent' });
      await refused.waitFor();
      assert.match(await refused.innerText(), /10\.1\.2\.3 is refused: .*private/);
      assert.equal(await answer.count(), 0, 'the earlier answer is gone');
      assert.equal(seen.length, count, 'nothing was sent');
      await axe(page, 'replay refused');
      await context.close();

      await looks(h, 'replay', `/s/${sandbox.id}/requests/${requestId}`, async (p) => {
        await p.getByLabel('Send this request again to').fill('http://10.1.2.3/hook');
        await p.getByRole('button', { name: 'Send', exact: true }).click();
        await p.getByRole('alert').filter({ hasText: 'Not sent' }).waitFor();
      });
    });
  });

  test('Notify asks for permission and notifies only while the person looks elsewhere', async () => {
    const sandbox = await h.createSandbox('notify me');
    const { context, page } = await newContext(h);
    await context.grantPermissions(['notifications'], { origin: h.origin });
    await context.addInitScript(NOTIFICATION_SPY);
    await signIn(page, h);
    await page.goto(`${h.origin}/s/${sandbox.id}`);
    const toggle = page.getByRole('button', { name: 'Notify' });
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
    await toggle.click();
    await until('Notify on', async () => assert.equal(await toggle.getAttribute('aria-pressed'), 'true'));
    assert.equal(
      await page.evaluate(
        (id) => (globalThis as any).localStorage.getItem(`sandtrap.notify.${id}`),
        sandbox.id,
      ),
      'notify me',
    );
    await screenshot(page, 'daily-toggles');
    await axe(page, 'sandbox header toggles');

    // Looking at the sandbox: the list shows the arrival, no notification.
    await h.sendMail(sandbox, { subject: 'Seen in the list', text: 'a' });
    await page
      .getByRole('link', { name: /Seen in the list/ })
      .first()
      .waitFor();
    // On another page: notified. The workspace stream is in commit order, so once the second mail's
    // notification is there the first mail's event has been handled too.
    await page.getByRole('link', { name: 'Sandboxes', exact: true }).click();
    await page.getByRole('heading', { name: 'Sandboxes', exact: true }).waitFor();
    await h.sendMail(sandbox, { subject: 'Away from it', text: 'b' });
    await until('one notification', async () =>
      assert.deepEqual(await page.evaluate(() => (globalThis as any).__notes), [
        { title: 'New mail in notify me', body: 'Away from it — from app@example.com' },
      ]),
    );

    // Turned off, it stays off after a reload.
    await page.goto(`${h.origin}/s/${sandbox.id}`);
    await page.getByRole('button', { name: 'Notify' }).click();
    await page.reload();
    assert.equal(await page.getByRole('button', { name: 'Notify' }).getAttribute('aria-pressed'), 'false');
    await context.close();
  });

  test('Auto-open opens a new message as it arrives', async () => {
    const sandbox = await h.createSandbox('auto open');
    const { context, page } = await signedIn(h);
    await page.goto(`${h.origin}/s/${sandbox.id}`);
    await page.getByRole('button', { name: 'Auto-open' }).click();
    assert.equal(await page.getByRole('button', { name: 'Auto-open' }).getAttribute('aria-pressed'), 'true');
    await h.sendMail(sandbox, { subject: 'Open me at once', text: 'hello' });
    await until('the message opened', async () =>
      assert.match(new URL(page.url()).pathname, /\/messages\/[0-9a-f-]{36}$/),
    );
    const [message] = (await h.json('GET', `/sandboxes/${sandbox.id}/messages`)).items;
    assert.equal(new URL(page.url()).pathname, `/s/${sandbox.id}/messages/${message.id}`);
    await page.getByRole('heading', { name: 'Open me at once' }).waitFor();
    await context.close();
  });

  test('Auto-open on the Requests tab opens a new request as it arrives; mail leaves it there', async () => {
    const sandbox = await h.createSandbox('auto open requests');
    const { context, page } = await signedIn(h);
    await page.goto(`${h.origin}/s/${sandbox.id}/requests`);
    await page.getByRole('button', { name: 'Auto-open' }).click();
    assert.equal(await page.getByRole('button', { name: 'Auto-open' }).getAttribute('aria-pressed'), 'true');
    // Auto-open follows the tab in view: mail first, which must not pull the page to the Mail tab (the request
    // after it would then not open either), then the request.
    await h.sendMail(sandbox, { subject: 'Not on this tab', text: 'x' });
    const res = await h.capture(sandbox, '/hooks/auto', { method: 'POST', body: '{"n":1}' });
    assert.ok(res.status < 500);
    await res.arrayBuffer();
    await until('the request opened', async () =>
      assert.match(new URL(page.url()).pathname, /\/requests\/[0-9a-f-]{36}$/),
    );
    const [request] = (await h.json('GET', `/sandboxes/${sandbox.id}/requests`)).items;
    assert.equal(new URL(page.url()).pathname, `/s/${sandbox.id}/requests/${request.id}`);
    await page.getByRole('heading', { name: 'POST /hooks/auto' }).waitFor();
    assert.equal(await page.getByRole('tab', { name: 'Requests' }).getAttribute('aria-selected'), 'true');
    await context.close();
  });

  test('a key revoked mid-session lands on sign-in saying so; Sign out does not', async () => {
    const created = await h.json<{ id: string; key: string }>('POST', '/keys', { label: 'revoked soon' });
    const { context, page } = await newContext(h);
    await signIn(page, h, created.key);
    await page.getByRole('link', { name: 'Webhooks', exact: false }).first().waitFor();
    await h.json('DELETE', `/keys/${created.id}`);
    // The next call the page makes answers 401. The page may notice first on its own (the revoked key
    // ends its event stream), in which case the link is already gone: the click is only a nudge.
    await page
      .getByRole('link', { name: 'Webhooks' })
      .click({ timeout: 3000 })
      .catch(() => undefined);
    await page.getByRole('heading', { name: 'Sign in to sandtrap' }).waitFor();
    await page.getByText('This key was revoked or has expired; paste another.').waitFor();
    await screenshot(page, 'daily-revoked');
    await axe(page, 'sign-in after revocation');
    // Signing in again with a good key clears it.
    await page.getByLabel('API key').fill(h.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // A reload ends whatever the revoked session still had in flight, whose late 401 could sign this one out
    // again with the notice (CI saw it once).
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.reload();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to sandtrap' }).waitFor();
    assert.equal(await page.getByText('This key was revoked').count(), 0, 'a chosen sign-out says nothing');
    await context.close();

    // The same page in each look, each with a key of its own revoked under it.
    for (const [look, options] of LOOKS) {
      const key = await h.json<{ id: string; key: string }>('POST', '/keys', { label: `revoked ${look}` });
      const session = await newContext(h, options);
      await signIn(session.page, h, key.key);
      await h.json('DELETE', `/keys/${key.id}`);
      await session.page
        .getByRole('link', { name: 'Webhooks' })
        .click({ timeout: 3000 })
        .catch(() => undefined);
      await session.page.getByText('This key was revoked or has expired; paste another.').waitFor();
      await screenshot(session.page, `daily-revoked-${look}`);
      await axe(session.page, `sign-in after revocation (${look})`);
      await session.context.close();
    }
  });

  test('an unknown path is a page saying so with a way back, after sign-in too', async () => {
    const { context, page } = await newContext(h, { viewport: { width: 1440, height: 900 } });
    const answer = await page.goto(`${h.origin}/no/such/page?x=1`);
    assert.equal(answer?.status(), 404);
    // Signed out, the sign-in page comes first and the address stays, so the page after it is the same one.
    await page.getByLabel('API key').fill(h.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    assert.match(await page.locator('main').innerText(), /Nothing lives at \/no\/such\/page/);
    await page.getByRole('button', { name: 'Go to the sandboxes' }).click();
    await page.getByRole('heading', { name: 'Sandboxes', exact: true }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/');
    // A path under a sandbox that names no view is the same page, not an empty sandbox.
    const sandbox = await h.createSandbox('not found');
    await page.goto(`${h.origin}/s/${sandbox.id}/messages/a/b`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await context.close();

    await looks(h, 'not-found', '/no/such/page', async (p) => {
      await p.getByRole('heading', { name: 'Page not found' }).waitFor();
    });
  });

  test('the sandboxes search lives in the URL', async () => {
    await h.createSandbox('findable-xyz');
    const { context, page } = await signedIn(h);
    await page.getByLabel('Search sandboxes').fill('findable');
    await until('search in the URL', async () =>
      assert.equal(new URL(page.url()).searchParams.get('search'), 'findable'),
    );
    await page.reload();
    assert.equal(await page.getByLabel('Search sandboxes').inputValue(), 'findable');
    await card(page, 'findable-xyz').waitFor();
    await context.close();
  });
});
