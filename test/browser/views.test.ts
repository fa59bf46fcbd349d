// Every view in every look (issue 39): each main view of the dashboard, signed out and in, at 1440×900 and
// 390×844 in light and dark, shows its heading or main control, does not scroll sideways, has axe-core at 0
// serious or critical, and leaves test-results/views-<view>-<width>-<scheme>.png for people to look at.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axe, newContext, screenshot, useDashboard } from './helpers.ts';

type Options = Parameters<Browser['newContext']>[0];

const SIZES: Array<[number, Options]> = [
  [1440, { viewport: { width: 1440, height: 900 } }],
  [390, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }],
];
const SCHEMES = ['light', 'dark'] as const;

/** A view: its name in the screenshot's, the path opened, and what must show before the shot. */
interface View {
  name: string;
  path: string;
  ready: (page: Page) => Promise<void>;
}

/** Fails the view when the page is wider than the window (a phone would scroll sideways). */
async function noSidewaysScroll(page: Page, what: string): Promise<void> {
  const overflow = await page.evaluate(() => {
    const d = (globalThis as any).document.documentElement;
    return d.scrollWidth - d.clientWidth;
  });
  assert.ok(overflow <= 1, `${what} scrolls sideways by ${overflow} px`);
}

/** Fails when a visible field's placeholder is wider than the room inside it (it shows cut). */
async function placeholderFits(page: Page, label: string): Promise<void> {
  const field = page.getByLabel(label, { exact: true });
  if (!(await field.isVisible())) return; // a phone shows the open message, not the list
  const [text, room] = await field.evaluate((input: any) => {
    const g = globalThis as any;
    const style = g.getComputedStyle(input);
    const context = g.document.createElement('canvas').getContext('2d');
    context.font = style.font;
    const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
    return [context.measureText(input.placeholder).width, input.clientWidth - padding];
  });
  assert.ok(text <= room, `the "${label}" placeholder needs ${text} px and has ${room}`);
}

