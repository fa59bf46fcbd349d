// Mock rule matching (design section 5): method rules, path patterns, rule choice order, the fallback,
// and the linear-time guarantees of both the segment matcher and the RE2 regex matcher.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compilePattern, type CompiledPattern } from '../../src/core/mocks/pattern.ts';
import {
  chooseRule,
  compileRules,
  fallbackRule,
  matchPath,
  methodMatches,
  pathSegments,
} from '../../src/core/mocks/match.ts';
import { parseMockRules } from '../../src/core/mocks/rules.ts';
import type { StoredMockRule } from '../../src/core/mocks/types.ts';

interface Case {
  pattern: string | null;
  /** The rule's method as a client would send it (normalised by parseMockRules). */
  method: string | null;
  requestMethod: string;
  path: string;
  match: boolean;
  /** Expected captures when `match` is true; `{}` when omitted. */
  params?: Record<string, string>;
}

const cases: Case[] = [
  // Literal segments: exact and case-sensitive.
  { pattern: '/users', method: 'GET', requestMethod: 'GET', path: '/users', match: true },
  { pattern: '/users', method: 'GET', requestMethod: 'GET', path: '/Users', match: false },
  { pattern: '/Users', method: 'GET', requestMethod: 'GET', path: '/users', match: false },
  { pattern: '/users', method: 'GET', requestMethod: 'GET', path: '/users/1', match: false },
  { pattern: '/users', method: 'GET', requestMethod: 'GET', path: '/user', match: false },
  { pattern: '/users', method: 'GET', requestMethod: 'GET', path: '/userss', match: false },
  { pattern: '/a/b/c', method: 'GET', requestMethod: 'GET', path: '/a/b/c', match: true },
  { pattern: '/a/b/c', method: 'GET', requestMethod: 'GET', path: '/a/b', match: false },
  { pattern: '/a/b', method: 'GET', requestMethod: 'GET', path: '/a/b/c', match: false },
  // Percent-decoding per segment, on both sides.
  { pattern: '/a b', method: 'ANY', requestMethod: 'GET', path: '/a%20b', match: true },
  { pattern: '/a%20b', method: 'ANY', requestMethod: 'GET', path: '/a b', match: true },
  { pattern: '/a%20b', method: 'ANY', requestMethod: 'GET', path: '/a%20b', match: true },
  { pattern: '/A', method: 'ANY', requestMethod: 'GET', path: '/%41', match: true },
  { pattern: '/caf%C3%A9', method: 'ANY', requestMethod: 'GET', path: '/café', match: true },
  { pattern: '/a%2Fb', method: 'ANY', requestMethod: 'GET', path: '/a%2Fb', match: true },
  { pattern: '/a/b', method: 'ANY', requestMethod: 'GET', path: '/a%2Fb', match: false },
  { pattern: '/a%2Fb', method: 'ANY', requestMethod: 'GET', path: '/a/b', match: false },
  { pattern: '/*', method: 'ANY', requestMethod: 'GET', path: '/a%2Fb', match: true },
  // A single trailing slash on the request is ignored; two are not.
  { pattern: '/a', method: 'ANY', requestMethod: 'GET', path: '/a/', match: true },
  { pattern: '/a', method: 'ANY', requestMethod: 'GET', path: '/a//', match: false },
  { pattern: '/a/', method: 'ANY', requestMethod: 'GET', path: '/a', match: true },
  { pattern: '/a/b', method: 'ANY', requestMethod: 'GET', path: '/a/b/', match: true },
  // Root.
  { pattern: '/', method: 'ANY', requestMethod: 'GET', path: '/', match: true },
  { pattern: '/', method: 'ANY', requestMethod: 'GET', path: '/a', match: false },
  { pattern: '/a', method: 'ANY', requestMethod: 'GET', path: '/', match: false },
  // {name}: exactly one segment, captured decoded.
  {
    pattern: '/users/{id}',
    method: 'GET',
    requestMethod: 'GET',
    path: '/users/42',
    match: true,
    params: { id: '42' },
  },
  {
    pattern: '/users/{id}',
    method: 'GET',
    requestMethod: 'GET',
    path: '/users/a%20b',
    match: true,
    params: { id: 'a b' },
  },
  {
    pattern: '/users/{id}',
    method: 'GET',
    requestMethod: 'GET',
    path: '/users/x%2Fy',
    match: true,
    params: { id: 'x/y' },
  },
  {
    pattern: '/users/{id}',
    method: 'GET',
    requestMethod: 'GET',
    path: '/users/42/',
    match: true,
    params: { id: '42' },
  },
  { pattern: '/users/{id}', method: 'GET', requestMethod: 'GET', path: '/users', match: false },
  { pattern: '/users/{id}', method: 'GET', requestMethod: 'GET', path: '/users/', match: false },
  { pattern: '/users/{id}', method: 'GET', requestMethod: 'GET', path: '/users/42/x', match: false },
  {
    pattern: '/{a}/{b}',
    method: 'ANY',
    requestMethod: 'GET',
    path: '/x/y',
    match: true,
    params: { a: 'x', b: 'y' },
  },
  // *: exactly one segment, captures nothing.
  { pattern: '/files/*', method: 'ANY', requestMethod: 'GET', path: '/files/x', match: true },
  { pattern: '/files/*', method: 'ANY', requestMethod: 'GET', path: '/files', match: false },
  { pattern: '/files/*', method: 'ANY', requestMethod: 'GET', path: '/files/x/y', match: false },
  { pattern: '/*/b', method: 'ANY', requestMethod: 'GET', path: '/a/b', match: true },
  // ** and {rest*}: zero or more segments.
  { pattern: '/files/**', method: 'ANY', requestMethod: 'GET', path: '/files', match: true },
  { pattern: '/files/**', method: 'ANY', requestMethod: 'GET', path: '/files/a/b/c', match: true },
  { pattern: '/files/**', method: 'ANY', requestMethod: 'GET', path: '/other/a', match: false },
  {
    pattern: '/files/{rest*}',
    method: 'ANY',
    requestMethod: 'GET',
    path: '/files/a/b/c',
    match: true,
    params: { rest: 'a/b/c' },
  },
  {
    pattern: '/files/{rest*}',
    method: 'ANY',
    requestMethod: 'GET',
    path: '/files',
    match: true,
    params: { rest: '' },
  },
  {
    pattern: '/files/{rest*}',
    method: 'ANY',
    requestMethod: 'GET',
    path: '/files/a%20b/c',
    match: true,
    params: { rest: 'a b/c' },
  },
  // ** in the middle, with suffix segments.
  { pattern: '/a/**/z', method: 'ANY', requestMethod: 'GET', path: '/a/z', match: true },
  { pattern: '/a/**/z', method: 'ANY', requestMethod: 'GET', path: '/a/b/z', match: true },
  { pattern: '/a/**/z', method: 'ANY', requestMethod: 'GET', path: '/a/b/c/d/z', match: true },
  { pattern: '/a/**/z', method: 'ANY', requestMethod: 'GET', path: '/a/b/c', match: false },
  { pattern: '/a/**/z', method: 'ANY', requestMethod: 'GET', path: '/a', match: false },
  { pattern: '/a/**/z', method: 'ANY', requestMethod: 'GET', path: '/z', match: false },
  { pattern: '/a/**/a', method: 'ANY', requestMethod: 'GET', path: '/a', match: false },
  {
    pattern: '/a/{mid*}/{last}',
    method: 'ANY',
    requestMethod: 'GET',
    path: '/a/b/c/d',
    match: true,
    params: { mid: 'b/c', last: 'd' },
  },
  { pattern: '/**/x', method: 'ANY', requestMethod: 'GET', path: '/x', match: true },
  // Patterns without a leading slash.
  {
    pattern: 'users/{id}',
    method: 'ANY',
    requestMethod: 'GET',
    path: '/users/7',
    match: true,
    params: { id: '7' },
  },
  { pattern: 'users', method: 'ANY', requestMethod: 'GET', path: '/users', match: true },
  // Empty, ** and /** mean any path.
  { pattern: '', method: 'ANY', requestMethod: 'GET', path: '/anything/at/all', match: true },
  { pattern: null, method: 'ANY', requestMethod: 'GET', path: '/', match: true },
  { pattern: '**', method: 'ANY', requestMethod: 'GET', path: '/a/b', match: true },
  { pattern: '/**', method: 'ANY', requestMethod: 'GET', path: '/', match: true },
  { pattern: '/**', method: 'ANY', requestMethod: 'GET', path: '/a%2F/b/', match: true },
  // regex: matches the whole path (not a substring), with RE2 named groups as params.
  { pattern: 'regex:/a', method: 'ANY', requestMethod: 'GET', path: '/a', match: true },
  { pattern: 'regex:/a', method: 'ANY', requestMethod: 'GET', path: '/ab', match: false },
  { pattern: 'regex:/a', method: 'ANY', requestMethod: 'GET', path: '/x/a', match: false },
  { pattern: 'regex:/a.*', method: 'ANY', requestMethod: 'GET', path: '/abc/def', match: true },
  {
    pattern: 'regex:^/orders/(?P<id>\\d+)$',
    method: 'GET',
    requestMethod: 'GET',
    path: '/orders/42',
    match: true,
    params: { id: '42' },
  },
  {
    pattern: 'regex:/orders/(?P<id>\\d+)',
    method: 'GET',
    requestMethod: 'GET',
    path: '/orders/42x',
    match: false,
  },
  {
    pattern: 'regex:/(?P<kind>[a-z]+)/(?P<id>\\d+)',
    method: 'ANY',
    requestMethod: 'GET',
    path: '/books/9',
    match: true,
    params: { kind: 'books', id: '9' },
  },
  {
    pattern: 'regex:/x(?P<opt>/y)?',
    method: 'ANY',
    requestMethod: 'GET',
    path: '/x',
    match: true,
    params: {},
  },
  {
    pattern: 'regex:/x(?P<opt>/y)?',
    method: 'ANY',
    requestMethod: 'GET',
    path: '/x/y',
    match: true,
    params: { opt: '/y' },
  },
  // Methods: ANY (and its spellings), exact, case-insensitive, HEAD for GET, mismatches.
  { pattern: '/m', method: 'ANY', requestMethod: 'DELETE', path: '/m', match: true },
  { pattern: '/m', method: 'any', requestMethod: 'PATCH', path: '/m', match: true },
  { pattern: '/m', method: '*', requestMethod: 'OPTIONS', path: '/m', match: true },
  { pattern: '/m', method: '', requestMethod: 'POST', path: '/m', match: true },
  { pattern: '/m', method: null, requestMethod: 'PUT', path: '/m', match: true },
  { pattern: '/m', method: 'GET', requestMethod: 'GET', path: '/m', match: true },
  { pattern: '/m', method: 'GET', requestMethod: 'get', path: '/m', match: true },
  { pattern: '/m', method: 'get', requestMethod: 'GET', path: '/m', match: true },
  { pattern: '/m', method: 'Post', requestMethod: 'pOST', path: '/m', match: true },
  { pattern: '/m', method: 'PURGE', requestMethod: 'PURGE', path: '/m', match: true },
  { pattern: '/m', method: 'GET', requestMethod: 'HEAD', path: '/m', match: true },
  { pattern: '/m', method: 'GET', requestMethod: 'head', path: '/m', match: true },
  { pattern: '/m', method: 'HEAD', requestMethod: 'GET', path: '/m', match: false },
  { pattern: '/m', method: 'HEAD', requestMethod: 'HEAD', path: '/m', match: true },
  { pattern: '/m', method: 'POST', requestMethod: 'GET', path: '/m', match: false },
  { pattern: '/m', method: 'GET', requestMethod: 'POST', path: '/m', match: false },
  { pattern: '/m', method: 'GET', requestMethod: 'GETX', path: '/m', match: false },
  // Method right, path wrong, and the other way round.
  { pattern: '/users/{id}', method: 'POST', requestMethod: 'POST', path: '/orders/1', match: false },
  { pattern: '/users/{id}', method: 'POST', requestMethod: 'GET', path: '/users/1', match: false },
];

