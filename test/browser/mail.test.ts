// The Mail tab in Chromium: live arrival over SMTP without a reload, unread count in title and favicon, the
// message view's tabs, the extracted code, keyboard use, deep links after a reload, and hostile HTML that
// must run no script and make no request from its sandboxed iframe.
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { before, describe, test } from 'node:test';
import { axe, eventually, screenshot, signedIn, useDashboard } from './helpers.ts';
import type { Harness, Sandbox } from './helpers.ts';

// A 1x1 PNG, so the Attachments tab has an image to show as a thumbnail.
const PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

async function messageIds(h: Harness, sandbox: Sandbox): Promise<{ id: string; subject: string }[]> {
  return (await h.json('GET', `/sandboxes/${sandbox.id}/messages`)).items;
}

/** A signed-in page on the sandbox's mail list, once a message whose name matches `shown` is listed. */
async function openMailList(h: Harness, sandbox: Sandbox, shown: RegExp) {
  const session = await signedIn(h);
  await session.page.goto(`${h.origin}/s/${sandbox.id}`);
  const list = session.page.getByRole('list', { name: 'Messages' });
  await list.getByRole('link', { name: shown }).waitFor();
  return { ...session, list };
}

/** A signed-in page on one message's view (its deep link), once `heading` shows. */
async function openMessage(h: Harness, sandbox: Sandbox, messageId: string, heading: string) {
  const session = await signedIn(h);
  await session.page.goto(`${h.origin}/s/${sandbox.id}/messages/${messageId}`);
  await session.page.getByRole('heading', { name: heading }).waitFor();
  return session;
}

async function favicon(page: Page): Promise<string> {
  return page.evaluate(
    () => (globalThis as any).document.querySelector('link[rel~="icon"]')?.getAttribute('href') ?? '',
  );
}

