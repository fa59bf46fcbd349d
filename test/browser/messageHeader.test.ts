// The message header as a mail client shows it: names with addresses on hover and focus, Cc and Reply-To, long
// lists folded into "and N more"; and on a phone the mail itself starts near the top, under a tab strip that
// says it scrolls.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { axe, eventually, screenshot, signedIn, useDashboard } from './helpers.ts';

const BODY =
  '<!doctype html><html><body style="font-family:sans-serif">' +
  '<h1 id="greeting">Hello team</h1><p>The quarterly report is attached in spirit.</p></body></html>';

describe('dashboard mail: message header', () => {
  const h = useDashboard();

  test('From, To, Cc and Reply-To show names, addresses on hover and focus; long lists fold', async () => {
    const sandbox = await h.createSandbox('header');
    const cc = Array.from({ length: 7 }, (_, i) => ({
      name: `Member ${i + 1}`,
      address: `m${i + 1}@team.test`,
    }));
    await h.sendMail(sandbox, {
      from: { name: 'Alice Sender', address: 'alice@example.test' },
      to: [{ name: 'Bob Receiver', address: 'bob@example.test' }],
      // An encoded display name with a comma: decoded, it must stay one person.
      cc: [{ name: 'Doe, Jane Ü', address: 'jane@team.test' }, ...cc],
      replyTo: { name: 'Support Desk', address: 'support@example.test' },
      subject: 'Quarterly report',
      html: BODY,
      text: 'Hello team',
    });
    const [message] = (await h.json('GET', `/sandboxes/${sandbox.id}/messages`)).items;
    assert.ok(message);

    const { context, page } = await signedIn(h, { viewport: { width: 1440, height: 900 } });
    await page.goto(`${h.origin}/s/${sandbox.id}/messages/${message.id}`);
    await page.getByRole('heading', { name: 'Quarterly report' }).waitFor();
    const meta = page.locator('#message-meta');

    const name = (text: string) => meta.locator('.addr', { hasText: text });
    assert.equal(await name('Alice Sender').getAttribute('title'), 'Alice Sender <alice@example.test>');
    assert.equal(await name('Bob Receiver').getAttribute('title'), 'Bob Receiver <bob@example.test>');
    assert.equal(await name('Support Desk').getAttribute('title'), 'Support Desk <support@example.test>');
    assert.equal(await name('Doe, Jane Ü').getAttribute('title'), 'Doe, Jane Ü <jane@team.test>');
    assert.deepEqual(await meta.locator('dt').allTextContents(), [
      'From',
      'To',
      'Cc',
      'Reply-To',
      'Date',
      'Received',
    ]);

    // The address is hidden beside the name until the name has keyboard focus.
    const support = name('Support Desk');
    const fullWidth = () => support.locator('.addr-full').evaluate((el) => el.getBoundingClientRect().width);
    assert.ok((await fullWidth()) <= 1, 'the address is visually hidden before focus');
    await support.focus();
    assert.ok((await fullWidth()) > 50, 'the address shows on focus');
    assert.equal((await support.innerText()).trim(), 'Support Desk <support@example.test>');

    // Eight Cc recipients: three show, five fold into a button that shows them all.
    const ccList = meta.locator('dd').nth(2);
    assert.equal(await ccList.locator('.addr').count(), 3);
    assert.equal(await name('Member 7').count(), 0);
    await ccList.getByRole('button', { name: /and 5 more/ }).click();
    assert.equal(await ccList.locator('.addr').count(), 8);
    assert.equal(await name('Member 7').getAttribute('title'), 'Member 7 <m7@team.test>');
    assert.equal(await ccList.getByRole('button').count(), 0);
    await context.close();

    for (const [viewport, label] of [
      [{ width: 1440, height: 900 }, 'desktop'],
      [{ width: 390, height: 844 }, 'phone'],
    ] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const shot = await signedIn(h, { viewport, colorScheme });
        await shot.page.goto(`${h.origin}/s/${sandbox.id}/messages/${message.id}`);
        await shot.page.getByRole('heading', { name: 'Quarterly report' }).waitFor();
        await shot.page.frameLocator('iframe[title="Message HTML"]').locator('#greeting').waitFor();
        await screenshot(shot.page, `message-header-${label}-${colorScheme}`);
        await axe(shot.page, `message header ${label} ${colorScheme}`);
        await shot.context.close();
      }
    }
  });

  test('on a phone the mail starts near the top, details open on demand, and the tabs say they scroll', async () => {
    const sandbox = await h.createSandbox('phone');
    await h.sendMail(sandbox, {
      from: { name: 'Alice Sender', address: 'alice@example.test' },
      to: 'bob@example.test',
      cc: 'Carol <carol@example.test>',
      subject: 'Phone layout',
      // A mail longer than the screen, as most are: a short one is all in view wherever it starts.
      html: BODY.replace('</body>', `${'<p>More of the report, line after line.</p>'.repeat(40)}</body>`),
    });
    const [message] = (await h.json('GET', `/sandboxes/${sandbox.id}/messages`)).items;
    assert.ok(message);

    const { context, page } = await signedIn(h, { viewport: { width: 390, height: 844 } });
    await page.goto(`${h.origin}/s/${sandbox.id}/messages/${message.id}`);
    await page.getByRole('heading', { name: 'Phone layout' }).waitFor();
    const iframe = page.locator('iframe[title="Message HTML"]');
    await iframe.waitFor();
    await page.frameLocator('iframe[title="Message HTML"]').locator('#greeting').waitFor();
    const top = await iframe.evaluate((el) => el.getBoundingClientRect().top);
    assert.ok(top <= 250, `the HTML frame starts ${top} px from the top`);
    // The preview widths are a desktop tool: on a phone they would only push the mail down.
    assert.equal(await page.getByRole('group', { name: 'Preview width' }).isVisible(), false);
    const title = await page.getByRole('heading', { name: 'Phone layout' }).boundingBox();
    assert.ok(title !== null && title.y >= 52, 'the subject is not under the sticky app bar');

    // One line of sender; the rest behind Details.
    const details = page.getByRole('button', { name: 'Details' });
    assert.equal(await page.locator('#message-meta').isVisible(), false);
    assert.equal(await page.locator('.msg-summary-from').textContent(), 'From Alice Sender');
    await details.click();
    assert.equal(await page.locator('#message-meta').isVisible(), true);
    assert.equal(
      await page.getByRole('button', { name: 'Hide details' }).getAttribute('aria-expanded'),
      'true',
    );
    assert.equal(
      await page.locator('#message-meta .addr', { hasText: 'Carol' }).getAttribute('title'),
      'Carol <carol@example.test>',
    );
    await screenshot(page, 'message-header-phone-details');
    await axe(page, 'message header phone details open');
    await page.getByRole('button', { name: 'Hide details' }).click();

    // The strip is wider than the phone, and says so until it is scrolled to its end.
    const strip = page.getByRole('tablist', { name: 'Message views' });
    const hint = page.locator('.tabs-more');
    assert.ok(await strip.evaluate((el) => el.scrollWidth > el.clientWidth), 'the tab strip scrolls');
    await eventually('the scroll hint shows', () => hint.isVisible());
    await strip.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    await eventually('the hint goes once the strip is at its end', async () => !(await hint.isVisible()));
    await page.getByRole('tab', { name: 'Checks' }).click();
    assert.equal(await page.getByRole('tab', { name: 'Checks' }).getAttribute('aria-selected'), 'true');
    await context.close();
  });

  test('the open view is in the URL: a reload opens it again, and the list search stays beside it', async () => {
    const sandbox = await h.createSandbox('view in url');
    await h.sendMail(sandbox, { subject: 'Views', html: BODY, text: 'Hello team' });
    const [message] = (await h.json('GET', `/sandboxes/${sandbox.id}/messages`)).items;
    assert.ok(message);
    const { context, page } = await signedIn(h, { viewport: { width: 1440, height: 900 } });
    await page.goto(`${h.origin}/s/${sandbox.id}/messages/${message.id}?search=views`);
    await page.getByRole('heading', { name: 'Views' }).waitFor();
    const headers = page.getByRole('tab', { name: 'Headers', exact: true });
    await headers.click();
    await eventually(
      'the view in the URL',
      async () => new URL(page.url()).searchParams.get('view') === 'headers',
    );
    assert.equal(new URL(page.url()).searchParams.get('search'), 'views');
    await page.reload();
    await page.getByRole('heading', { name: 'Views' }).waitFor();
    await eventually(
      'Headers open after the reload',
      async () => (await headers.getAttribute('aria-selected')) === 'true',
    );
    await context.close();
  });

  test('on a phone a view opened from the URL is a tab in view, however far along the strip', async () => {
    const sandbox = await h.createSandbox('view on a phone');
    await h.sendMail(sandbox, { subject: 'Far tab', html: BODY, text: 'Hello team' });
    const [message] = (await h.json('GET', `/sandboxes/${sandbox.id}/messages`)).items;
    assert.ok(message);
    const { context, page } = await signedIn(h, { viewport: { width: 390, height: 844 } });
    await page.goto(`${h.origin}/s/${sandbox.id}/messages/${message.id}?view=checks`);
    const checks = page.getByRole('tab', { name: 'Checks', exact: true });
    await eventually('Checks open', async () => (await checks.getAttribute('aria-selected')) === 'true');
    await eventually('the Checks tab inside the strip', async () =>
      checks.evaluate((tab: any) => {
        const strip = tab.closest('[role="tablist"]').getBoundingClientRect();
        const box = tab.getBoundingClientRect();
        return box.left >= strip.left - 1 && box.right <= strip.right + 1;
      }),
    );
    await screenshot(page, 'message-view-far-tab-phone');
    await context.close();
  });
});