function storedRules(mocks: unknown[]): StoredMockRule[] {
  return parseMockRules({ mocks });
}

function compiled(pattern: string | null): CompiledPattern {
  const r = compilePattern(pattern);
  assert.ok(r.ok, `pattern ${String(pattern)} should compile`);
  return r.pattern;
}

describe('matcher table', () => {
  it('has at least 60 cases', () => {
    assert.ok(cases.length >= 60, `${cases.length} cases`);
  });

  for (const c of cases) {
    const title = `${c.method ?? '(null)'} ${c.pattern ?? '(null)'} vs ${c.requestMethod} ${c.path} → ${c.match}`;
    it(title, () => {
      const [stored] = storedRules([{ method: c.method, pattern: c.pattern, statusCode: 200 }]);
      assert.ok(stored !== undefined);

      // Through the parts: compilePattern + matchPath + methodMatches on the stored method.
      const params = matchPath(compiled(stored.pattern), c.path);
      const methodOk = methodMatches(stored.method, c.requestMethod);
      assert.equal(methodOk && params !== null, c.match, 'compilePattern/matchPath/methodMatches');

      // Through the whole: compileRules + chooseRule.
      const chosen = chooseRule(compileRules([stored]), c.requestMethod, c.path);
      assert.equal(chosen !== null, c.match, 'chooseRule');
      if (c.match) {
        assert.ok(chosen !== null && params !== null);
        assert.deepEqual({ ...chosen.params }, c.params ?? {});
        assert.deepEqual({ ...params }, c.params ?? {});
        assert.equal(chosen.rule.rule, stored);
      }
    });
  }
});

