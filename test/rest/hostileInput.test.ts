// Hostile input over REST, case by case (the fuzz in validationFuzz.test.ts finds them at random): lone
// surrogates in every stored text field, impossible and out-of-range instants on every `since`, and the tag
// limits. Each is a 400 whose `errors[].path` names the field, and the refused request changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

const LONE = '\ud800';

describeEachStore('REST hostile input', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let sandbox: Record<string, any>;

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace('hostile');
    sandbox = await ws.createSandbox({ name: 'target', tags: { team: 'a' } });
    const rules = [{ name: 'ok', pattern: '/ok', statusCode: 201, body: 'fine' }];
    const res = await ws.api(`/sandboxes/${sandbox.id}/mocks`, {
      method: 'PUT',
      body: JSON.stringify({ mocks: rules }),
    });
    assert.equal(res.status, 200);
    sandbox = (await res.json()) as Record<string, any>;
  });

  after(async () => {
    await server.close();
  });

  /** Everything a refused write could have touched. */
  async function state(): Promise<string> {
    const list = await (await ws.api('/sandboxes?limit=200')).json();
    const keys = (
      (await (await ws.api('/keys?limit=200')).json()) as { items: Array<Record<string, any>> }
    ).items.map(({ lastUsedAt: _a, lastUsedIp: _b, ...k }) => k);
    const detail = await (await ws.api(`/sandboxes/${sandbox.id}`)).json();
    return JSON.stringify({ list, keys, detail });
  }

  /** A 400 problem whose errors[] names `path` (and only well-formed text), with nothing changed. */
  async function refused(
    method: string,
    url: string,
    body: unknown,
    path: string | RegExp,
  ): Promise<Record<string, any>> {
    const before = await state();
    const res = await ws.api(url, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    assert.equal(res.status, 400, `${method} ${url} ${JSON.stringify(body)?.slice(0, 200)}: ${text}`);
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const problem = JSON.parse(text) as Record<string, any>;
    assert.equal(problem.type, 'urn:sandtrap:problem:validation-error');
    const paths = (problem.errors as Array<{ path: string }>).map((e) => e.path);
    assert.ok(
      paths.some((p) => (typeof path === 'string' ? p === path : path.test(p))),
      `errors name ${String(path)}: ${JSON.stringify(paths)}`,
    );
    assert.ok(text.isWellFormed(), 'the answer is well-formed text');
    assert.doesNotMatch(text, /invalid input syntax|syntax error|out of range|stack/i);
    assert.equal(await state(), before, 'nothing changed');
    return problem;
  }

  describe('lone surrogates are 400 naming the field, never 500', () => {
    it('in a tag value, a tag key and the name of a new sandbox', async () => {
      await refused('POST', '/sandboxes', { name: 'x', tags: { a: LONE } }, 'tags.a');
      await refused('POST', '/sandboxes', { name: 'x', tags: { [`k${LONE}`]: 'v' } }, 'tags.k\ufffd');
      const problem = await refused('POST', '/sandboxes', { name: `x${LONE}` }, 'name');
      assert.match(JSON.stringify(problem.errors), /lone surrogate/);
    });

    it('in the tags and the name of an update', async () => {
      const url = `/sandboxes/${sandbox.id}`;
      await refused('PUT', url, { name: null, tags: { a: `${LONE}b` } }, 'tags.a');
      await refused('PUT', url, { name: `\udfff`, tags: null }, 'name');
    });

    it('in a mock rule name, method, pattern, body, header name and header value', async () => {
      const url = `/sandboxes/${sandbox.id}/mocks`;
      const rule = { statusCode: 200 };
      await refused('PUT', url, { mocks: [{ ...rule, name: LONE }] }, 'mocks[0].name');
      await refused('PUT', url, { mocks: [{ ...rule, method: `GET${LONE}` }] }, 'mocks[0].method');
      await refused('PUT', url, { mocks: [rule, { ...rule, pattern: `/a${LONE}` }] }, 'mocks[1].pattern');
      await refused('PUT', url, { mocks: [{ ...rule, body: `{"a":"${LONE}"}` }] }, 'mocks[0].body');
      await refused(
        'PUT',
        url,
        { mocks: [{ ...rule, headers: { [`X-${LONE}`]: 'v' } }] },
        /^mocks\[0\]\.headers/,
      );
      await refused('PUT', url, { mocks: [{ ...rule, headers: { 'X-A': LONE } }] }, 'mocks[0].headers.X-A');
    });

    it('in a key label', async () => {
      await refused('POST', '/keys', { label: `ci ${LONE}` }, 'label');
    });

    it('a well-formed pair (an emoji) is ordinary text', async () => {
      const created = await ws.createSandbox({ name: 'emoji 😀', tags: { '😀': '\ud83d\ude00' } });
      assert.equal(created.name, 'emoji 😀');
      assert.deepEqual(created.tags, { '😀': '😀' });
      await ws.api(`/sandboxes/${created.id}`, { method: 'DELETE' });
    });
  });

  describe('impossible and out-of-range instants are 400 naming since, never 500', () => {
    const bad = [
      '0000-01-01T00:00:00Z',
      '0001-01-01T00:00:00Z',
      '1969-12-31T23:59:59Z',
      '9999-12-31T23:59:59-14:00',
      '+275760-09-13T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T00:00:00',
    ];
    const lists = (id: string) => [
      `/sandboxes/${id}/messages`,
      `/sandboxes/${id}/messages/wait?timeoutSeconds=0&`,
      `/sandboxes/${id}/requests/wait?timeoutSeconds=0&`,
    ];

    it('on the message list and both waits', async () => {
      for (const url of lists(sandbox.id)) {
        for (const since of bad) {
          const sep = url.endsWith('&') ? '' : '?';
          await refused('GET', `${url}${sep}since=${encodeURIComponent(since)}`, undefined, 'since');
        }
      }
    });

    it('the first and the last accepted instants are read by the store', async () => {
      for (const url of lists(sandbox.id)) {
        for (const since of [
          '1970-01-01T00:00:00Z',
          '9999-12-31T23:59:59.999Z',
          '9999-12-31T23:59:59+00:00',
        ]) {
          const sep = url.endsWith('&') ? '' : '?';
          const res = await ws.api(`${url}${sep}since=${encodeURIComponent(since)}`);
          assert.ok(res.status === 200 || res.status === 204, `${url} since=${since}: ${res.status}`);
        }
      }
    });
  });

  describe('tag limits (at most 50, keys 1-64, values up to 256)', () => {
    it('refuses 51 tags, an empty key, a 65-character key and a 257-character value, on create and update', async () => {
      const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
      for (const [method, url, name] of [
        ['POST', '/sandboxes', 'x'],
        ['PUT', `/sandboxes/${sandbox.id}`, null],
      ] as const) {
        await refused(method, url, { name, tags: many }, 'tags');
        await refused(method, url, { name, tags: { '': 'v' } }, 'tags.');
        await refused(method, url, { name, tags: { ['k'.repeat(65)]: 'v' } }, `tags.${'k'.repeat(65)}`);
        await refused(method, url, { name, tags: { a: 'v'.repeat(257) } }, 'tags.a');
      }
    });

    it('refuses deeply nested tag values with the tag named', async () => {
      const body = `{"name":"x","tags":{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`;
      const before = await state();
      const res = await ws.api('/sandboxes', { method: 'POST', body });
      assert.equal(res.status, 400);
      const problem = (await res.json()) as { errors: Array<{ path: string }> };
      assert.deepEqual(
        problem.errors.map((e) => e.path),
        ['tags.a'],
      );
      assert.equal(await state(), before);
    });
  });
});
