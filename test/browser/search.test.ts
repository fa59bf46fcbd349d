// The search language in the dashboard (issue 39): typing `from:acme has:attachment` filters the mail list
// through `search=`, the URL carries it (a reload keeps it, opening a message keeps it), a word from the end
// of a long body finds its mail, a mistake shows inline under the box, and request search reads headers.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { axe, eventually, screenshot, signedIn, useDashboard } from './helpers.ts';

/**
 * The operators hint, shown while the box has focus, lies over the field under the box. It must end above the
 * list's bar (a third line once covered half of "1 shown") and break lines only between operators.
 */
async function hintFits(page: Page, where: string): Promise<void> {
  const hint = page.locator('.search-box .search-hint');
  await hint.waitFor();
  const broken = await hint
    .locator('span')
    .evaluateAll((spans: any[]) =>
      spans.filter((s) => s.getClientRects().length > 1).map((s) => s.textContent as string),
    );
  assert.deepEqual(broken, [], `operators broken across lines (${where})`);
  const [box, bar] = [await hint.boundingBox(), await page.locator('.items-bar').boundingBox()];
  assert.ok(box && bar);
  assert.ok(
    box.y + box.height <= bar.y,
    `the hint ends ${box.y + box.height - bar.y} px into the bar (${where})`,
  );
}

const LONG_TEXT = `${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(900)}signed pomegranate`;

describe('dashboard search', () => {
  const h = useDashboard();

  test('from:acme has:attachment filters the list, lives in the URL and survives a reload', async () => {
    const sandbox = await h.createSandbox('search mail');
    await h.sendMail(
      sandbox,
      {
        from: 'Acme Billing <billing@acme.example>',
        subject: 'Acme invoice',
        text: 'attached',
        attachments: [{ filename: 'invoice.pdf', content: 'pdf' }],
      },
      { from: 'Acme News <news@acme.example>', subject: 'Acme newsletter', text: LONG_TEXT },
      {
        from: 'Globex <hi@globex.test>',
        subject: 'Globex report',
        text: 'see file',
        attachments: [{ filename: 'report.xlsx', content: 'x' }],
      },
    );
    const { context, page } = await signedIn(h, { viewport: { width: 1440, height: 900 } });
    await page.goto(`${h.origin}/s/${sandbox.id}`);
    const list = page.getByRole('list', { name: 'Messages' });
    await list.getByRole('link', { name: /Globex report/ }).waitFor();
    const box = page.getByLabel('Search mail');
    await box.fill('from:acme has:attachment');
    const onlyInvoice = async () => {
      const names = await list.getByRole('link').allInnerTexts();
      return names.length === 1 && names[0]?.includes('Acme invoice') === true;
    };
    await eventually('only the Acme mail with an attachment listed', onlyInvoice);
    await eventually(
      'the URL carries the search',
      async () => new URL(page.url()).searchParams.get('search') === 'from:acme has:attachment',
    );
    // The hint lists the operators while the box has focus, over the list's bar but not its first message.
    await page.getByText(/from: to: subject: has:attachment/).waitFor();
    const [hint, rows] = [
      await page.locator('.search-box .search-hint').boundingBox(),
      await list.boundingBox(),
    ];
    assert.ok(hint && rows);
    assert.ok(
      hint.y + hint.height <= rows.y,
      `the hint ends ${hint.y + hint.height - rows.y} px into the list`,
    );
    await screenshot(page, 'search-mail-filtered-1440');
    await axe(page, 'mail list with a search');

    await page.reload();
    await eventually('the reloaded list is still filtered', onlyInvoice);
    assert.equal(await page.getByLabel('Search mail').inputValue(), 'from:acme has:attachment');

    // Opening the message keeps the search in the URL: a reload there comes back to the same list.
    await list.getByRole('link', { name: /Acme invoice/ }).click();
    await eventually('the message is open with the search kept', async () => {
      const url = new URL(page.url());
      return (
        url.pathname.includes('/messages/') && url.searchParams.get('search') === 'from:acme has:attachment'
      );
    });

    // A word from the end of a ~50 KB body.
    await page.getByLabel('Search mail').fill('pomegranate');
    await eventually('the long mail found by its last word', async () => {
      const names = await list.getByRole('link').allInnerTexts();
      return names.length === 1 && names[0]?.includes('Acme newsletter') === true;
    });

    // A mistake shows under the box, naming what to write instead.
    await page.getByLabel('Search mail').fill('frm:acme');
    const alert = page.getByRole('alert').filter({ hasText: 'Unknown operator' });
    await alert.waitFor();
    assert.match(await alert.innerText(), /"frm:" at character 1: the operators are from: to: subject:/);
    assert.equal(await page.getByLabel('Search mail').getAttribute('aria-invalid'), 'true');
    await screenshot(page, 'search-mail-error-1440');
    await axe(page, 'mail list with a search mistake');

    // Clearing the box takes the search out of the URL.
    await page.getByLabel('Search mail').fill('');
    await list.getByRole('link', { name: /Globex report/ }).waitFor();
    await eventually(
      'no search in the URL',
      async () => new URL(page.url()).searchParams.get('search') === null,
    );
    assert.equal(await page.getByRole('alert').filter({ hasText: 'Unknown operator' }).count(), 0);
    await context.close();
  });

  test('phone width, dark: the search and its mistake fit; request search reads a header value', async () => {
    const sandbox = await h.createSandbox('search phone');
    await h.sendMail(sandbox, {
      from: 'Acme <a@acme.example>',
      subject: 'Phone acme',
      text: 'x',
      attachments: [{ filename: 'a.txt', content: 'a' }],
    });
    await (
      await h.capture(sandbox, '/hooks/pay', {
        method: 'POST',
        headers: { 'x-shop': 'tangerine' },
        body: '{}',
      })
    ).arrayBuffer();
    await (await h.capture(sandbox, '/hooks/other', { method: 'POST', body: '{}' })).arrayBuffer();
    const { context, page } = await signedIn(h, {
      viewport: { width: 390, height: 844 },
      colorScheme: 'dark',
    });
    await page.goto(`${h.origin}/s/${sandbox.id}?search=${encodeURIComponent('from:acme has:attachment')}`);
    const list = page.getByRole('list', { name: 'Messages' });
    await list.getByRole('link', { name: /Phone acme/ }).waitFor();
    await page.getByLabel('Search mail').focus();
    await hintFits(page, 'phone mail list');
    await screenshot(page, 'search-mail-390-dark');
    await page.getByLabel('Search mail').fill('before:2026-13-01');
    await page.getByRole('alert').filter({ hasText: 'is not a date' }).waitFor();
    await hintFits(page, 'phone mail list with a mistake');
    await screenshot(page, 'search-mail-error-390-dark');
    await axe(page, 'phone mail list with a search mistake (dark)');

    await page.goto(`${h.origin}/s/${sandbox.id}/requests?search=tangerine`);
    const requests = page.getByRole('list', { name: 'Requests' });
    await eventually('only the request with the header value', async () => {
      const names = await requests.getByRole('link').allInnerTexts();
      return names.length === 1 && names[0]?.includes('/hooks/pay') === true;
    });
    assert.equal(await page.getByLabel('Search requests').inputValue(), 'tangerine');
    await screenshot(page, 'search-requests-390-dark');
    await context.close();
  });
});
