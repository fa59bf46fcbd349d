// How long the linear-time guarantees take on hostile input, in this process: the mock matcher (RE2 regexes
// that backtracking engines never finish, `**` over 10,000 segments) and extraction (a 200 KB body of digits,
// repetitive shapes). The tests assert what comes out and count the matcher's work; the milliseconds live here,
// where a busy machine shows as a slow row instead of a failed test.
import { compilePattern } from '../src/core/mocks/pattern.ts';
import { chooseRule, compileRules, matchPath } from '../src/core/mocks/match.ts';
import { parseMockRules } from '../src/core/mocks/rules.ts';
import { extractLinks, extractOtp } from '../src/core/extract/index.ts';
import { digitsAndSpaces, PATHOLOGICAL_SHAPES } from '../test/helpers/hostileText.ts';
import { report, type Row } from './lib/report.ts';

/** The bound the tests once asserted; a row over it is a regression, or a machine too busy to judge. */
const TARGET_MS = 1000;
const RUNS = 5;

/** The median of `RUNS` timed runs of `fn`, in ms. */
function median(fn: () => unknown): number {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    fn();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(RUNS / 2)] as number;
}

const rows: Row[] = [];
function row(workload: string, fn: () => unknown): void {
  const ms = median(fn);
  rows.push({
    workload,
    target: `<= ${TARGET_MS} ms`,
    measured: `${ms.toFixed(1)} ms`,
    met: ms <= TARGET_MS,
    ms,
  });
}

function pattern(source: string) {
  const compiled = compilePattern(source);
  if (!compiled.ok) throw new Error(`${source}: ${compiled.message}`);
  return compiled.pattern;
}

const as = 'a'.repeat(50_000);
for (const source of ['^(a+)+$', '^(a|a)*$', '^(.*a){20}$']) {
  const p = pattern(`regex:${source}`);
  row(`regex:${source}, 50,000 a's and a tail that fails it`, () => matchPath(p, `${as}!`));
  const rules = compileRules(
    parseMockRules({ mocks: [{ pattern: `regex:${source.replace('^', '^/')}`, statusCode: 200 }] }),
  );
  row(`regex:${source} through chooseRule, a 50,001-character path`, () =>
    chooseRule(rules, 'GET', `/${as}!`),
  );
}
const deep = '/a'.repeat(10_000);
row('/**/x, 10,000 segments, match', () => matchPath(pattern('/**/x'), `${deep}/x`));
row('/**/x, 10,000 segments, miss', () => matchPath(pattern('/**/x'), `${deep}/y`));
row('/{rest*}/x, 10,000 segments, captured', () => matchPath(pattern('/{rest*}/x'), `${deep}/x`));

const body = digitsAndSpaces(200_000);
row('extractOtp, 200 KB of digits and spaces (text and HTML)', () =>
  extractOtp({ subject: 'Your code', text: body, html: `<p>${body}</p>` }),
);
for (const { shape } of PATHOLOGICAL_SHAPES) {
  row(`extractOtp + extractLinks, ${JSON.stringify(shape.slice(0, 12))}… (${shape.length} chars)`, () => {
    extractOtp({ text: shape, html: shape });
    extractLinks({ text: shape, html: shape });
  });
}

report('linear-time matching and extraction on hostile input', rows);
