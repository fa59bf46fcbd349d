// The mail and request lists for daily use in Chromium: rows ticked (Space, click, shift-click range) and
// marked read, unread or deleted together; mark all read; Clear asks with the count and offers Undo, which
// restores every row (the delete is only sent when the window ends or the view is left); the unread marker
// on requests; and the density of the mail list at 1440x900, with display names and long queries cut short.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { axe, eventually, screenshot, signedIn, useDashboard } from './helpers.ts';
import type { Harness, Sandbox } from './helpers.ts';

const WIDE = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

type Row = { id: string; isRead: boolean; subject?: string; path?: string };

async function messages(h: Harness, sandbox: Sandbox): Promise<Row[]> {
  return (await h.json('GET', `/sandboxes/${sandbox.id}/messages`)).items;
}

async function requests(h: Harness, sandbox: Sandbox): Promise<Row[]> {
  return (await h.json('GET', `/sandboxes/${sandbox.id}/requests`)).items;
}

async function sendNumbered(h: Harness, sandbox: Sandbox, prefix: string, count: number): Promise<void> {
  await h.sendMail(
    sandbox,
    ...Array.from({ length: count }, (_, i) => ({
      from: 'Acme Billing <no-reply@acme.example>',
      subject: `${prefix} ${String(i).padStart(2, '0')}`,
      text: `Body of ${prefix} ${i}, long enough to show as a preview beside the subject.`,
    })),
  );
}

async function captureNumbered(h: Harness, sandbox: Sandbox, prefix: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await h.capture(sandbox, `/${prefix}/${i}`, { method: 'POST', body: '{}' });
    await res.arrayBuffer();
  }
}

async function openTab(h: Harness, page: Page, sandbox: Sandbox, tab: 'mail' | 'requests') {
  await page.goto(`${h.origin}/s/${sandbox.id}${tab === 'mail' ? '' : '/requests'}`);
  return page.getByRole('list', { name: tab === 'mail' ? 'Messages' : 'Requests' });
}