describe('pathSegments', () => {
  it('decodes each segment and ignores one trailing slash', () => {
    assert.deepEqual(pathSegments('/'), []);
    assert.deepEqual(pathSegments(''), []);
    assert.deepEqual(pathSegments('/a/b/'), ['a', 'b']);
    assert.deepEqual(pathSegments('/a//'), ['a', '']);
    assert.deepEqual(pathSegments('/a%20b/c%2Fd'), ['a b', 'c/d']);
  });

  it('keeps a broken percent-encoding as it is instead of throwing', () => {
    assert.deepEqual(pathSegments('/%zz/%E0%A4%A'), ['%zz', '%E0%A4%A']);
    assert.deepEqual({ ...matchPath(compiled('/{x}'), '/%zz') }, { x: '%zz' });
  });
});

describe('rule choice', () => {
  it('takes the first matching rule in list order, even when a later one is more specific', () => {
    const rules = compileRules(
      storedRules([
        { name: 'broad', method: 'GET', pattern: '/users/**', statusCode: 200 },
        { name: 'specific', method: 'GET', pattern: '/users/{id}', statusCode: 201 },
        { name: 'exact', method: 'GET', pattern: '/users/42', statusCode: 202 },
      ]),
    );
    assert.equal(chooseRule(rules, 'GET', '/users/42')?.rule.rule.name, 'broad');
  });

  it('skips rules whose method or path does not match', () => {
    const rules = compileRules(
      storedRules([
        { name: 'post', method: 'POST', pattern: '/a/{x}', statusCode: 200 },
        { name: 'other path', method: 'GET', pattern: '/b/{x}', statusCode: 200 },
        { name: 'get', method: 'GET', pattern: '/a/{y}', statusCode: 200 },
      ]),
    );
    const m = chooseRule(rules, 'GET', '/a/1');
    assert.equal(m?.rule.rule.name, 'get');
    assert.deepEqual({ ...m?.params }, { y: '1' });
    assert.equal(chooseRule(rules, 'POST', '/a/1')?.rule.rule.name, 'post');
  });

  it('never chooses the fallback, even when it comes first; fallbackRule returns it', () => {
    const rules = compileRules(
      storedRules([
        { name: 'catch-all', isFallback: true, statusCode: 404 },
        { name: 'a', method: 'GET', pattern: '/a', statusCode: 200 },
      ]),
    );
    assert.equal(chooseRule(rules, 'GET', '/a')?.rule.rule.name, 'a');
    assert.equal(chooseRule(rules, 'GET', '/zzz'), null);
    assert.equal(chooseRule(rules, 'POST', '/a'), null);
    const fb = fallbackRule(rules);
    assert.ok(fb !== null);
    assert.equal(fb.rule.rule.name, 'catch-all');
    assert.equal(fb.rule.rule.isFallback, true);
    assert.deepEqual({ ...fb.params }, {});
  });

  it('finds the fallback wherever it is in the list', () => {
    const rules = compileRules(
      storedRules([
        { name: 'a', method: 'GET', pattern: '/a', statusCode: 200 },
        { name: 'b', method: 'GET', pattern: '/b', statusCode: 200 },
        { name: 'last', isFallback: true, statusCode: 418 },
      ]),
    );
    assert.equal(fallbackRule(rules)?.rule.rule.name, 'last');
    assert.equal(chooseRule(rules, 'GET', '/c'), null);
  });

  it('returns null from both when nothing matches and there is no fallback', () => {
    const rules = compileRules(storedRules([{ method: 'GET', pattern: '/a', statusCode: 200 }]));
    assert.equal(chooseRule(rules, 'GET', '/b'), null);
    assert.equal(fallbackRule(rules), null);
    assert.equal(chooseRule([], 'GET', '/'), null);
    assert.equal(fallbackRule([]), null);
  });

  it('returns the params of the rule that was chosen only', () => {
    const rules = compileRules(
      storedRules([
        { name: 'regex', pattern: 'regex:/r/(?P<n>\\d+)', statusCode: 200 },
        { name: 'seg', pattern: '/r/{word}', statusCode: 200 },
      ]),
    );
    const byRegex = chooseRule(rules, 'GET', '/r/12');
    assert.equal(byRegex?.rule.rule.name, 'regex');
    assert.deepEqual({ ...byRegex?.params }, { n: '12' });
    const bySeg = chooseRule(rules, 'GET', '/r/abc');
    assert.equal(bySeg?.rule.rule.name, 'seg');
    assert.deepEqual({ ...bySeg?.params }, { word: 'abc' });
  });
});

