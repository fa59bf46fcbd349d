// The Checks tab in Chromium: the spam score and HTML compatibility show when the tab opens, the links are
// fetched only when the button is pressed (a local site counts the hits), and each result is shown per link;
// screenshots at desktop and phone widths, light and dark, with axe at 0 serious/critical.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { axe, screenshot, signedIn, useDashboard } from './helpers.ts';

describe('dashboard message checks', () => {
  const h = useDashboard();
  let site: http.Server;
  let siteUrl: string;
  const siteHits: string[] = [];
  before(async () => {
    site = http.createServer((req, res) => {
      siteHits.push(req.url ?? '');
      if (req.url === '/promo') res.writeHead(301, { location: '/shop' }).end();
      else res.writeHead(req.url === '/shop' ? 200 : 404).end();
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => site.close(() => resolve())));

  test('the Checks tab shows the spam score and HTML report, and checks links only on the button', async () => {
    const sandbox = await h.createSandbox('checks');
    await h.sendMail(sandbox, {
      subject: 'SPRING SALE NOW ON!!!',
      text: 'Spring sale. Click here.',
      html: [
        '<html><head><style>.hero { display: flex; border-radius: 8px; }</style></head>',
        '<body><div class="hero">Spring sale: click here</div>',
        `<a href="${siteUrl}/promo">Shop the sale</a>`,
        `<a href="${siteUrl}/old">Last year's offer</a>`,
        '<a href="http://192.168.1.1/">Intranet</a>',
        '<video src="https://example.com/v.mp4"></video></body></html>',
      ].join('\n'),
    });
    const [message] = (await h.json('GET', `/sandboxes/${sandbox.id}/messages`)).items;
    const views = [
      ['desktop', { viewport: { width: 1440, height: 900 } }],
      ['phone', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }],
    ] as const;
    for (const [width, options] of views) {
      for (const scheme of ['light', 'dark'] as const) {
        const hitsBefore = siteHits.length;
        const { context, page } = await signedIn(h, { ...options, colorScheme: scheme });
        await page.goto(`${h.origin}/s/${sandbox.id}/messages/${message.id}`);
        await page.getByRole('tab', { name: 'Checks' }).click();
        await page.getByRole('heading', { name: /Spam score/ }).waitFor();
        await page.getByText('SUBJECT_ALL_CAPS').waitFor();
        await page.getByRole('heading', { name: /HTML compatibility \d/ }).waitFor();
        await page.getByText('<video> element', { exact: true }).waitFor();
        assert.equal(siteHits.length, hitsBefore, 'opening the tab fetched no link');
        await page.getByText('<video> element', { exact: true }).click();
        await page.getByText('Not supported:').first().waitFor();
        // caniemail's notes are Markdown: their code spans show as code, never with the backticks around them.
        const clients = page.locator('.client-list').first();
        assert.doesNotMatch(await clients.innerText(), /`/);
        assert.ok((await clients.locator('code').count()) > 0, 'the notes have code spans');

        // Each rule that fired is a row of its table, whatever the width, with its explanation beside or under
        // its id: on a phone as wide as most of the table, not a column one word wide.
        const spam = page.getByRole('table', { name: 'Spam rules that fired' });
        const caps = spam.getByRole('row').filter({ hasText: 'SUBJECT_ALL_CAPS' });
        await caps.getByRole('cell', { name: /written in capitals/ }).waitFor();
        const [table, why] = await Promise.all([
          spam.boundingBox(),
          caps.getByRole('cell', { name: /written in capitals/ }).boundingBox(),
        ]);
        assert.ok(table && why);
        const share = why.width / table.width;
        assert.ok(width === 'desktop' || share > 0.6, `the explanation is ${Math.round(share * 100)}% wide`);

        if (width === 'desktop' && scheme === 'light') {
          await page.getByRole('button', { name: 'Check links' }).click();
          await page.getByRole('heading', { name: /Link check 2 of 3 with problems/ }).waitFor();
          assert.deepEqual(siteHits.slice(hitsBefore).sort(), ['/old', '/promo', '/shop']);
          const table = page.getByRole('table', { name: 'Link check results' });
          await table.getByText('OK 200', { exact: true }).waitFor();
          await table.getByText('Broken 404', { exact: true }).waitFor();
          await table.getByText('Refused', { exact: true }).waitFor();
          await table.getByText(/192\.168\.1\.1.*private/).waitFor();
          await table.getByText(`301 → ${siteUrl}/shop`).waitFor();
        } else {
          await page.getByRole('button', { name: 'Check links' }).waitFor();
        }
        await screenshot(page, `checks-${width}-${scheme}`);
        await axe(page, `Checks tab (${width}, ${scheme})`);
        await context.close();
      }
    }
  });
});
