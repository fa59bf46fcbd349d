// The Requests tab in Chromium: a capture arrives live; its view shows query and headers as sent (order, case,
// duplicates) and the body as pretty JSON, form fields, files or hex; copy as curl replays the same request;
// download raw, HAR export of one and all, and the deep link after a reload.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { sendCapture } from '../helpers/captureClient.ts';
import { axe, eventually, screenshot, signedIn, useDashboard } from './helpers.ts';
import type { Harness, Sandbox } from './helpers.ts';

const JSON_BODY = '{"order":{"id":7,"items":["tea","milk"]}}';

async function requestList(h: Harness, sandbox: Sandbox): Promise<any[]> {
  return (await h.json('GET', `/sandboxes/${sandbox.id}/requests`)).items;
}

/** Rows of the table with this caption, each as its cells' texts. */
async function tableRows(page: Page, caption: string): Promise<string[][]> {
  const table = page.locator('table', { has: page.locator('caption', { hasText: caption }) }).first();
  await table.waitFor();
  return table.evaluate((t: any) =>
    [...t.querySelectorAll('tbody tr')].map((tr: any) =>
      [...tr.querySelectorAll('th, td')].map((c: any) => c.textContent.trim()),
    ),
  );
}

describe('dashboard requests', () => {
  const h = useDashboard();
  let sandbox: Sandbox;
  let capturePath: string;

  before(async () => {
    sandbox = await h.createSandbox('webhooks');
    capturePath = new URL(sandbox.captureUrl).pathname.replace(/\/$/, '');
  });

  test('a capture appears live; its view shows query, headers as sent and the JSON body pretty-printed', async () => {
    // A rule answers this one path, so the reply shown with the request is the rule's, not the default.
    await h.json('PUT', `/sandboxes/${sandbox.id}/mocks`, {
      mocks: [
        {
          name: 'queue order',
          method: 'POST',
          pattern: '/hooks/order',
          statusCode: 202,
          headers: { 'Content-Type': 'application/json', 'X-Queue': 'orders' },
          body: '{"queued":true}',
        },
      ],
    });
    const { context, page } = await signedIn(h);
    await page.goto(`${h.origin}/s/${sandbox.id}`);
    await page.getByRole('tab', { name: 'Requests', exact: true }).click();
    await page.evaluate(() => ((globalThis as any).__sameDocument = true));
    const sent = await sendCapture(h.server.ports.capture, {
      method: 'POST',
      path: `${capturePath}/hooks/order?a=1&a=2&b=x%20y`,
      headers: {
        'Content-Type': 'application/json',
        'X-Custom-Case': 'Keep',
        'x-dup': ['one', 'two'],
      },
      body: JSON_BODY,
    });
    assert.ok(sent.status < 500);
    const list = page.getByRole('list', { name: 'Requests' });
    const link = list.getByRole('link', { name: /^POST \/hooks\/order/ });
    await link.waitFor({ timeout: 10_000 });
    assert.equal(await page.evaluate(() => (globalThis as any).__sameDocument), true, 'no reload');
    await screenshot(page, 'requests-list');
    await axe(page, 'Requests list');

    await link.click();
    await page.getByRole('heading', { name: 'POST /hooks/order' }).waitFor();
    const [captured] = await requestList(h, sandbox);
    assert.equal(new URL(page.url()).pathname, `/s/${sandbox.id}/requests/${captured.id}`);

    const query = await tableRows(page, 'Query');
    assert.deepEqual(
      query.map((r) => r.slice(0, 2)),
      [
        ['a', '1'],
        ['a', '2'],
        ['b', 'x y'],
      ],
    );
    const headers = (await tableRows(page, 'Headers')).map((r) => r.slice(0, 2));
    const names = headers.map((r) => r[0]);
    assert.ok(names.includes('X-Custom-Case'), `header case kept: ${JSON.stringify(names)}`);
    assert.ok(!names.includes('x-custom-case'));
    const dups = headers.filter((r) => r[0] === 'x-dup').map((r) => r[1]);
    assert.deepEqual(dups, ['one', 'two'], 'duplicates kept, in order');
    assert.ok(
      names.indexOf('Content-Type') < names.indexOf('X-Custom-Case') &&
        names.indexOf('X-Custom-Case') < names.indexOf('x-dup'),
      `order kept: ${JSON.stringify(names)}`,
    );
    const bodyText = await page.getByRole('region', { name: 'Body' }).innerText();
    assert.ok(bodyText.includes(JSON.stringify(JSON.parse(JSON_BODY), null, 2)), bodyText);
    // The reply the rule sent, with the request: status, headers and body as they went out.
    await page.getByText('202 by rule “queue order”').waitFor();
    const reply = page.getByRole('region', { name: 'Reply sent' });
    await reply.getByText('202', { exact: true }).waitFor();
    const replyHeaders = (await tableRows(page, 'Reply headers')).map((r) => r.slice(0, 2));
    assert.deepEqual(
      replyHeaders.find((r) => r[0] === 'X-Queue'),
      ['X-Queue', 'orders'],
    );
    assert.match(await reply.innerText(), /"queued": true/);
    await screenshot(page, 'request-json');
    await axe(page, 'request view (JSON)');

    // Deep link: the request view survives a reload.
    await page.reload();
    await page.getByRole('heading', { name: 'POST /hooks/order' }).waitFor();
    await context.close();
  });

  test('a form body as a table, multipart files listed, binary as hex', async () => {
    await h.capture(sandbox, '/form', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=Ada&lang=en&lang=fr',
    });
    const multipart = new FormData();
    multipart.append('title', 'report');
    multipart.append('file', new Blob(['hello file'], { type: 'text/plain' }), 'notes.txt');
    await h.capture(sandbox, '/upload', { method: 'POST', body: multipart });
    await h.capture(sandbox, '/bin', {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body: new Uint8Array([0xde, 0xad, 0xbe, 0xef, 0x00, 0x01]),
    });
    const { context, page } = await signedIn(h);
    await page.goto(`${h.origin}/s/${sandbox.id}/requests`);
    const list = page.getByRole('list', { name: 'Requests' });

    await list.getByRole('link', { name: /^POST \/form/ }).click();
    await page.getByRole('heading', { name: 'POST /form' }).waitFor();
    assert.deepEqual(
      (await tableRows(page, 'Form')).map((r) => r.slice(0, 2)),
      [
        ['name', 'Ada'],
        ['lang', 'en'],
        ['lang', 'fr'],
      ],
    );
    await screenshot(page, 'request-form');
    await axe(page, 'request view (form)');

    await page.goBack();
    await list.getByRole('link', { name: /^POST \/upload/ }).click();
    await page.getByRole('heading', { name: 'POST /upload' }).waitFor();
    await page.getByText('notes.txt').first().waitFor();
    await screenshot(page, 'request-multipart');
    await axe(page, 'request view (multipart)');

    await page.goBack();
    await list.getByRole('link', { name: /^PUT \/bin/ }).click();
    await page.getByRole('heading', { name: 'PUT /bin' }).waitFor();
    await eventually('the body in hex', async () =>
      /de\s?ad\s?be\s?ef\s?00\s?01/i.test(await page.getByRole('region', { name: 'Body' }).innerText()),
    );
    await screenshot(page, 'request-binary');
    await axe(page, 'request view (binary)');
    await context.close();
  });

  test('copy as curl replays the same request; download raw; export one and all as HAR', async () => {
    await sendCapture(h.server.ports.capture, {
      method: 'POST',
      path: `${capturePath}/replay/me?q=1`,
      headers: { 'Content-Type': 'application/json', 'X-Replay': 'yes' },
      body: '{"say":"it\'s $HOME"}',
    });
    const [original] = await requestList(h, sandbox);
    assert.equal(original.path, '/replay/me');
    const { context, page } = await signedIn(h);
    await page.goto(`${h.origin}/s/${sandbox.id}/requests/${original.id}`);
    await page.getByRole('heading', { name: 'POST /replay/me' }).waitFor();

    await page.getByRole('button', { name: 'Copy as curl' }).click();
    const curl: string = await page.evaluate(() => (globalThis as any).navigator.clipboard.readText());
    assert.match(curl, /^curl /);
    // The command runs as a person would paste it, and the sandbox captures the same request again.
    const run = spawnSync('bash', ['-c', curl], { encoding: 'utf8', timeout: 15_000 });
    assert.equal(run.status, 0, `${curl}\n${run.stderr}`);
    const replayed = await eventually('the replayed capture', async () => {
      const items = await requestList(h, sandbox);
      return items.length > 0 && items[0].id !== original.id ? items[0] : undefined;
    });
    const [a, b] = await Promise.all(
      [original.id, replayed.id].map((id) => h.json('GET', `/sandboxes/${sandbox.id}/requests/${id}`)),
    );
    assert.equal(b.method, a.method);
    assert.equal(b.path, a.path);
    assert.equal(b.query, a.query);
    assert.equal(b.body, a.body);
    const sentHeaders = (d: any) =>
      (d.headers as { name: string; value: string }[])
        .filter((x) => /^(content-type|x-replay)$/i.test(x.name))
        .map((x) => `${x.name.toLowerCase()}: ${x.value}`)
        .sort();
    assert.deepEqual(sentHeaders(b), sentHeaders(a));

    const download = async (name: string) => {
      const [file] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name, exact: true }).click(),
      ]);
      return readFileSync((await file.path()) ?? assert.fail(`${name}: no file`), 'utf8');
    };
    await screenshot(page, 'request-after-curl');
    const raw = await download('Download raw');
    assert.ok(raw.includes('{"say":"it\'s $HOME"}'), raw);
    const har = JSON.parse(await download('Export HAR'));
    assert.equal(har.log.entries.length, 1);
    assert.equal(har.log.entries[0].request.method, 'POST');
    assert.match(har.log.entries[0].request.url, /\/replay\/me\?q=1$/);

    await page.goto(`${h.origin}/s/${sandbox.id}/requests`);
    await page.getByRole('list', { name: 'Requests' }).getByRole('link').first().waitFor();
    const all = JSON.parse(await download('Export all as HAR'));
    assert.equal(all.log.entries.length, (await requestList(h, sandbox)).length);
    await context.close();
  });
});