/**
 * Path segments that count how often the matcher reads one: the work of segment matching, counted instead of
 * timed, so a busy machine cannot fail the test and a matcher that backtracks over `**` cannot pass it.
 */
function countedSegments(segments: string[]): { segments: string[]; reads: () => number } {
  let reads = 0;
  const counted = new Proxy(segments, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { segments: counted, reads: () => reads };
}

/**
 * RE2 (re2js) runs in time linear in the input; a backtracking engine takes exponential time on these inputs
 * and never finishes, so the test's timeout is the bound (generous: the answers come in milliseconds; the
 * timings are rows of bench/linearTime.ts).
 */
const LINEAR = { timeout: 60_000 };

describe('linear-time matching', () => {
  const as = 'a'.repeat(50_000);
  const evil = ['^(a+)+$', '^(a|a)*$', '^(.*a){20}$'];

  for (const source of evil) {
    it(`regex:${source} answers on 50,000 a's and a non-matching tail`, LINEAR, () => {
      const pattern = compiled(`regex:${source}`);
      assert.equal(matchPath(pattern, `${as}!`), null);
      // Sanity: the same regex does match when the tail is absent.
      assert.notEqual(matchPath(pattern, as), null);
    });

    const slashed = source.replace('^', '^/');
    it(`regex:${slashed} answers through chooseRule on a path-shaped input`, LINEAR, () => {
      const rules = compileRules(storedRules([{ pattern: `regex:${slashed}`, statusCode: 200 }]));
      assert.equal(chooseRule(rules, 'GET', `/${as}!`), null);
    });
  }

  it('reads each segment of a 10,000-segment path at most once for /**/x, /a/**/x/y and {rest*}', () => {
    const deep = '/a'.repeat(10_000);
    const cases: Array<[pattern: string, path: string, matches: boolean]> = [
      ['/**/x', `${deep}/x`, true],
      ['/**/x', `${deep}/y`, false],
      ['/a/**/x/y', `${deep}/x/y`, true],
      ['/a/**/x/y', `${deep}/y/x`, false],
      ['/{rest*}/x', `${deep}/x`, true],
    ];
    for (const [source, path, matches] of cases) {
      const { segments, reads } = countedSegments(pathSegments(path));
      const n = segments.length;
      const params = matchPath(compiled(source), path, segments);
      assert.equal(params !== null, matches, `${source} against ${n} segments`);
      assert.ok(reads() <= n, `${source}: ${reads()} segment reads for ${n} segments`);
    }
    const captured = matchPath(compiled('/{rest*}/x'), `${deep}/x`);
    assert.equal(captured?.rest, deep.slice(1));
  });
});

describe('property: ** and * over random paths', () => {
  // A small deterministic PRNG (mulberry32) so failures reproduce.
  function rng(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const alphabet = ['a', 'b', 'Z', '%20', '%2F', '.', '-', 'é'];

  it('** matches every path; * matches exactly the one-segment paths', () => {
    const next = rng(20240601);
    const any = compiled('**');
    const slashAny = compiled('/**');
    const rest = compiled('/{rest*}');
    const one = compiled('/*');
    const param = compiled('/{p}');
    let oneSegment = 0;
    for (let i = 0; i < 200; i++) {
      const count = Math.floor(next() * 5); // 0..4 segments
      const segs: string[] = [];
      for (let s = 0; s < count; s++) {
        const len = 1 + Math.floor(next() * 3);
        let seg = '';
        for (let k = 0; k < len; k++) seg += alphabet[Math.floor(next() * alphabet.length)];
        segs.push(seg);
      }
      const trailing = count > 0 && next() < 0.3 ? '/' : '';
      const path = `/${segs.join('/')}${trailing}`;
      const decoded = segs.map((s) => decodeURIComponent(s));

      assert.notEqual(matchPath(any, path), null, `** vs ${path}`);
      assert.notEqual(matchPath(slashAny, path), null, `/** vs ${path}`);
      assert.deepEqual({ ...matchPath(rest, path) }, { rest: decoded.join('/') }, `{rest*} vs ${path}`);
      assert.equal(matchPath(one, path) !== null, count === 1, `* vs ${path}`);
      if (count === 1) {
        oneSegment++;
        assert.deepEqual({ ...matchPath(param, path) }, { p: decoded[0] }, `{p} vs ${path}`);
      } else {
        assert.equal(matchPath(param, path), null, `{p} vs ${path}`);
      }
    }
    assert.ok(oneSegment > 10, `only ${oneSegment} one-segment paths were generated`);
  });
});