describe('dashboard mail', () => {
  const h = useDashboard();

  test('a mail sent by SMTP while the page is open appears without a reload, marked unread, with the count in title and favicon', async () => {
    const sandbox = await h.createSandbox('live mail');
    const { context, page } = await signedIn(h);
    await page.getByRole('link', { name: 'live mail', exact: true }).click();
    await page.getByRole('heading', { name: 'live mail', exact: true }).waitFor();
    const mailTab = page.getByRole('tab', { name: 'Mail', exact: true });
    assert.equal(await mailTab.getAttribute('aria-selected'), 'true', 'Mail is the first tab');
    // An empty sandbox shows how to point an app at it.
    await page.getByText('nodemailer', { exact: false }).first().waitFor();
    await screenshot(page, 'mail-empty');
    await axe(page, 'empty Mail tab');
    assert.equal(await page.title(), 'sandtrap');
    const iconBefore = await favicon(page);

    await page.evaluate(() => ((globalThis as any).__sameDocument = true));
    await h.sendMail(sandbox, { subject: 'Welcome aboard', text: 'Hello there.' });
    const list = page.getByRole('list', { name: 'Messages' });
    const first = list.getByRole('link', { name: /Welcome aboard/ });
    await first.waitFor({ timeout: 10_000 });
    assert.equal(
      await page.evaluate(() => (globalThis as any).__sameDocument),
      true,
      'the mail arrived without a reload',
    );
    assert.equal(
      await list.getByRole('link', { name: /^Unread: .*Welcome aboard/ }).count(),
      1,
      'the link\'s accessible name starts with "Unread: "',
    );
    assert.ok(
      await first.evaluate((el) => el.closest('.unread') !== null),
      'the item carries class "unread"',
    );
    await eventually('title "(1) sandtrap"', async () => (await page.title()) === '(1) sandtrap');
    const iconOne = await favicon(page);
    assert.match(iconOne, /^(data|blob):/, 'the favicon is drawn');
    assert.notEqual(iconOne, iconBefore, 'the favicon shows the count');

    await h.sendMail(sandbox, { subject: 'Second arrival', text: 'Again.' });
    await eventually('title "(2) sandtrap"', async () => (await page.title()) === '(2) sandtrap');
    const names = await list.getByRole('link').allInnerTexts();
    assert.ok(names[0]?.includes('Second arrival'), `newest first: ${JSON.stringify(names)}`);
    await screenshot(page, 'mail-list');
    await axe(page, 'Mail list');

    // Opening a message marks it read: the count drops.
    await list.getByRole('link', { name: /Welcome aboard/ }).click();
    await page.getByRole('heading', { name: 'Welcome aboard' }).waitFor();
    await eventually('title "(1) sandtrap"', async () => (await page.title()) === '(1) sandtrap');
    await context.close();
  });

  describe('the message view', () => {
    let sandbox: Sandbox;
    let message: { id: string; subject: string };

    before(async () => {
      sandbox = await h.createSandbox('message view');
      await h.sendMail(sandbox, {
        subject: 'Your sign-in code',
        text: 'Your verification code is 482913. Open https://example.com/verify?c=482913 to finish.',
        html: '<p>Your verification code is <b>482913</b>.</p><p><a href="https://example.com/verify?c=482913">Verify</a></p>',
        headers: { 'X-Trace-Id': 'trace-77' },
        attachments: [{ filename: 'pixel.png', content: PIXEL_PNG, contentType: 'image/png' }],
      });
      [message] = (await messageIds(h, sandbox)) as [{ id: string; subject: string }];
      assert.ok(message);
    });

    test('keyboard: / focuses search, j moves into the list, Enter opens, Esc goes back', async () => {
      const { context, page, list } = await openMailList(h, sandbox, /Your sign-in code/);
      await page.keyboard.press('/');
      assert.equal(
        await page.evaluate(
          () => (globalThis as any).document.activeElement?.getAttribute('aria-label') ?? '',
        ),
        'Search mail',
      );
      await page.getByLabel('Search mail').blur();
      await page.keyboard.press('j');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Your sign-in code' }).waitFor();
      assert.equal(new URL(page.url()).pathname, `/s/${sandbox.id}/messages/${message.id}`);
      await page.keyboard.press('Escape');
      await list.waitFor();
      assert.equal(new URL(page.url()).pathname, `/s/${sandbox.id}`);
      await context.close();
    });

    test('the extracted code is shown under the label "Code" with a copy button', async () => {
      const { context, page } = await openMessage(h, sandbox, message.id, 'Your sign-in code');
      const code = page.getByLabel('Code', { exact: true });
      await code.waitFor();
      assert.match(await code.innerText(), /482913/);
      await page.getByRole('button', { name: 'Copy code' }).click();
      assert.equal(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText()), '482913');
      await screenshot(page, 'message-code');
      await context.close();
    });

    test('every tab: HTML with widths, Text, HTML source, Headers with a filter, Raw, Links, Attachments', async () => {
      const { context, page } = await openMessage(h, sandbox, message.id, 'Your sign-in code');
      const panel = (name: string) => page.getByRole('tabpanel', { name, exact: true });
      /** Opens tab `name`, waits for what `shows` looks for, then saves a screenshot and runs axe-core. */
      const visit = async (name: string, shot: string, shows: (panel: Locator) => Promise<unknown>) => {
        await page.getByRole('tab', { name, exact: true }).click();
        await shows(panel(name));
        await screenshot(page, shot);
        await axe(page, `message ${name} tab`);
      };
      const frame = page.frameLocator('iframe[title="Message HTML"]');
      await visit('HTML', 'message-html', () => frame.getByText('482913').first().waitFor());
      for (const [width, max] of [
        ['Phone', 500],
        ['Tablet', 900],
      ] as const) {
        await page.getByRole('button', { name: width, exact: true }).click();
        await eventually(`the ${width} width`, async () => {
          const w = await page.locator('iframe[title="Message HTML"]').evaluate((el) => el.clientWidth);
          return w > 0 && w <= max;
        });
      }
      await screenshot(page, 'message-html-tablet');
      await page.getByRole('button', { name: 'Full', exact: true }).click();

      await visit('Text', 'message-text', (p) =>
        p.getByText('Open https://example.com/verify?c=482913 to finish.', { exact: false }).waitFor(),
      );
      await visit('HTML source', 'message-html-source', (p) =>
        p.getByText('<b>482913</b>', { exact: false }).first().waitFor(),
      );
      await visit('Headers', 'message-headers', async (p) => {
        await p.getByText('trace-77').first().waitFor();
        await page.getByLabel('Filter headers').fill('x-trace');
        await eventually('only the X-Trace-Id header left', async () => {
          const visible = await p.getByRole('row').allInnerTexts();
          return visible.some((r) => r.includes('trace-77')) && !visible.some((r) => /Subject/i.test(r));
        });
      });
      await visit('Raw', 'message-raw', (p) =>
        p.getByText('X-Trace-Id: trace-77', { exact: false }).first().waitFor(),
      );
      await visit('Links', 'message-links', (p) =>
        p.getByText('https://example.com/verify?c=482913', { exact: false }).first().waitFor(),
      );
      await visit('Attachments', 'message-attachments', async (p) => {
        const thumb = p.locator('img[src*="/attachments/"]');
        await thumb.first().waitFor();
        await eventually('the thumbnail loads', () =>
          thumb.first().evaluate((img: any) => img.complete && img.naturalWidth === 1),
        );
        await p.getByText('pixel.png').first().waitFor();
      });
      await context.close();
    });

    test('deep link: the message view survives a reload and opens in a fresh tab', async () => {
      const { context, page } = await openMessage(h, sandbox, message.id, 'Your sign-in code');
      await page.reload();
      await page.getByRole('heading', { name: 'Your sign-in code' }).waitFor();
      const fresh = await context.newPage();
      await fresh.goto(`${h.origin}/s/${sandbox.id}/messages/${message.id}`);
      await fresh.getByRole('heading', { name: 'Your sign-in code' }).waitFor();
      await context.close();
    });

    test('Mark unread, Mark read, Delete', async () => {
      const { context, page } = await openMessage(h, sandbox, message.id, 'Your sign-in code');
      await page.getByRole('button', { name: 'Mark unread' }).click();
      await eventually('the message is unread', async () => {
        const m = await h.json('GET', `/sandboxes/${sandbox.id}/messages/${message.id}`);
        return m.isRead === false;
      });
      await page.getByRole('button', { name: 'Mark read' }).click();
      await eventually('the message is read', async () => {
        const m = await h.json('GET', `/sandboxes/${sandbox.id}/messages/${message.id}`);
        return m.isRead === true;
      });
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      const confirm = page.getByRole('dialog');
      if (await confirm.isVisible().catch(() => false)) {
        await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
      }
      await eventually('the message is deleted', async () => {
        const res = await h.api(`/sandboxes/${sandbox.id}/messages/${message.id}`);
        return res.status === 404;
      });
      await context.close();
    });
  });

  test('search and clear the stream', async () => {
    const sandbox = await h.createSandbox('search and clear');
    await h.sendMail(sandbox, { subject: 'Invoice 12', text: 'paid' });
    await h.sendMail(sandbox, { subject: 'Password reset', text: 'reset' });
    const { context, page, list } = await openMailList(h, sandbox, /Invoice 12/);
    await page.getByLabel('Search mail').fill('Password');
    await eventually('only the matching mail listed', async () => {
      const names = await list.getByRole('link').allInnerTexts();
      return names.length === 1 && names[0]?.includes('Password reset');
    });
    await screenshot(page, 'mail-search');
    await page.getByLabel('Search mail').fill('');
    await list.getByRole('link', { name: /Invoice 12/ }).waitFor();
    await page.getByRole('button', { name: 'Clear mail' }).click();
    // Clear asks first (its dialog may render a moment after the click: wait for it, never peek), then sends
    // the delete once the Undo window ends.
    await page
      .getByRole('dialog', { name: 'Delete all 2 messages?' })
      .getByRole('button', { name: 'Delete all' })
      .click();
    await eventually('the stream is empty', async () => (await messageIds(h, sandbox)).length === 0);
    await eventually('the list is empty', async () => (await list.getByRole('link').count()) === 0);
    await context.close();
  });

  test('keyset pages: scrolling to the end loads the older mail', async () => {
    const sandbox = await h.createSandbox('many mails');
    const count = 120;
    await h.sendMail(
      sandbox,
      ...Array.from({ length: count }, (_, i) => ({
        subject: `Bulk ${String(i).padStart(3, '0')}`,
        text: `n ${i}`,
      })),
    );
    const { context, page, list } = await openMailList(h, sandbox, /Bulk 119/);
    const oldest = list.getByRole('link', { name: /Bulk 000/ });
    await eventually(
      'the oldest mail after scrolling',
      async () => {
        if (await oldest.count()) return true;
        await list.getByRole('link').last().scrollIntoViewIfNeeded();
        await page.evaluate(() => {
          const g = globalThis as any;
          g.scrollTo(0, g.document.documentElement.scrollHeight);
        });
        return false;
      },
      20_000,
    );
    assert.equal(await list.getByRole('link').count(), count);
    await context.close();
  });
});

