// The Sandboxes page and a sandbox's Setup tab in Chromium: search, create (ephemeral with TTL and tags),
// settings with copy buttons and snippets, rename, tags, reset secret, delete; phone width and dark mode,
// each view checked with axe-core and saved as a screenshot.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import nodemailer from 'nodemailer';
import { axe, eventually, screenshot, signedIn, useDashboard } from './helpers.ts';

describe('dashboard sandboxes and setup', () => {
  const h = useDashboard();

  test('search, create with the form, setup with copy buttons and snippets, rename, tags, reset secret, delete', async () => {
    await h.createSandbox('billing service', { tags: { team: 'pay' } });
    await h.createSandbox('signup flow');
    const { context, page } = await signedIn(h);
    await page.getByRole('link', { name: 'billing service', exact: true }).waitFor();
    await screenshot(page, 'sandboxes');
    await axe(page, 'Sandboxes page');

    await page.getByLabel('Search sandboxes').fill('signup');
    await eventually('only the matching sandbox listed', async () => {
      const billing = await page.getByRole('link', { name: 'billing service', exact: true }).count();
      const signup = await page.getByRole('link', { name: 'signup flow', exact: true }).count();
      return billing === 0 && signup === 1;
    });
    await page.getByLabel('Search sandboxes').fill('');

    await page.getByRole('button', { name: 'New sandbox' }).click();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('made in the browser');
    await page.getByLabel('Ephemeral', { exact: true }).check();
    await page.getByLabel('TTL (minutes)', { exact: true }).fill('45');
    await page.getByRole('textbox', { name: 'Tags', exact: true }).fill('branch=main, ci=yes');
    await screenshot(page, 'sandbox-new');
    await axe(page, 'New sandbox form');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: 'made in the browser', exact: true }).waitFor();
    const made = (await h.json('GET', '/sandboxes?q=browser')).items[0];
    assert.equal(made.name, 'made in the browser');
    assert.equal(made.isEphemeral, true);
    const ttl = (Date.parse(made.expiresAt) - Date.parse(made.createdAt)) / 60_000;
    assert.ok(Math.abs(ttl - 45) < 1, `expires ${ttl} minutes after creation`);
    assert.deepEqual(made.tags, { branch: 'main', ci: 'yes' });
    assert.match(new URL(page.url()).pathname, new RegExp(`^/s/${made.id}(/|$)`), 'the new sandbox opens');

    await page.getByRole('tab', { name: 'Setup', exact: true }).click();
    assert.equal(new URL(page.url()).pathname, `/s/${made.id}/setup`);
    for (const snippet of ['nodemailer', 'Django', 'Rails', 'Spring', 'Laravel', 'curl']) {
      await page.getByText(snippet).first().waitFor();
    }
    // Provider SDKs: each snippet carries this sandbox's base URL for that provider and its password as the key.
    for (const [label, provider] of [
      ['SendGrid', 'sendgrid'],
      ['Postmark', 'postmark'],
      ['Resend', 'resend'],
      ['Mailgun', 'mailgun'],
      ['Amazon SES', 'ses'],
    ] as const) {
      await page.getByRole('button', { name: label, exact: true }).click();
      const code = (await page.locator('.snippets pre code').textContent()) ?? '';
      const base = new URL(made.providerBaseUrls[provider]);
      assert.ok(
        code.includes(`${base.host}${base.pathname.replace(/\/$/, '')}`),
        `${label} snippet names its base URL`,
      );
      assert.ok(code.includes(made.smtpPassword), `${label} snippet carries the key`);
    }
    await page.getByRole('button', { name: 'Amazon SES', exact: true }).click();
    await screenshot(page, 'setup');
    await axe(page, 'Setup tab');
    await page.getByRole('button', { name: 'Copy password', exact: true }).click();
    const clip = () => page.evaluate(() => (globalThis as any).navigator.clipboard.readText());
    assert.equal(await clip(), made.smtpPassword);
    await page.getByRole('button', { name: 'Copy capture URL', exact: true }).click();
    assert.equal(await clip(), made.captureUrl);
    await page.getByRole('button', { name: 'Copy email address', exact: true }).click();
    assert.equal(await clip(), made.emailAddress);
    await page.reload();
    await page.getByRole('button', { name: 'Copy password', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Reset secret' }).click();
    // A confirmation comes first (had it been late on a busy machine, a 2 s look for it skipped it).
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('button', { name: /Reset/ }).click();
    await eventually('a new SMTP password', async () => {
      const now = await h.json('GET', `/sandboxes/${made.id}`);
      return now.smtpPassword !== made.smtpPassword;
    });

    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('renamed sandbox');
    await page.getByRole('button', { name: 'Save name', exact: true }).last().click();
    await page.getByRole('heading', { name: 'renamed sandbox', exact: true }).waitFor();
    assert.equal((await h.json('GET', `/sandboxes/${made.id}`)).name, 'renamed sandbox');

    await page.getByRole('button', { name: 'Edit tags' }).click();
    await page.getByRole('textbox', { name: 'Tags', exact: true }).fill('branch=next');
    await page.getByRole('button', { name: /^Save/ }).click();
    await eventually('the tags saved', async () => {
      const now = await h.json('GET', `/sandboxes/${made.id}`);
      return JSON.stringify(now.tags) === JSON.stringify({ branch: 'next' });
    });

    await page.getByRole('button', { name: 'Delete sandbox' }).click();
    const confirm = page.getByRole('dialog');
    await confirm.waitFor();
    await screenshot(page, 'sandbox-delete-dialog');
    await axe(page, 'Delete sandbox dialog');
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('heading', { name: 'Sandboxes', exact: true }).waitFor();
    assert.equal((await h.api(`/sandboxes/${made.id}`)).status, 404);
    await context.close();
  });

  test('a copy button that has just copied still passes axe-core (its visible text is part of its name)', async () => {
    const sandbox = await h.createSandbox('copy state');
    const { context, page } = await signedIn(h);
    await page.goto(`${h.origin}/s/${sandbox.id}/setup`);
    await page.getByRole('button', { name: 'Copy password', exact: true }).click();
    await screenshot(page, 'setup-copied');
    await axe(page, 'Setup tab right after a copy');
    await context.close();
  });

  test('the catch-all sandbox leads the list, marked, and mail sent with no login lands in it', async () => {
    await h.createSandbox('newest app');
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: h.server.ports.smtpInbound });
    await transport.sendMail({
      from: 'app@example.com',
      to: 'alice@example.com',
      subject: 'Caught',
      text: 'hi',
    });
    const { context, page } = await signedIn(h);
    const cards = page.getByRole('list', { name: 'Sandboxes' }).locator(':scope > li');
    await cards.first().getByText('catch-all: any address, no login').waitFor();
    assert.equal(await cards.first().getByRole('link').first().textContent(), 'catch-all');
    await screenshot(page, 'sandboxes-catch-all');
    await axe(page, 'Sandboxes page with the catch-all');
    await cards.first().getByRole('link', { name: 'catch-all', exact: true }).click();
    await page.getByText('Caught').first().waitFor();
    await context.close();
  });

  test('phone width and dark mode: every main view stays usable and passes axe-core', async () => {
    const sandbox = await h.createSandbox('small screens');
    await h.sendMail(sandbox, { subject: 'Dark and small', text: 'code 123456', html: '<p>code 123456</p>' });
    await h.capture(sandbox, '/phone', { method: 'POST', body: '{"a":1}' });
    const [message] = (await h.json('GET', `/sandboxes/${sandbox.id}/messages`)).items;
    const [request] = (await h.json('GET', `/sandboxes/${sandbox.id}/requests`)).items;
    const views: [string, string][] = [
      ['sandboxes', '/'],
      ['mail', `/s/${sandbox.id}`],
      ['message', `/s/${sandbox.id}/messages/${message.id}`],
      ['requests', `/s/${sandbox.id}/requests`],
      ['request', `/s/${sandbox.id}/requests/${request.id}`],
      ['rules', `/s/${sandbox.id}/rules`],
      ['setup', `/s/${sandbox.id}/setup`],
    ];
    for (const [label, options] of [
      ['phone', { viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true }],
      ['dark', { colorScheme: 'dark' as const }],
    ] as const) {
      const { context, page } = await signedIn(h, options);
      for (const [name, path] of views) {
        await page.goto(h.origin + path);
        await page.getByRole('heading').first().waitFor();
        await page.waitForTimeout(300);
        if (label === 'phone') {
          const overflow = await page.evaluate(() => {
            const d = (globalThis as any).document.documentElement;
            return d.scrollWidth - d.clientWidth;
          });
          assert.ok(overflow <= 1, `${name} at 375 px scrolls sideways by ${overflow} px`);
        }
        await screenshot(page, `${label}-${name}`);
        await axe(page, `${name} (${label})`);
      }
      await context.close();
    }
  });
});
