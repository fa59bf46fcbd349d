// The Webhooks page in Chromium: reached from the header, the empty state, the form creating a webhook scoped
// to one sandbox (its secret shown once), a captured request and a ping reaching a receiver started here (each
// signature verified with the standardwebhooks package), the delivery log, and deleting it; axe-core and
// screenshots, also on a 375 px phone in dark mode with no sideways scroll.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { axe, screenshot, signedIn, useDashboard } from './helpers.ts';

interface Receiver {
  url: string;
  secret: string | undefined;
  /** Verified deliveries' event types, in arrival order. */
  types: string[];
  rejected: number;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const r: Receiver = { url: '', secret: undefined, types: [], rejected: 0, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const payload = new Webhook(r.secret ?? '').verify(
          Buffer.concat(chunks).toString('utf8'),
          req.headers as Record<string, string>,
        ) as { type: string };
        r.types.push(payload.type);
      } catch {
        r.rejected++;
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  r.close = () => new Promise((resolve) => server.close(() => resolve()));
  return r;
}

describe('Webhooks', () => {
  const h = useDashboard();
  let receiver: Receiver;

  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver?.close();
  });

  test('create one for a sandbox, see its secret once, deliveries and a ping arrive signed, delete it', async () => {
    const sandbox = await h.json('POST', '/sandboxes', { name: 'hooked sandbox' });
    const { context, page } = await signedIn(h);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', exact: true }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/webhooks');
    await page.getByText('No webhooks yet.').waitFor();
    await axe(page, 'webhooks, empty');

    await page.getByRole('button', { name: 'New webhook' }).click();
    const form = page.getByRole('form', { name: 'New webhook' });
    await form.getByLabel('Target URL', { exact: true }).fill(receiver.url);
    await form.getByLabel('Sandbox', { exact: true }).selectOption({ label: 'hooked sandbox' });
    await form.getByLabel('message.received', { exact: true }).uncheck();
    await form.getByLabel('Description', { exact: true }).fill('CI listener');
    await form.getByRole('button', { name: 'Create' }).click();

    const secret = (await page.locator('.secret-once .secret-row code').textContent()) ?? '';
    assert.match(secret, /^whsec_/);
    receiver.secret = secret;
    const [hook] = (await h.json('GET', '/webhooks')).items;
    assert.equal(hook.url, receiver.url);
    assert.equal(hook.sandboxId, sandbox.id);
    assert.deepEqual(hook.events, ['request.received']);
    assert.equal('secret' in hook, false, 'the API never shows it again');
    await page.getByRole('button', { name: 'Done' }).click();
    assert.equal(await page.locator('.secret-once').count(), 0, 'the secret is gone from the page');

    const card = page.getByRole('listitem').filter({ hasText: receiver.url });
    await card.getByText('hooked sandbox').waitFor();
    await fetch(sandbox.captureUrl + '/paid', { method: 'POST', body: '{}' });
    await card.getByRole('button', { name: 'Send ping' }).click();
    await card.getByText(/Ping queued as /).waitFor();
    for (let i = 0; receiver.types.length < 2; i++) {
      assert.ok(i < 400, `two deliveries, got ${JSON.stringify(receiver.types)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual([...receiver.types].sort(), ['request.received', 'webhook.ping']);
    assert.equal(receiver.rejected, 0);

    await card.getByRole('button', { name: 'Show deliveries' }).click();
    const rows = card.locator('table.deliveries tbody tr');
    await rows.nth(1).waitFor();
    const text = await card.locator('table.deliveries').innerText();
    assert.match(text, /request\.received/);
    assert.match(text, /webhook\.ping/);
    assert.match(text, /delivered/);
    assert.match(text, /204/);
    await axe(page, 'webhooks, one with its deliveries');
    await screenshot(page, 'webhooks');

    await card.getByRole('button', { name: /^Delete/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No webhooks yet.').waitFor();
    assert.deepEqual((await h.json('GET', '/webhooks')).items, []);
    await context.close();
  });

  test('on a phone in dark mode the page fits without sideways scroll and passes axe-core', async () => {
    const made = await h.json('POST', '/webhooks', {
      url: receiver.url,
      events: ['message.received', 'request.received', 'sandbox.created'],
      description: 'A webhook whose description is long enough that it has to wrap on a phone screen',
    });
    const { context, page } = await signedIn(h, {
      viewport: { width: 375, height: 740 },
      isMobile: true,
      hasTouch: true,
      colorScheme: 'dark',
    });
    await page.goto(`${h.origin}/webhooks`);
    await page.getByRole('list', { name: 'Webhooks' }).waitFor();
    await page.getByRole('button', { name: 'Show deliveries' }).click();
    await page.getByText('No deliveries yet.').waitFor();
    const header = await page.locator('header.top').boundingBox();
    assert.ok(header && header.height < 60, `the header stays one line: ${header?.height} px`);
    const { scroll, client, wide } = await page.evaluate(() => {
      const doc = (globalThis as any).document;
      const root = doc.documentElement;
      const wide = [...doc.querySelectorAll('body *')]
        .filter((e: any) => e.getBoundingClientRect().right > root.clientWidth + 1)
        .slice(0, 5)
        .map((e: any) => `${e.tagName.toLowerCase()}.${e.className}`);
      return { scroll: root.scrollWidth as number, client: root.clientWidth as number, wide };
    });
    assert.ok(
      scroll <= client,
      `the page scrolls sideways at 375 px: ${scroll} > ${client} (${wide.join(', ')})`,
    );
    await axe(page, 'webhooks (phone, dark)');
    await screenshot(page, 'webhooks-phone-dark');
    await h.json('DELETE', `/webhooks/${made.id}`);
    await context.close();
  });
});
