// The Rules tab in Chromium: add rules, a validation error from the API shown on the field it names, fix and
// save, reorder, preview which rule answers, and the saved rules answering real captures.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { axe, eventually, screenshot, signedIn, useDashboard } from './helpers.ts';

describe('dashboard mock rules', () => {
  const h = useDashboard();

  test('edit, see the API error on its field, save, reorder, preview; captures get the saved answers', async () => {
    const sandbox = await h.createSandbox('mocked api');
    const { context, page } = await signedIn(h);
    await page.goto(`${h.origin}/s/${sandbox.id}`);
    await page.getByRole('tab', { name: 'Rules', exact: true }).click();
    assert.equal(new URL(page.url()).pathname, `/s/${sandbox.id}/rules`);
    const rule = (n: number) => page.getByRole('group', { name: `Rule ${n}`, exact: true });

    await page.getByRole('button', { name: 'Add rule' }).click();
    await rule(1).getByLabel('Name', { exact: true }).fill('create user');
    await rule(1).getByLabel('Method', { exact: true }).fill('POST');
    await rule(1).getByLabel('Pattern', { exact: true }).fill('/users?bad');
    await rule(1).getByLabel('Status', { exact: true }).fill('201');
    await rule(1).getByLabel('Headers', { exact: true }).fill('Content-Type: application/json');
    await rule(1).getByLabel('Body', { exact: true }).fill('{"id":"{{uuid}}"}');
    await page.getByRole('button', { name: 'Save rules' }).click();

    const pattern = rule(1).getByLabel('Pattern', { exact: true });
    await eventually(
      'aria-invalid on Pattern',
      async () => (await pattern.getAttribute('aria-invalid')) === 'true',
    );
    const alert = rule(1).getByRole('alert');
    await alert.first().waitFor();
    assert.notEqual((await alert.first().innerText()).trim(), '');
    assert.notEqual(await rule(1).getByLabel('Name', { exact: true }).getAttribute('aria-invalid'), 'true');
    assert.deepEqual((await h.json('GET', `/sandboxes/${sandbox.id}`)).mocks, [], 'nothing saved');
    await screenshot(page, 'rules-error');
    await axe(page, 'Rules tab with a validation error');

    await pattern.fill('/users');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await rule(2).getByLabel('Name', { exact: true }).fill('otherwise');
    // A fallback answers any method and path: both left empty.
    await rule(2).getByLabel('Method', { exact: true }).fill('');
    await rule(2).getByLabel('Pattern', { exact: true }).fill('');
    await rule(2).getByLabel('Fallback', { exact: true }).check();
    await rule(2).getByLabel('Status', { exact: true }).fill('404');
    await rule(2).getByLabel('Body', { exact: true }).fill('no mock here');
    await page.getByRole('button', { name: 'Save rules' }).click();
    const saved = await eventually('the rules saved', async () => {
      const { mocks } = await h.json('GET', `/sandboxes/${sandbox.id}`);
      return mocks.length === 2 ? mocks : undefined;
    });
    assert.deepEqual(
      saved.map((m: any) => [m.name, m.method, m.pattern, m.statusCode, m.headers, m.isFallback]),
      [
        ['create user', 'POST', '/users', 201, { 'Content-Type': 'application/json' }, false],
        ['otherwise', saved[1].method, saved[1].pattern, 404, {}, true],
      ],
    );
    assert.notEqual(await pattern.getAttribute('aria-invalid'), 'true', 'the error is cleared');
    await screenshot(page, 'rules-saved');
    await axe(page, 'Rules tab');

    // The capture listener answers from the saved list.
    const created = await h.capture(sandbox, '/users', { method: 'POST', body: '{}' });
    assert.equal(created.status, 201);
    assert.match(await created.text(), /^\{"id":"[0-9a-f-]{36}"\}$/);
    const missing = await h.capture(sandbox, '/nothing');
    assert.equal(missing.status, 404);
    assert.equal(await missing.text(), 'no mock here');

    // Preview: which rule answers a method and path.
    await page.getByLabel('Preview method').fill('POST');
    await page.getByLabel('Preview path').fill('/users');
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    const status = page.getByRole('status').filter({ hasText: /201/ });
    await status.first().waitFor();
    assert.match(await status.first().innerText(), /create user|Rule 1/);
    await page.getByLabel('Preview method').fill('GET');
    await page.getByLabel('Preview path').fill('/elsewhere');
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    await page.getByRole('status').filter({ hasText: /404/ }).first().waitFor();
    await screenshot(page, 'rules-preview');

    // Reorder: the fallback moves up, and the saved order follows.
    await rule(2).getByRole('button', { name: 'Move up' }).click();
    assert.equal(await rule(1).getByLabel('Name', { exact: true }).inputValue(), 'otherwise');
    await page.getByRole('button', { name: 'Save rules' }).click();
    await eventually('the new order saved', async () => {
      const { mocks } = await h.json('GET', `/sandboxes/${sandbox.id}`);
      return mocks[0]?.name === 'otherwise';
    });

    // Remove, save, and the deep link shows what is saved after a reload.
    await rule(1).getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('button', { name: 'Save rules' }).click();
    await eventually('one rule left', async () => {
      const { mocks } = await h.json('GET', `/sandboxes/${sandbox.id}`);
      return mocks.length === 1 && mocks[0].name === 'create user';
    });
    await page.reload();
    await rule(1).getByLabel('Name', { exact: true }).waitFor();
    assert.equal(await rule(1).getByLabel('Name', { exact: true }).inputValue(), 'create user');
    assert.equal(await rule(2).count(), 0);
    await context.close();
  });
});