describe('dashboard lists for daily use', () => {
  const h = useDashboard();
  let sandbox: Sandbox;

  before(async () => {
    sandbox = await h.createSandbox('daily lists');
  });

  test('mail: Space, click and shift-click tick rows; mark read, mark unread, delete selected', async () => {
    const sb = await h.createSandbox('mail select');
    await sendNumbered(h, sb, 'Pick', 6);
    const { context, page } = await signedIn(h, { viewport: WIDE });
    const list = await openTab(h, page, sb, 'mail');
    await list.getByRole('link', { name: /Pick 05/ }).waitFor();
    // Keyboard: the box is reachable and named after its row.
    await list.getByRole('checkbox', { name: 'Select Pick 05' }).focus();
    await page.keyboard.press('Space');
    await list.getByRole('checkbox', { name: 'Select Pick 03' }).click({ modifiers: ['Shift'] });
    await page.getByText('3 selected').waitFor();
    await screenshot(page, 'daily-mail-selected-wide');
    await axe(page, 'Mail list with a selection');
    const all = await messages(h, sb);
    const picked = new Set(all.filter((m) => /Pick 0[345]/.test(m.subject ?? '')).map((m) => m.id));
    assert.equal(picked.size, 3);

    await page.getByRole('button', { name: 'Mark read', exact: true }).click();
    await eventually('the three ticked are read, the rest not', async () =>
      (await messages(h, sb)).every((m) => m.isRead === picked.has(m.id)),
    );
    await page.getByRole('button', { name: 'Mark unread', exact: true }).click();
    await eventually('all unread again', async () => (await messages(h, sb)).every((m) => !m.isRead));

    await page.getByRole('button', { name: 'Delete selected' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted 3 messages.' }).waitFor();
    assert.equal(await list.getByRole('link').count(), 3, 'the ticked rows vanish at once');
    await eventually('the three are deleted once the undo window ends', async () => {
      const left = await messages(h, sb);
      return left.length === 3 && left.every((m) => !picked.has(m.id));
    });
    await context.close();
  });

  test('mail: Clear asks with the count; Undo restores every row, still there after a reload', async () => {
    const sb = await h.createSandbox('mail undo');
    await sendNumbered(h, sb, 'Keep', 7);
    const { context, page } = await signedIn(h, { viewport: WIDE });
    const list = await openTab(h, page, sb, 'mail');
    await list.getByRole('link', { name: /Keep 06/ }).waitFor();
    await page.getByRole('button', { name: 'Clear mail' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete all 7 messages?' });
    await dialog.waitFor();
    await screenshot(page, 'daily-clear-confirm-wide');
    await dialog.getByRole('button', { name: 'Delete all' }).click();
    await page.getByRole('button', { name: 'Undo' }).waitFor();
    assert.equal(await list.getByRole('link').count(), 0, 'the rows are hidden at once');
    await screenshot(page, 'daily-clear-undo-wide');
    await axe(page, 'Mail list with the undo toast');
    await page.getByRole('button', { name: 'Undo' }).click();
    await eventually('every row back', async () => (await list.getByRole('link').count()) === 7);
    assert.equal((await messages(h, sb)).length, 7, 'nothing was deleted');
    await page.reload();
    await list.getByRole('link', { name: /Keep 00/ }).waitFor();
    assert.equal(await list.getByRole('link').count(), 7, 'still there after a reload');
    await context.close();
  });

  test('mail: a Clear not undone is sent, also when the view is left before the window ends', async () => {
    const sb = await h.createSandbox('mail clear');
    await sendNumbered(h, sb, 'Gone', 3);
    const { context, page } = await signedIn(h, { viewport: WIDE });
    const list = await openTab(h, page, sb, 'mail');
    await list.getByRole('link', { name: /Gone 02/ }).waitFor();
    await page.getByRole('button', { name: 'Clear mail' }).click();
    await page
      .getByRole('dialog', { name: 'Delete all 3 messages?' })
      .getByRole('button', { name: 'Delete all' })
      .click();
    await page.getByRole('button', { name: 'Undo' }).waitFor();
    await eventually(
      'the stream is empty once the window ends',
      async () => (await messages(h, sb)).length === 0,
    );

    await sendNumbered(h, sb, 'Left', 2);
    await page.reload();
    await list.getByRole('link', { name: /Left 01/ }).waitFor();
    await page.getByRole('button', { name: 'Clear mail' }).click();
    await page
      .getByRole('dialog', { name: 'Delete all 2 messages?' })
      .getByRole('button', { name: 'Delete all' })
      .click();
    await page.getByRole('button', { name: 'Undo' }).waitFor();
    // Another tab of the sandbox: the mail view goes away, and its waiting delete is sent then.
    await page.getByRole('tab', { name: 'Requests', exact: true }).click();
    await page
      .getByRole('list', { name: 'Requests' })
      .waitFor({ state: 'attached' })
      .catch(() => undefined);
    await eventually(
      'the stream is empty after leaving the view',
      async () => (await messages(h, sb)).length === 0,
    );

    // Leaving the page itself (a reload here) sends it too, on pagehide.
    await sendNumbered(h, sb, 'Reloaded', 2);
    await page.goto(`${h.origin}/s/${sb.id}`);
    await list.getByRole('link', { name: /Reloaded 01/ }).waitFor();
    await page.getByRole('button', { name: 'Clear mail' }).click();
    await page
      .getByRole('dialog', { name: 'Delete all 2 messages?' })
      .getByRole('button', { name: 'Delete all' })
      .click();
    await page.getByRole('button', { name: 'Undo' }).waitFor();
    await page.reload();
    await eventually(
      'the stream is empty after leaving the page',
      async () => (await messages(h, sb)).length === 0,
    );
    await context.close();
  });

  test('mark all read, for mail and for requests', async () => {
    const sb = await h.createSandbox('mark all');
    await sendNumbered(h, sb, 'Unread', 3);
    await captureNumbered(h, sb, 'hook', 3);
    const { context, page } = await signedIn(h, { viewport: WIDE });
    const mail = await openTab(h, page, sb, 'mail');
    await mail.getByRole('link', { name: /Unread 02/ }).waitFor();
    await page.getByRole('button', { name: 'Mark all read' }).click();
    await eventually('every message read', async () => (await messages(h, sb)).every((m) => m.isRead));
    await eventually('no row marked unread', async () => (await mail.locator('.item.unread').count()) === 0);

    const reqs = await openTab(h, page, sb, 'requests');
    await reqs.getByRole('link', { name: /^POST \/hook\/2/ }).waitFor();
    assert.equal(await reqs.locator('.item.unread').count(), 3);
    await page.getByRole('button', { name: 'Mark all read' }).click();
    await eventually('every request read', async () => (await requests(h, sb)).every((r) => r.isRead));
    await eventually('no request row unread', async () => (await reqs.locator('.item.unread').count()) === 0);
    await context.close();
  });

  test('requests: unread marker, read on opening; select, mark, delete; Clear requests with Undo', async () => {
    const sb = await h.createSandbox('request lists');
    await captureNumbered(h, sb, 'in', 5);
    const { context, page } = await signedIn(h, { viewport: WIDE });
    const list = await openTab(h, page, sb, 'requests');
    const newest = list.getByRole('link', { name: /^POST \/in\/4\W+unread$/ });
    await newest.waitFor();
    await newest.click();
    await eventually('opening marks it read', async () => (await requests(h, sb))[0]?.isRead === true);
    await list.getByRole('link', { name: 'POST /in/4', exact: true }).waitFor();
    await page.goto(`${h.origin}/s/${sb.id}/requests`);

    await list.getByRole('checkbox', { name: 'Select POST /in/0' }).click();
    await list.getByRole('checkbox', { name: 'Select POST /in/1' }).click();
    await page.getByText('2 selected').waitFor();
    await screenshot(page, 'daily-requests-selected-wide');
    await axe(page, 'Requests list with a selection');
    await page.getByRole('button', { name: 'Mark read', exact: true }).click();
    await eventually('the two ticked are read', async () =>
      (await requests(h, sb)).filter((r) => /\/in\/[01]$/.test(r.path ?? '')).every((r) => r.isRead),
    );
    await page.getByRole('button', { name: 'Delete selected' }).click();
    await eventually('two deleted', async () => {
      const left = await requests(h, sb);
      return left.length === 3 && left.every((r) => !/\/in\/[01]$/.test(r.path ?? ''));
    });

    const all = page.getByRole('checkbox', { name: 'Select all shown requests' });
    await all.click();
    await page.getByText('3 selected').waitFor();
    assert.equal(await list.getByRole('checkbox', { checked: true }).count(), 3);
    await all.click();
    await eventually(
      'select-all again unticks every row',
      async () => (await list.getByRole('checkbox', { checked: true }).count()) === 0,
    );

    await page.getByRole('button', { name: 'Clear requests' }).click();
    await page
      .getByRole('dialog', { name: 'Delete all 3 requests?' })
      .getByRole('button', { name: 'Delete all' })
      .click();
    await page.getByRole('button', { name: 'Undo' }).click();
    await eventually('every request row back', async () => (await list.getByRole('link').count()) === 3);
    assert.equal((await requests(h, sb)).length, 3);
    await page.getByRole('button', { name: 'Clear requests' }).click();
    await page
      .getByRole('dialog', { name: 'Delete all 3 requests?' })
      .getByRole('button', { name: 'Delete all' })
      .click();
    await eventually('every request deleted', async () => (await requests(h, sb)).length === 0);
    await context.close();
  });

  test('1440x900 shows at least 12 mail rows, senders by name, a long query cut short', async () => {
    await sendNumbered(h, sandbox, 'Dense', 20);
    await captureNumbered(h, sandbox, 'webhooks/payment', 3);
    const long = `/webhooks/very/long/path/segment?${Array.from({ length: 40 }, (_, i) => `key${i}=value${i}`).join('&')}`;
    await (await h.capture(sandbox, long, { method: 'GET' })).arrayBuffer();
    for (const scheme of ['light', 'dark'] as const) {
      for (const [size, viewport] of [
        ['wide', WIDE],
        ['phone', PHONE],
      ] as const) {
        const { context, page } = await signedIn(h, { viewport, colorScheme: scheme });
        const list = await openTab(h, page, sandbox, 'mail');
        await list.getByRole('link', { name: /Dense 19/ }).waitFor();
        if (size === 'wide') {
          const visible = await list.locator('li').evaluateAll(
            (rows: any[]) =>
              rows.filter((r) => {
                const box = r.getBoundingClientRect();
                return box.top >= 0 && box.bottom <= (globalThis as any).innerHeight;
              }).length,
          );
          assert.ok(visible >= 12, `${visible} mail rows in view at 1440x900`);
          const from = list.locator('.item-from').first();
          assert.equal(await from.textContent(), 'Acme Billing');
          assert.equal(await from.getAttribute('title'), 'no-reply@acme.example');
        }
        await screenshot(page, `daily-mail-${size}-${scheme}`);
        const reqs = await openTab(h, page, sandbox, 'requests');
        await reqs.getByRole('link', { name: /^GET \/webhooks\/very/ }).waitFor();
        // The row's status stays inside it whatever the query's length.
        const inside = await reqs
          .locator('li')
          .first()
          .evaluate((li: any) => {
            const row = li.getBoundingClientRect();
            const status = li.querySelector('.status').getBoundingClientRect();
            return status.right <= row.right && status.width > 0;
          });
        assert.ok(inside, 'status inside the row');
        await screenshot(page, `daily-requests-${size}-${scheme}`);
        await axe(page, `Requests list ${size} ${scheme}`);
        await context.close();
      }
    }
  });

  test('a message opened by its link, deep in the list, is scrolled into view in the list', async () => {
    const sb = await h.createSandbox('deep link');
    await sendNumbered(h, sb, 'Deep', 40);
    const oldest = (await messages(h, sb)).find((m) => m.subject === 'Deep 00');
    assert.ok(oldest);
    const { context, page } = await signedIn(h, { viewport: WIDE });
    await page.goto(`${h.origin}/s/${sb.id}/messages/${oldest.id}`);
    const list = page.getByRole('list', { name: 'Messages' });
    const row = list.locator('li', { has: page.locator('[aria-current="page"]') });
    await row.waitFor();
    await eventually('the open row is in view', async () =>
      row.evaluate((li: any) => {
        const box = li.getBoundingClientRect();
        return box.top >= 0 && box.bottom <= (globalThis as any).innerHeight;
      }),
    );
    assert.match((await row.locator('.item-link').textContent()) ?? '', /Deep 00$/);
    await screenshot(page, 'daily-mail-deep-link');
    await context.close();
  });
});
