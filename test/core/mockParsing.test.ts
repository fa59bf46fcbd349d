// Mock rule pattern and template parsing: what is accepted, what is refused and why.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { colonSegmentProblem, compilePattern, normalizePattern } from '../../src/core/mocks/pattern.ts';
import { parseTemplate } from '../../src/core/mocks/template.ts';

describe('compilePattern', () => {
  it('treats empty, ** and /** as any path', () => {
    for (const p of [null, undefined, '', '**', '/**', '  ']) {
      const r = compilePattern(p);
      assert.ok(r.ok && r.pattern.kind === 'any', String(p));
    }
  });

  it('splits into typed segments, percent-decoding literals', () => {
    const r = compilePattern('/users/{id}/files/*/a%20b/{rest*}');
    assert.ok(r.ok && r.pattern.kind === 'segments');
    assert.deepEqual(r.pattern.segments, [
      { type: 'literal', value: 'users' },
      { type: 'param', name: 'id' },
      { type: 'literal', value: 'files' },
      { type: 'wildcard' },
      { type: 'literal', value: 'a b' },
      { type: 'rest', name: 'rest' },
    ]);
  });

  it('compiles regex: patterns with RE2 and lists named groups', () => {
    const r = compilePattern('regex:^/orders/(?P<id>[0-9]+)$');
    assert.ok(r.ok && r.pattern.kind === 'regex');
    assert.deepEqual(r.pattern.groupNames, ['id']);
  });

  const refused: Array<[string, RegExp]> = [
    ['/a?b=1', /path only/],
    ['/a#frag', /path only/],
    ['/**/x/**', /at most one/],
    ['/{a}/{a}', /twice/],
    ['/{1x}', /not a valid parameter/],
    ['/a{b}c', /whole segment/],
    ['/a*', /whole segment/],
    ['/%E0%A4%A', /percent-encoding/],
    ['/{__proto__}', /cannot be a parameter/],
    ['regex:(a', /does not compile/],
    ['regex:(a)\\1', /does not compile/],
    ['regex:', /needs an expression/],
  ];
  for (const [pattern, why] of refused) {
    it(`refuses ${pattern}`, () => {
      const r = compilePattern(pattern);
      assert.equal(r.ok, false);
      assert.match((r as { message: string }).message, why);
    });
  }
});

describe('Express-style :name segments (issue 35)', () => {
  it('normalises whole :name and :name* segments to {name} and {name*}, nothing else', () => {
    const cases: Array<[string, string]> = [
      ['/v1/users/:id', '/v1/users/{id}'],
      ['/v1/users/:id/', '/v1/users/{id}/'],
      [':a/:b_2/x', '{a}/{b_2}/x'],
      ['/docs/:rest*', '/docs/{rest*}'],
      ['/v1/a:b', '/v1/a:b'],
      ['/v1/:', '/v1/:'],
      ['/v1/:9', '/v1/:9'],
      ['/v1/{id}', '/v1/{id}'],
      ['regex:^/:id$', 'regex:^/:id$'],
    ];
    for (const [written, stored] of cases) assert.equal(normalizePattern(written), stored, written);
  });

  it('matches :id as {id} even unnormalised (a rule stored before), and keeps other colons literal', () => {
    const r = compilePattern('/v1/users/:id');
    assert.ok(r.ok && r.pattern.kind === 'segments');
    assert.deepEqual(r.pattern.segments.at(-1), { type: 'param', name: 'id' });
    const literal = compilePattern('/v1/a:b/:9');
    assert.ok(literal.ok && literal.pattern.kind === 'segments');
    assert.deepEqual(literal.pattern.segments, [
      { type: 'literal', value: 'v1' },
      { type: 'literal', value: 'a:b' },
      { type: 'literal', value: ':9' },
    ]);
  });

  it('names the form to write for a segment that only starts like a parameter', () => {
    assert.match(colonSegmentProblem('/range/:from-:to') ?? '', /\{from\}/);
    assert.match(colonSegmentProblem('/u/:id?') ?? '', /optional.*\{id\*\}/);
    assert.match(colonSegmentProblem('/d/:p+') ?? '', /\{p\*\}/);
    for (const fine of ['/v1/users/:id', '/v1/a:b', '/:x*', 'regex:^/:a-:b$', '/v1/:'])
      assert.equal(colonSegmentProblem(fine), undefined, fine);
  });
});

describe('parseTemplate', () => {
  it('splits text and expressions with keys, defaults and filters', () => {
    const r = parseTemplate('id={{ body.items[0]["odd.key"] ?? "none" | json | url }} at {{now}}');
    assert.ok(r.ok);
    assert.deepEqual(r.parts, [
      'id=',
      { root: 'body', keys: ['items', 0, 'odd.key'], fallback: 'none', filters: ['json', 'url'] },
      ' at ',
      { root: 'now', keys: [], fallback: undefined, filters: [] },
    ]);
  });

  it('accepts every documented name', () => {
    for (const t of [
      '{{uuid}}',
      '{{now}}',
      '{{request.id}}',
      '{{method}}',
      '{{body}}',
      '{{body.a.b[0]}}',
      '{{query.x}}',
      '{{header.x-api-key}}',
      '{{path.id}}',
      "{{body.x ?? 'd'|html}}",
      'no expressions at all }}',
    ]) {
      assert.ok(parseTemplate(t).ok, t);
    }
  });

  const refused: Array<[string, RegExp]> = [
    ['{{unknown}}', /unknown name "unknown"/],
    ['{{uuid.x}}', /takes no sub-key/],
    ['{{request.foo}}', /request\.id/],
    ['{{query}}', /exactly one name/],
    ['{{header.a.b}}', /exactly one name/],
    ['{{body.__proto__}}', /cannot be read/],
    ['{{body.a.constructor}}', /cannot be read/],
    ['{{body["prototype"]}}', /cannot be read/],
    ['{{now | upper}}', /unknown filter/],
    ['{{uuid', /never closed/],
    ['{{body ?? none}}', /quoted string/],
    ['{{body ?? "x}}', /unterminated/],
    ['{{body extra}}', /unexpected/],
    ['{{}}', /expected a name/],
  ];
  for (const [template, why] of refused) {
    it(`refuses ${template}`, () => {
      const r = parseTemplate(template);
      assert.equal(r.ok, false);
      assert.match((r as { message: string }).message, why);
    });
  }
});