describe('dashboard mail: hostile HTML', () => {
  const h = useDashboard();

  test('renders in an opaque-origin iframe where only the height script runs; <script>, onerror= and javascript: links make no request and open no dialog', async () => {
    const victim = await h.createSandbox('hostile mail');
    const witness = await h.createSandbox('witness');
    const beacon = (tag: string) => `${witness.captureUrl.replace(/\/$/, '')}/${tag}`;
    const call = (tag: string) => `fetch('${beacon(tag)}');alert('${tag}')`;
    const html = `<!doctype html><html><head><script>${call('script')}</script></head>
      <body onload="${call('onload')}">
      <h1>Hostile newsletter</h1><p>Rendered body text</p>
      <img src="cid:missing@nowhere" alt="broken" onerror="${call('onerror')}">
      <svg onload="${call('svg')}"></svg>
      <p><a id="js" href="javascript:${call('javascript')}">Claim your prize</a></p>
      <p><a id="jsblank" target="_blank" href="jav&#x61;script:${call('jsblank')}">Open in a new tab</a></p>
      <meta http-equiv="refresh" content="0; url=${beacon('refresh')}">
      <iframe srcdoc="<script>${call('srcdoc')}</script>"></iframe>
      <form action="${beacon('form')}" method="post"><button id="submit">Send</button></form>
      </body></html>`;
    await h.sendMail(victim, { subject: 'Hostile newsletter', html, text: 'plain part' });
    const [message] = await messageIds(h, victim);
    assert.ok(message);

    const { context, page, requests, dialogs } = await openMessage(
      h,
      victim,
      message.id,
      'Hostile newsletter',
    );
    await page.getByRole('tab', { name: 'HTML', exact: true }).click();
    const iframe = page.locator('iframe[title="Message HTML"]');
    await iframe.waitFor();
    const sandboxAttr = (await iframe.getAttribute('sandbox')) ?? assert.fail('no sandbox attribute');
    const tokens = new Set(sandboxAttr.split(/\s+/).filter(Boolean));
    // Never allow-same-origin: the mail's document is an opaque origin. allow-scripts is there for the height
    // script alone, which the page's CSP allows by its hash; the mail's own scripts below must stay dead.
    assert.deepEqual([...tokens].sort(), ['allow-popups', 'allow-popups-to-escape-sandbox', 'allow-scripts']);
    const src = new URL((await iframe.getAttribute('src')) ?? '', h.origin);
    assert.equal(src.origin, h.origin);
    assert.equal(src.pathname, `/api/v1/sandboxes/${victim.id}/messages/${message.id}/html`);

    const frame = page.frameLocator('iframe[title="Message HTML"]');
    await frame.getByText('Rendered body text').waitFor();
    // The dashboard cannot reach into the frame, nor the frame into the dashboard: two origins.
    assert.equal(await iframe.evaluate((el: any) => el.contentDocument === null), true);
    assert.equal(
      await frame.locator('body').evaluate(() => {
        try {
          return (globalThis as any).parent.document === null ? 'null' : 'reached the dashboard';
        } catch {
          return 'refused';
        }
      }),
      'refused',
    );
    // A person clicking the javascript: link or the form's button must not run or send anything either.
    await frame.locator('#js').click();
    await frame.locator('#jsblank').click();
    await frame.locator('#submit').click();
    await page.waitForTimeout(1_500);
    await screenshot(page, 'message-hostile-html');

    const witnessPort = new URL(witness.captureUrl).port;
    // The dashboard's own API calls (the sandbox list's activity names every sandbox id) are not the mail's.
    const ownCalls = new Set(['fetch', 'xhr', 'eventsource']);
    const leaked = requests
      .filter((r) => !(r.frame() === page.mainFrame() && ownCalls.has(r.resourceType())))
      .map((r) => r.url())
      .filter((u) => u.includes(witness.id) || new URL(u).port === witnessPort);
    assert.deepEqual(leaked, [], 'no request towards the witness sandbox');
    assert.deepEqual(dialogs, [], 'no dialog opened');
    assert.deepEqual(
      (await h.json('GET', `/sandboxes/${witness.id}/requests`)).items,
      [],
      'the witness sandbox captured nothing',
    );
    // The only thing the frame loaded is the message's HTML itself.
    // (cid: and data: URLs never reach the network.)
    const frameRequests = requests
      .filter((r) => r.frame() !== page.mainFrame())
      .map((r) => r.url())
      .filter((u) => /^https?:/.test(u));
    for (const url of frameRequests) {
      assert.ok(url.startsWith(h.origin), `the mail's frame requested ${url}`);
    }
    await context.close();
  });
});
