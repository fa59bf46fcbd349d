// The HTML view as a mail client shows it: a newsletter's two cid: images load from /parts, the frame grows to
// the mail's height with no inner scrollbar, Phone / Tablet / Full set the frame's real width, and a short
// mail with no doctype (quirks mode) gets a short frame.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { axe, eventually, RESULTS_DIR, screenshot, signedIn, useDashboard } from './helpers.ts';

// Two distinct PNGs (2x1 and 1x2), so each <img> proves it got its own part.
const WIDE_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAAEUlEQVR42mP8z8DwnwEKGBgAJP8E/TGp7XIAAAAASUVORK5CYII=',
  'base64',
);
const TALL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAACCAYAAACZgbYnAAAAEUlEQVR42mP8z8DwnwEKGBgAJP8E/R3yfzMAAAAASUVORK5CYII=',
  'base64',
);

/** A long newsletter: the frame must grow past 70vh to show the footer without scrolling inside. */
const NEWSLETTER =
  '<!doctype html><html><body style="margin:0;font-family:sans-serif">' +
  '<img id="logo" src="cid:logo@news.test" alt="Logo" width="120" height="60">' +
  Array.from({ length: 60 }, (_, i) => `<p>Story ${i + 1}: something happened this week.</p>`).join('') +
  '<img id="banner" src="cid:banner@news.test" alt="Banner" width="60" height="120">' +
  '<p id="footer">Unsubscribe footer</p></body></html>';

describe('dashboard mail: rendering', () => {
  const h = useDashboard();

  test('a newsletter with two cid: images renders both; the frame is as tall as the mail; widths differ', async () => {
    const sandbox = await h.createSandbox('newsletter');
    await h.sendMail(sandbox, {
      from: '"News Desk" <news@news.test>',
      subject: 'Weekly newsletter',
      html: NEWSLETTER,
      attachments: [
        { filename: 'logo.png', content: WIDE_PNG, contentType: 'image/png', cid: 'logo@news.test' },
        { filename: 'banner.png', content: TALL_PNG, contentType: 'image/png', cid: 'banner@news.test' },
      ],
    });
    const [message] = (await h.json('GET', `/sandboxes/${sandbox.id}/messages`)).items;
    assert.ok(message);

    for (const [viewport, name] of [
      [{ width: 1440, height: 900 }, 'desktop'],
      [{ width: 390, height: 844 }, 'phone'],
    ] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const { context, page } = await signedIn(h, { viewport, colorScheme });
        await page.goto(`${h.origin}/s/${sandbox.id}/messages/${message.id}`);
        await page.getByRole('heading', { name: 'Weekly newsletter' }).waitFor();
        const frame = page.frameLocator('iframe[title="Message HTML"]');
        for (const [id, w, hgt] of [
          ['#logo', 2, 1],
          ['#banner', 1, 2],
        ] as const) {
          await eventually(`${id} loads from its cid part`, () =>
            frame
              .locator(id)
              .evaluate(
                (img: any, [w, hgt]) => img.complete && img.naturalWidth === w && img.naturalHeight === hgt,
                [w, hgt],
              ),
          );
        }
        const iframe = page.locator('iframe[title="Message HTML"]');
        await eventually('the frame is as tall as its document, with nothing to scroll inside', async () => {
          const [outer, inner] = await Promise.all([
            iframe.evaluate((el) => el.clientHeight),
            frame.locator('html').evaluate((el) => el.scrollHeight),
          ]);
          return outer > 900 && inner <= outer;
        });
        await screenshot(page, `mail-render-${name}-${colorScheme}`);
        await axe(page, `newsletter ${name} ${colorScheme}`);
        // A full-page shot paints an opaque-origin frame only as far as the viewport reaches; scrolled to
        // the footer, the window shows the end of the mail as a person sees it.
        await frame.locator('#footer').scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${RESULTS_DIR}/mail-render-${name}-${colorScheme}-end.png` });

        if (name === 'desktop' && colorScheme === 'light') {
          const widths: Record<string, number> = {};
          for (const label of ['Phone', 'Tablet', 'Full']) {
            await page.getByRole('button', { name: label, exact: true }).click();
            await eventually(
              `${label} applied`,
              async () =>
                (await page
                  .getByRole('button', { name: label, exact: true })
                  .getAttribute('aria-pressed')) === 'true',
            );
            widths[label] = await iframe.evaluate((el) => Math.round(el.getBoundingClientRect().width));
          }
          assert.equal(widths.Phone, 375, JSON.stringify(widths));
          assert.equal(widths.Tablet, 768, JSON.stringify(widths));
          assert.ok((widths.Full ?? 0) > 768, JSON.stringify(widths));
          await page.getByRole('button', { name: 'Phone', exact: true }).click();
          await screenshot(page, 'mail-render-desktop-phone-width');
        }
        await context.close();
      }
    }
  });

  test('a short mail with no doctype gets a short frame, not one as tall as the window', async () => {
    // No doctype is quirks mode, where <html> is at least as tall as the frame: the mail's measured height is
    // then the frame's own, and only a frame that starts short can come out short.
    const sandbox = await h.createSandbox('quirks');
    await h.sendMail(sandbox, { subject: 'Short note', html: '<h1>Hello</h1><p>Two lines.</p>' });
    const [message] = (await h.json('GET', `/sandboxes/${sandbox.id}/messages`)).items;
    const { context, page } = await signedIn(h, { viewport: { width: 1440, height: 900 } });
    await page.goto(`${h.origin}/s/${sandbox.id}/messages/${message.id}`);
    const frame = page.frameLocator('iframe[title="Message HTML"]');
    await frame.getByText('Two lines.').waitFor();
    assert.equal(
      await frame.locator('html').evaluate(() => (globalThis as any).document.compatMode),
      'BackCompat',
    );
    const iframe = page.locator('iframe[title="Message HTML"]');
    await eventually(
      'the frame as short as the mail',
      async () => (await iframe.evaluate((el) => el.clientHeight)) < 250,
    );
    await screenshot(page, 'mail-render-quirks');
    await context.close();
  });
});