describe('every view in every look', () => {
  const h = useDashboard();
  let views: View[];

  // One sandbox holds something for each view, so no view is shot in its empty state alone.
  before(async () => {
    const sandbox = await h.createSandbox('every view', { tags: { env: 'staging' } });
    await h.json('PUT', `/sandboxes/${sandbox.id}/mocks`, {
      mocks: [
        {
          name: 'queue order',
          method: 'POST',
          pattern: '/hooks/order',
          statusCode: 202,
          headers: { 'Content-Type': 'application/json' },
          body: '{"queued":true}',
        },
      ],
    });
    await h.sendMail(
      sandbox,
      { from: 'Acme <billing@acme.example>', subject: 'Your invoice', text: 'Plain text only.' },
      {
        from: 'Acme <hello@acme.example>',
        subject: 'Confirm your address',
        text: 'Confirm at https://example.com/confirm',
        html: '<h1>Welcome</h1><p><a href="https://example.com/confirm">Confirm my address</a></p>',
      },
    );
    const captured = await h.capture(sandbox, '/hooks/order?id=7', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"order":7}',
    });
    assert.equal(captured.status, 202, 'the rule answered the capture');
    // Scoped to an event this test never causes, so no delivery is ever attempted.
    await h.json('POST', '/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      sandboxId: sandbox.id,
      events: ['sandbox.deleted'],
      description: 'Views listener',
    });
    const messages = (await h.json('GET', `/sandboxes/${sandbox.id}/messages`)).items;
    const html = messages.find((m: { subject: string }) => m.subject === 'Confirm your address');
    const [request] = (await h.json('GET', `/sandboxes/${sandbox.id}/requests`)).items;
    const s = `/s/${sandbox.id}`;

    views = [
      {
        name: 'sandboxes',
        path: '/',
        ready: async (page) => {
          await page.getByRole('heading', { name: 'Sandboxes', exact: true }).waitFor();
          await page
            .getByRole('list', { name: 'Sandboxes' })
            .getByRole('link', { name: 'every view', exact: true })
            .waitFor();
        },
      },
      {
        name: 'mail',
        path: `${s}/messages/${html.id}`,
        ready: async (page) => {
          await page.getByRole('heading', { name: 'Confirm your address' }).waitFor();
          assert.equal(
            await page.getByRole('tab', { name: 'HTML', exact: true }).getAttribute('aria-selected'),
            'true',
          );
          // The mail itself drawn in its frame, not only the chrome around it.
          await page
            .frameLocator('iframe[title="Message HTML"]')
            .getByRole('link', { name: 'Confirm my address' })
            .waitFor();
          await placeholderFits(page, 'Captured for address');
        },
      },
      {
        name: 'checks',
        path: `${s}/messages/${html.id}?view=checks`,
        ready: async (page) => {
          await page.getByRole('heading', { name: /Spam score/ }).waitFor();
          await page.getByRole('heading', { name: /HTML compatibility/ }).waitFor();
        },
      },
      {
        name: 'requests',
        path: `${s}/requests/${request.id}`,
        ready: async (page) => {
          await page.getByRole('heading', { name: 'POST /hooks/order' }).waitFor();
          await page.getByText('202 by rule “queue order”').waitFor();
        },
      },
      {
        name: 'rules',
        path: `${s}/rules`,
        ready: async (page) => {
          const rule = page.getByRole('group', { name: 'Rule 1', exact: true });
          await page.getByRole('button', { name: 'Add rule' }).waitFor();
          await rule.waitFor();
          assert.equal(await rule.getByLabel('Name', { exact: true }).inputValue(), 'queue order');
        },
      },
      {
        name: 'setup',
        path: `${s}/setup`,
        ready: async (page) => {
          await page.getByRole('heading', { name: 'Connection settings' }).waitFor();
          await page.getByText(sandbox.captureUrl, { exact: true }).first().waitFor();
        },
      },
      {
        name: 'search-error',
        path: `${s}?search=${encodeURIComponent('frm:acme')}`,
        ready: async (page) => {
          await page.getByRole('alert').filter({ hasText: 'Unknown operator' }).waitFor();
          // With focus the operators hint shows too: the one state where it lies over the list.
          await page.getByLabel('Search mail').focus();
          await page
            .getByText(/from: to: subject:/)
            .last()
            .waitFor();
        },
      },
      {
        name: 'webhooks',
        path: '/webhooks',
        ready: async (page) => {
          await page.getByRole('heading', { name: 'Webhooks', exact: true }).waitFor();
          await page.getByRole('list', { name: 'Webhooks' }).getByText('Views listener').waitFor();
        },
      },
      {
        name: 'connections',
        path: '/connections',
        ready: async (page) => {
          await page.getByRole('heading', { name: 'Connected apps', exact: true }).waitFor();
          await page.getByText(/MCP clients connected to this workspace/).waitFor();
        },
      },
      {
        name: 'not-found',
        path: '/no/such/page',
        ready: async (page) => {
          await page.getByRole('heading', { name: 'Page not found' }).waitFor();
          await page.getByRole('button', { name: 'Go to the sandboxes' }).waitFor();
        },
      },
    ];
  });

  for (const [width, size] of SIZES) {
    for (const scheme of SCHEMES) {
      // One context per look: it signs in once, and each view after is one page load.
      test(`${width} ${scheme}`, async () => {
        const look = `${width}-${scheme}`;
        const { context, page } = await newContext(h, { ...size, colorScheme: scheme });
        await page.goto(h.origin + '/');
        await page.getByRole('heading', { name: 'Sign in to sandtrap' }).waitFor();
        await page.getByLabel('API key').waitFor();
        await noSidewaysScroll(page, `sign-in (${look})`);
        await screenshot(page, `views-sign-in-${look}`);
        await axe(page, `sign-in (${look})`);
        await page.getByLabel('API key').fill(h.apiKey);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { name: 'Sandboxes', exact: true }).waitFor();

        for (const view of views) {
          await page.goto(h.origin + view.path);
          await view.ready(page);
          // Where the page shows the live dot, the shot waits for it to settle rather than catch "Connecting…".
          if ((await page.locator('.live-status').count()) > 0) {
            await page.getByRole('status').filter({ hasText: 'Live updates on' }).waitFor();
          }
          await noSidewaysScroll(page, `${view.name} (${look})`);
          await screenshot(page, `views-${view.name}-${look}`);
          await axe(page, `${view.name} (${look})`);
        }
        await context.close();
      });
    }
  }
});
