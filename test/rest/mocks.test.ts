// REST PUT /api/v1/sandboxes/{id}/mocks: replaces the whole ordered rule list (design section 5).
// Normalisation of what is stored, every accepted pattern and template form, every validation failure
// (with its `mocks[i].field` path and the previous list left in place), isolation and authentication.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { components } from '../../openapi/schema.d.ts';
import { generateApiKey } from '../../src/core/apiKeyFormat.ts';
import { createTestApi, type TestApi, type TestWorkspace } from '../helpers/api.ts';
import { assertProblem, assertValidation, type Problem } from '../helpers/injectProblems.ts';
import { UUID_RE } from '../helpers/shapes.ts';
import { describeEachStore } from '../helpers/stores.ts';

type Sandbox = components['schemas']['Sandbox'];
type MockRule = components['schemas']['MockRule'];
type RuleInput = Record<string, unknown>;

const BASE = '/api/v1/sandboxes';

async function createSandbox(ws: TestWorkspace, name = 'mocked'): Promise<Sandbox> {
  const res = await ws.call({ method: 'POST', url: BASE, payload: { name } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<Sandbox>();
}

function putMocks(ws: TestWorkspace, id: string, payload: unknown): Promise<LightMyRequestResponse> {
  return ws.call({ method: 'PUT', url: `${BASE}/${id}/mocks`, payload: payload as object });
}

async function setMocks(ws: TestWorkspace, id: string, mocks: RuleInput[]): Promise<Sandbox> {
  const res = await putMocks(ws, id, { mocks });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Sandbox>();
}

async function readMocks(ws: TestWorkspace, id: string): Promise<MockRule[]> {
  const res = await ws.call({ method: 'GET', url: `${BASE}/${id}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Sandbox>().mocks;
}

/** A valid rule list put in place before each refused update, so the test can see nothing changed. */
const PREVIOUS: RuleInput[] = [
  { name: 'existing', method: 'GET', pattern: '/existing', statusCode: 200, body: 'old' },
  { isFallback: true, statusCode: 404 },
];

const VALID: RuleInput = { method: 'GET', pattern: '/ok', statusCode: 200 };

describeEachStore('REST sandbox mocks', (getStore) => {
  let api: TestApi;

  before(async () => {
    api = await createTestApi(getStore());
  });
  after(async () => {
    await api.close();
  });

  /** A fresh workspace and sandbox holding PREVIOUS. */
  async function seeded(): Promise<{ ws: TestWorkspace; sandbox: Sandbox; previous: MockRule[] }> {
    const ws = await api.workspace();
    const sandbox = await createSandbox(ws);
    const previous = (await setMocks(ws, sandbox.id, PREVIOUS)).mocks;
    assert.equal(previous.length, 2);
    return { ws, sandbox, previous };
  }

  /** PUTs `payload`, expects a 400 naming exactly `paths`, and checks the stored list is unchanged. */
  async function rejects(payload: unknown, paths: string[]): Promise<Problem> {
    const { ws, sandbox, previous } = await seeded();
    const problem = assertValidation(await putMocks(ws, sandbox.id, payload), paths);
    assert.deepEqual(await readMocks(ws, sandbox.id), previous, 'the previous rule list is still stored');
    return problem;
  }

  /** The bad rule goes second, after a valid one, so the index in the path is checked too. */
  function rejectsRule(rule: RuleInput, field: string): Promise<Problem> {
    return rejects({ mocks: [VALID, rule] }, [`mocks[1].${field}`]);
  }

  async function accepts(mocks: RuleInput[]): Promise<MockRule[]> {
    const ws = await api.workspace();
    const sandbox = await createSandbox(ws);
    const stored = (await setMocks(ws, sandbox.id, mocks)).mocks;
    assert.deepEqual(await readMocks(ws, sandbox.id), stored);
    return stored;
  }

  describe('200', () => {
    it('stores a valid list in order, normalised, with ids', async () => {
      const ws = await api.workspace();
      const sandbox = await createSandbox(ws, 'normalise');
      const keptId = randomUUID();
      const res = await putMocks(ws, sandbox.id, {
        mocks: [
          {
            id: keptId,
            name: 'user by id',
            method: 'get',
            pattern: '/users/{id}',
            statusCode: 200,
            headers: { 'Content-Type': 'application/json', 'X-Trace': '{{request.id}}' },
            body: '{"id":"{{path.id}}"}',
          },
          { method: null, pattern: null, statusCode: 201, headers: null, body: null },
          { method: '', pattern: '', statusCode: 202 },
          { method: '*', pattern: '/a/b', statusCode: 203, isFallback: false },
          { method: 'any', pattern: '**', statusCode: 204 },
          { method: 'Post', pattern: '/hooks', statusCode: '418', name: null },
          { isFallback: true, statusCode: 404, body: 'not mocked' },
        ],
      });
      assert.equal(res.statusCode, 200, res.body);
      const returned = res.json<Sandbox>();
      assert.equal(returned.id, sandbox.id);
      assert.equal(returned.name, 'normalise');
      assert.equal(returned.smtpPassword, sandbox.smtpPassword);

      const mocks = returned.mocks;
      assert.equal(mocks.length, 7);
      assert.equal(mocks[0]?.id, keptId, 'a sent id is kept');
      for (const m of mocks.slice(1)) assert.match(m.id, UUID_RE, 'a missing id is generated');
      assert.equal(new Set(mocks.map((m) => m.id)).size, 7, 'ids are distinct');

      const withoutIds = mocks.map(({ id: _id, ...rest }) => rest);
      assert.deepEqual(withoutIds, [
        {
          name: 'user by id',
          method: 'GET',
          pattern: '/users/{id}',
          statusCode: 200,
          headers: { 'Content-Type': 'application/json', 'X-Trace': '{{request.id}}' },
          body: '{"id":"{{path.id}}"}',
          isFallback: false,
        },
        {
          name: 'ANY /**',
          method: 'ANY',
          pattern: '/**',
          statusCode: 201,
          headers: {},
          body: null,
          isFallback: false,
        },
        {
          name: 'ANY /**',
          method: 'ANY',
          pattern: '/**',
          statusCode: 202,
          headers: {},
          body: null,
          isFallback: false,
        },
        {
          name: 'ANY /a/b',
          method: 'ANY',
          pattern: '/a/b',
          statusCode: 203,
          headers: {},
          body: null,
          isFallback: false,
        },
        {
          name: 'ANY /**',
          method: 'ANY',
          pattern: '/**',
          statusCode: 204,
          headers: {},
          body: null,
          isFallback: false,
        },
        {
          name: 'POST /hooks',
          method: 'POST',
          pattern: '/hooks',
          statusCode: 418,
          headers: {},
          body: null,
          isFallback: false,
        },
        {
          name: 'fallback',
          method: 'ANY',
          pattern: '/**',
          statusCode: 404,
          headers: {},
          body: 'not mocked',
          isFallback: true,
        },
      ]);
      assert.deepEqual(await readMocks(ws, sandbox.id), mocks, 'GET returns the stored list');
    });

    it('keeps ids across updates when they are sent back, and generates new ones otherwise', async () => {
      const ws = await api.workspace();
      const sandbox = await createSandbox(ws);
      const first = (await setMocks(ws, sandbox.id, [{ statusCode: 200, pattern: '/a' }])).mocks;
      const firstId = first[0]?.id as string;
      const second = (
        await setMocks(ws, sandbox.id, [
          { id: firstId, statusCode: 201, pattern: '/a' },
          { statusCode: 202, pattern: '/b' },
        ])
      ).mocks;
      assert.equal(second[0]?.id, firstId);
      assert.equal(second[0]?.statusCode, 201);
      assert.notEqual(second[1]?.id, firstId);
      const third = (await setMocks(ws, sandbox.id, [{ statusCode: 200, pattern: '/a' }])).mocks;
      assert.notEqual(third[0]?.id, firstId, 'a rule sent without id is a new rule');
    });

    it('a shorter list replaces the longer one; rules not sent are gone', async () => {
      const ws = await api.workspace();
      const sandbox = await createSandbox(ws);
      const three = (
        await setMocks(ws, sandbox.id, [
          { name: 'one', pattern: '/1', statusCode: 200 },
          { name: 'two', pattern: '/2', statusCode: 200 },
          { name: 'three', pattern: '/3', statusCode: 200 },
        ])
      ).mocks;
      assert.equal(three.length, 3);
      const replaced = (
        await setMocks(ws, sandbox.id, [{ id: three[2]?.id, name: 'three', pattern: '/3', statusCode: 201 }])
      ).mocks;
      assert.equal(replaced.length, 1);
      const read = await readMocks(ws, sandbox.id);
      assert.deepEqual(read, replaced);
      assert.deepEqual(
        read.map((m) => [m.id, m.name, m.statusCode]),
        [[three[2]?.id, 'three', 201]],
      );
    });

    it('{mocks: []} clears the list', async () => {
      const { ws, sandbox } = await seeded();
      const cleared = await setMocks(ws, sandbox.id, []);
      assert.deepEqual(cleared.mocks, []);
      assert.deepEqual(await readMocks(ws, sandbox.id), []);
    });

    it('leaves the sandbox itself (name, tags, password, expiry) unchanged', async () => {
      const ws = await api.workspace();
      const res = await ws.call({
        method: 'POST',
        url: BASE,
        payload: { name: 'keep', tags: { a: 'b' }, ephemeral: true, ttlMinutes: 5 },
      });
      const sandbox = res.json<Sandbox>();
      const updated = await setMocks(ws, sandbox.id, [{ statusCode: 200 }]);
      assert.deepEqual({ ...updated, mocks: [] }, sandbox);
    });

    it('accepts every pattern form, stored as sent', async () => {
      const patterns = [
        '/a/b',
        '/users/{name}',
        '/files/*',
        '/static/**',
        '/docs/{rest*}',
        'regex:^/x/(?P<id>\\d+)$',
        '/a%20b/c',
        '/',
      ];
      const stored = await accepts(patterns.map((pattern) => ({ pattern, statusCode: 200 })));
      assert.deepEqual(
        stored.map((m) => m.pattern),
        patterns,
      );
      assert.deepEqual(
        stored.map((m) => m.name),
        patterns.map((p) => `ANY ${p}`),
      );
    });

    it('stores Express-style :name segments in the {name} form, and keeps other colons literal', async () => {
      const stored = await accepts([
        { pattern: '/v1/users/:id', statusCode: 200 },
        { pattern: '/v1/:org/files/:path*', statusCode: 200 },
        { pattern: '/v1/a:b', statusCode: 200 },
        { pattern: '/v1/things/x:cancel/:', statusCode: 200 },
        { pattern: 'regex:^/v1/(?P<id>[^:/]+):go$', statusCode: 200 },
      ]);
      assert.deepEqual(
        stored.map((m) => m.pattern),
        [
          '/v1/users/{id}',
          '/v1/{org}/files/{path*}',
          '/v1/a:b',
          '/v1/things/x:cancel/:',
          'regex:^/v1/(?P<id>[^:/]+):go$',
        ],
      );
      assert.equal(stored[0]?.name, 'ANY /v1/users/{id}', 'the default name uses the stored form');
    });

    it('a fallback may spell its any-method and any-path explicitly', async () => {
      const stored = await accepts([
        { statusCode: 200, pattern: '/x' },
        { isFallback: true, method: '*', pattern: '/**', statusCode: 503, name: 'catch all' },
      ]);
      assert.equal(stored[1]?.isFallback, true);
      assert.equal(stored[1]?.method, 'ANY');
      assert.equal(stored[1]?.pattern, '/**');
      assert.equal(stored[1]?.name, 'catch all');
    });

    const templates = [
      '{{uuid}}',
      '{{now}}',
      '{{ now }}',
      '{{request.id}}',
      '{{method}}',
      '{{body}}',
      '{{body.a.b[0]}}',
      '{{body["odd.key"]}}',
      '{{query.x}}',
      '{{header.x-api-key}}',
      '{{path.id}}',
      '{{body.x ?? "none" | json}}',
      '{{body | base64 | url}}',
      '{{query.q | html}}',
      '{"id":"{{uuid}}","at":"{{now}}","echo":{{body.name | json}}}',
    ];
    for (const template of templates) {
      it(`accepts the template ${template} in a body and a header value`, async () => {
        const stored = await accepts([{ statusCode: 200, body: template, headers: { 'X-Echo': template } }]);
        assert.equal(stored[0]?.body, template);
        assert.deepEqual(stored[0]?.headers, { 'X-Echo': template });
      });
    }

    it('accepts values at their upper bounds', async () => {
      const stored = await accepts([
        {
          name: 'n'.repeat(120),
          method: 'ABCDEFGHIJKLMNOP',
          pattern: `/${'p'.repeat(511)}`,
          statusCode: 100,
          body: 'b'.repeat(65536),
        },
        { statusCode: 599 },
      ]);
      assert.equal(stored[0]?.name.length, 120);
      assert.equal(stored[0]?.method, 'ABCDEFGHIJKLMNOP');
      assert.equal(stored[0]?.pattern.length, 512);
      assert.equal(stored[0]?.statusCode, 100);
      assert.equal(stored[0]?.body?.length, 65536);
      assert.equal(stored[1]?.statusCode, 599);
    });

    it('accepts 100 rules, in order', async () => {
      const mocks = Array.from({ length: 100 }, (_, i) => ({
        pattern: `/r/${i}`,
        statusCode: 200 + (i % 50),
      }));
      const stored = await accepts(mocks);
      assert.equal(stored.length, 100);
      assert.deepEqual(
        stored.map((m) => m.pattern),
        mocks.map((m) => m.pattern),
      );
    });
  });

  describe('400', () => {
    describe('the request body', () => {
      it('mocks missing is refused naming mocks', async () => {
        await rejects({}, ['mocks']);
      });

      it('mocks: null is refused naming mocks', async () => {
        await rejects({ mocks: null }, ['mocks']);
      });

      it('mocks as an object is refused naming mocks', async () => {
        await rejects({ mocks: { statusCode: 200 } }, ['mocks']);
      });

      it('101 rules are refused naming mocks', async () => {
        await rejects({ mocks: Array.from({ length: 101 }, () => ({ statusCode: 200 })) }, ['mocks']);
      });

      it('a rule that is not an object is refused naming it', async () => {
        await rejects({ mocks: [VALID, 'GET /x 200'] }, ['mocks[1]']);
      });

      it('invalid JSON is a 400 problem and nothing changes', async () => {
        const { ws, sandbox, previous } = await seeded();
        const res = await ws.call({
          method: 'PUT',
          url: `${BASE}/${sandbox.id}/mocks`,
          headers: { 'content-type': 'application/json' },
          payload: '{"mocks": [',
        });
        assertProblem(res, 400, 'validation-error');
        assert.deepEqual(await readMocks(ws, sandbox.id), previous);
      });

      it('a non-JSON content type is a 400 problem and nothing changes', async () => {
        const { ws, sandbox, previous } = await seeded();
        const res = await ws.call({
          method: 'PUT',
          url: `${BASE}/${sandbox.id}/mocks`,
          headers: { 'content-type': 'text/plain' },
          payload: '{"mocks": []}',
        });
        assertProblem(res, 400, 'validation-error');
        assert.deepEqual(await readMocks(ws, sandbox.id), previous);
      });

      it('a malformed sandbox id is refused naming id', async () => {
        const { ws, sandbox, previous } = await seeded();
        assertValidation(await putMocks(ws, 'not-a-uuid', { mocks: [] }), ['id']);
        assert.deepEqual(await readMocks(ws, sandbox.id), previous);
      });
    });

    describe('statusCode', () => {
      for (const statusCode of [99, 600, 'abc', 200.5, -200, null]) {
        it(`statusCode ${JSON.stringify(statusCode)} is refused`, async () => {
          await rejectsRule({ statusCode }, 'statusCode');
        });
      }
      it('a missing statusCode is refused', async () => {
        await rejectsRule({ method: 'GET', pattern: '/x' }, 'statusCode');
      });
    });

    describe('name and method', () => {
      it('a name of 121 characters is refused', async () => {
        await rejectsRule({ statusCode: 200, name: 'n'.repeat(121) }, 'name');
      });
      it('a method of 17 characters is refused', async () => {
        await rejectsRule({ statusCode: 200, method: 'ABCDEFGHIJKLMNOPQ' }, 'method');
      });
      it('a method that is not an HTTP token ("GE T") is refused', async () => {
        await rejectsRule({ statusCode: 200, method: 'GE T' }, 'method');
      });
      it('a method with a slash is refused', async () => {
        await rejectsRule({ statusCode: 200, method: 'GET/' }, 'method');
      });
      it('a name containing U+0000 is refused, not a 500', async () => {
        await rejectsRule({ statusCode: 200, name: 'a\u0000b' }, 'name');
      });
    });

    describe('pattern', () => {
      const bad: [string, string][] = [
        ['513 characters', `/${'p'.repeat(512)}`],
        ['a ?', '/search?q=1'],
        ['a #', '/page#top'],
        ['two **', '/a/**/b/**'],
        ['** and {rest*}', '/a/**/{rest*}'],
        ['{1bad}', '/users/{1bad}'],
        ['a{b}c', '/a{b}c'],
        ['text mixed with *', '/files/*.txt'],
        ['a repeated parameter', '/{id}/{id}'],
        ['a {__proto__} parameter', '/{__proto__}'],
        ['broken percent-encoding', '/%zz'],
        ['regex:(unclosed', 'regex:(unclosed'],
        ['a back-reference regex:(?<n>a)\\1', 'regex:(?<n>a)\\1'],
        ['an empty regex:', 'regex:'],
        ['two :params in one segment', '/range/:from-:to'],
        ['a :param with a suffix', '/files/:name.json'],
        ['an optional :param?', '/users/:id?'],
        ['a one-or-more :param+', '/docs/:path+'],
        ['a :__proto__ parameter', '/:__proto__'],
        ['a repeated :param', '/:id/{id}'],
      ];
      for (const [what, pattern] of bad) {
        it(`a pattern with ${what} is refused`, async () => {
          await rejectsRule({ statusCode: 200, pattern }, 'pattern');
        });
      }

      it('an Express-style segment that is not a whole :name is refused naming the form to write', async () => {
        const cases: Array<[string, RegExp]> = [
          ['/range/:from-:to', /\{from\}.*regex:/],
          ['/users/:id?', /optional parameter.*\{id\*\}/],
          ['/docs/:path+', /\{path\*\}/],
        ];
        for (const [pattern, message] of cases) {
          const problem = await rejectsRule({ statusCode: 200, pattern }, 'pattern');
          const errors = (problem as { errors: Array<{ path: string; message: string }> }).errors;
          assert.match(errors[0]?.message ?? '', message, pattern);
        }
      });
    });

    describe('body', () => {
      it('a body of 65537 characters is refused', async () => {
        await rejectsRule({ statusCode: 200, body: 'b'.repeat(65537) }, 'body');
      });
      it('a body containing U+0000 is refused, not a 500', async () => {
        await rejectsRule({ statusCode: 200, body: 'a\u0000b' }, 'body');
      });
    });

    describe('fallback and ids', () => {
      it('two fallback rules are refused, naming the second', async () => {
        await rejects(
          {
            mocks: [VALID, { isFallback: true, statusCode: 404 }, { isFallback: true, statusCode: 410 }],
          },
          ['mocks[2].isFallback'],
        );
      });

      it('a fallback with a method is refused', async () => {
        await rejectsRule({ isFallback: true, method: 'GET', statusCode: 404 }, 'isFallback');
      });

      it('a fallback with a pattern is refused', async () => {
        await rejectsRule({ isFallback: true, pattern: '/x', statusCode: 404 }, 'isFallback');
      });

      it('duplicate ids are refused, naming the repeat', async () => {
        const id = randomUUID();
        await rejects(
          {
            mocks: [
              { id, statusCode: 200, pattern: '/a' },
              { id, statusCode: 200, pattern: '/b' },
            ],
          },
          ['mocks[1].id'],
        );
      });

      it('ids that differ only in case are duplicates', async () => {
        const id = randomUUID();
        await rejects(
          {
            mocks: [
              { id, statusCode: 200, pattern: '/a' },
              { id: id.toUpperCase(), statusCode: 200, pattern: '/b' },
            ],
          },
          ['mocks[1].id'],
        );
      });

      it('an id that is not a uuid is refused', async () => {
        await rejectsRule({ id: 'rule-1', statusCode: 200 }, 'id');
      });
    });

    describe('headers', () => {
      it('a header name with a space is refused', async () => {
        await rejects({ mocks: [{ statusCode: 200, headers: { 'X Bad': 'v' } }] }, [
          'mocks[0].headers.X Bad',
        ]);
      });

      for (const name of ['Content-Length', 'transfer-encoding', 'Connection']) {
        it(`the framing header ${name} is refused`, async () => {
          await rejects({ mocks: [{ statusCode: 200, headers: { [name]: '10' } }] }, [
            `mocks[0].headers.${name}`,
          ]);
        });
      }

      for (const [what, value] of [
        ['CR LF', 'a\r\nInjected: yes'],
        ['LF', 'a\nb'],
        ['CR', 'a\rb'],
      ] as const) {
        it(`a header value with ${what} is refused`, async () => {
          await rejects({ mocks: [{ statusCode: 200, headers: { 'X-Bad': value } }] }, [
            'mocks[0].headers.X-Bad',
          ]);
        });
      }

      it('a header value that is not a string is refused', async () => {
        await rejects({ mocks: [{ statusCode: 200, headers: { 'X-Num': 5 } }] }, ['mocks[0].headers.X-Num']);
      });

      it('a header value with a bad template is refused', async () => {
        await rejects({ mocks: [{ statusCode: 200, headers: { 'X-T': '{{nope}}' } }] }, [
          'mocks[0].headers.X-T',
        ]);
      });
    });

    describe('templates', () => {
      const bad = [
        '{{unknown}}',
        '{{body.__proto__}}',
        '{{body.constructor}}',
        '{{body.prototype}}',
        '{{body["__proto__"]}}',
        '{{body.a["constructor"]}}',
        '{{query.constructor}}',
        '{{query}}',
        '{{header}}',
        '{{path.a.b}}',
        '{{uuid.x}}',
        '{{now | nope}}',
        '{{uuid',
        'ok {{uuid}} then {{now',
        '{{request.foo}}',
        '{{request}}',
        '{{}}',
        '{{body ?? none}}',
        '{{body["unterminated]}}',
      ];
      for (const template of bad) {
        it(`the template ${template} is refused`, async () => {
          await rejectsRule({ statusCode: 200, body: template }, 'body');
        });
      }
    });

    describe('several errors at once', () => {
      it('two rules with bad patterns give two entries', async () => {
        const problem = await rejects(
          {
            mocks: [{ statusCode: 200, pattern: '/a?b' }, VALID, { statusCode: 200, pattern: 'regex:(' }],
          },
          ['mocks[0].pattern', 'mocks[2].pattern'],
        );
        assert.equal(problem.errors?.length, 2);
      });

      it('two rules with schema errors give two entries', async () => {
        const problem = await rejects(
          { mocks: [{ statusCode: 99 }, { statusCode: 200, name: 'n'.repeat(121) }] },
          ['mocks[0].statusCode', 'mocks[1].name'],
        );
        assert.equal(problem.errors?.length, 2);
      });

      it('one rule with several problems reports each field', async () => {
        await rejects(
          {
            mocks: [
              {
                statusCode: 200,
                method: 'GE T',
                pattern: '/a?',
                headers: { 'Content-Length': '1' },
                body: '{{nope}}',
              },
            ],
          },
          ['mocks[0].method', 'mocks[0].pattern', 'mocks[0].headers.Content-Length', 'mocks[0].body'],
        );
      });

      it('a schema error in one rule and a rule error in another are both reported', async () => {
        await rejects({ mocks: [{ statusCode: 99 }, { statusCode: 200, pattern: '/a?b' }] }, [
          'mocks[0].statusCode',
          'mocks[1].pattern',
        ]);
      });
    });
  });

  describe('401', () => {
    it('without a key the update is refused and nothing changes', async () => {
      const { ws, sandbox, previous } = await seeded();
      const res = await api.app.inject({
        method: 'PUT',
        url: `${BASE}/${sandbox.id}/mocks`,
        payload: { mocks: [] },
      });
      assertProblem(res, 401, 'unauthorized');
      assert.match(String(res.headers['www-authenticate']), /^Bearer/);
      assert.deepEqual(await readMocks(ws, sandbox.id), previous);
    });

    it('with an unknown key the update is refused and nothing changes', async () => {
      const { ws, sandbox, previous } = await seeded();
      const res = await api.app.inject({
        method: 'PUT',
        url: `${BASE}/${sandbox.id}/mocks`,
        headers: { authorization: `Bearer ${generateApiKey()}` },
        payload: { mocks: [] },
      });
      assertProblem(res, 401, 'unauthorized');
      assert.deepEqual(await readMocks(ws, sandbox.id), previous);
    });
  });

  describe('404', () => {
    it('a sandbox that does not exist is a not-found problem', async () => {
      const ws = await api.workspace();
      assertProblem(await putMocks(ws, randomUUID(), { mocks: [VALID] }), 404, 'not-found');
    });

    it("another workspace's sandbox is 404 and its rules are unchanged", async () => {
      const { ws: a, sandbox, previous } = await seeded();
      const b = await api.workspace();
      assertProblem(await putMocks(b, sandbox.id, { mocks: [] }), 404, 'not-found');
      assertProblem(await putMocks(b, sandbox.id, { mocks: [VALID] }), 404, 'not-found');
      assert.deepEqual(await readMocks(a, sandbox.id), previous);
    });

    it('a deleted sandbox is 404', async () => {
      const { ws, sandbox } = await seeded();
      const del = await ws.call({ method: 'DELETE', url: `${BASE}/${sandbox.id}` });
      assert.equal(del.statusCode, 204);
      assertProblem(await putMocks(ws, sandbox.id, { mocks: [VALID] }), 404, 'not-found');
    });

    it('an expired ephemeral sandbox is 404', async () => {
      const ws = await api.workspace();
      const res = await ws.call({
        method: 'POST',
        url: BASE,
        payload: { name: 'eph', ephemeral: true, ttlMinutes: 1 },
      });
      assert.equal(res.statusCode, 201, res.body);
      const sandbox = res.json<Sandbox>();
      assert.equal((await setMocks(ws, sandbox.id, [VALID])).mocks.length, 1);
      api.clock.advance(61_000);
      assertProblem(await putMocks(ws, sandbox.id, { mocks: [VALID] }), 404, 'not-found');
    });
  });
});
