// Scores extractOtp over labelled OTP fixtures: exact-code accuracy and false-code rate overall, per category
// and per language, printed as a table, with the misses listed so a failing run says which mails to read.
import type { OtpResult } from '../../src/core/extract/index.ts';

export interface OtpFixture {
  id: string;
  description?: string;
  category?: string;
  lang?: string;
  subject: string | null;
  text: string | null;
  html: string | null;
  expected: { code: string | null; status?: 'ambiguous' };
}

export interface OtpFigures {
  messages: number;
  /** Mails with an expected code, or expected to be ambiguous: the ones accuracy is measured on. */
  withCode: number;
  /** withCode mails answered right: the expected code exactly, or ambiguous when ambiguity is expected. */
  right: number;
  /** right / withCode; 1 when there is nothing to find. */
  accuracy: number;
  /** Mails where a code other than the expected one was returned (any code on a no-code mail). */
  falseCodes: number;
  /** falseCodes / messages. */
  falseCodeRate: number;
}

export interface OtpMiss {
  id: string;
  category: string;
  lang: string;
  expected: string;
  got: string;
  falseCode: boolean;
}

export interface OtpReport {
  overall: OtpFigures;
  byCategory: Map<string, OtpFigures>;
  byLang: Map<string, OtpFigures>;
  misses: OtpMiss[];
}

interface Outcome {
  codeBearing: boolean;
  right: boolean;
  falseCode: boolean;
}

function outcomeOf(item: OtpFixture, result: OtpResult): Outcome {
  const wantAmbiguous = item.expected.status === 'ambiguous';
  const codeBearing = wantAmbiguous || item.expected.code !== null;
  const right = wantAmbiguous
    ? result.status === 'ambiguous'
    : item.expected.code !== null && result.status === 'found' && result.code === item.expected.code;
  const falseCode = result.status === 'found' && result.code !== item.expected.code;
  return { codeBearing, right, falseCode };
}

function figuresOf(outcomes: Outcome[]): OtpFigures {
  const withCode = outcomes.filter((o) => o.codeBearing).length;
  const right = outcomes.filter((o) => o.codeBearing && o.right).length;
  const falseCodes = outcomes.filter((o) => o.falseCode).length;
  return {
    messages: outcomes.length,
    withCode,
    right,
    accuracy: withCode === 0 ? 1 : right / withCode,
    falseCodes,
    falseCodeRate: outcomes.length === 0 ? 0 : falseCodes / outcomes.length,
  };
}

function grouped(
  items: OtpFixture[],
  outcomes: Outcome[],
  key: (i: OtpFixture) => string,
): Map<string, OtpFigures> {
  const groups = new Map<string, Outcome[]>();
  items.forEach((item, k) => {
    const name = key(item);
    const list = groups.get(name) ?? [];
    list.push(outcomes[k] as Outcome);
    groups.set(name, list);
  });
  return new Map(
    [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([n, o]) => [n, figuresOf(o)]),
  );
}

const describeResult = (r: OtpResult): string => (r.status === 'found' ? `found ${r.code}` : r.status);

/** Runs `extract` over every item and computes the figures; prints nothing. */
export function otpReport(items: OtpFixture[], extract: (item: OtpFixture) => OtpResult): OtpReport {
  const results = items.map(extract);
  const outcomes = items.map((item, k) => outcomeOf(item, results[k] as OtpResult));
  const category = (i: OtpFixture): string => i.category ?? '(none)';
  const lang = (i: OtpFixture): string => i.lang ?? '(none)';
  const misses: OtpMiss[] = [];
  items.forEach((item, k) => {
    const o = outcomes[k] as Outcome;
    if ((o.codeBearing && o.right) || (!o.codeBearing && !o.falseCode)) return;
    misses.push({
      id: item.id,
      category: category(item),
      lang: lang(item),
      expected: item.expected.status ?? item.expected.code ?? 'not_found',
      got: describeResult(results[k] as OtpResult),
      falseCode: o.falseCode,
    });
  });
  return {
    overall: figuresOf(outcomes),
    byCategory: grouped(items, outcomes, category),
    byLang: grouped(items, outcomes, lang),
    misses,
  };
}

const pct = (n: number): string => `${(n * 100).toFixed(1)}%`.padStart(7);

function row(name: string, f: OtpFigures): string {
  return (
    `  ${name.padEnd(22)} ${String(f.messages).padStart(5)} ${String(f.withCode).padStart(6)} ` +
    `${pct(f.accuracy)} (${f.right}/${f.withCode})`.padEnd(24) +
    ` ${pct(f.falseCodeRate)} (${f.falseCodes})`
  );
}

/** The report as printable lines. */
export function formatOtpReport(title: string, report: OtpReport): string {
  const header = `  ${'group'.padEnd(22)} ${'mails'.padStart(5)} ${'w/code'.padStart(6)} ${'accuracy'.padEnd(24)} false-code rate`;
  const lines = [`${title}`, header, row('overall', report.overall), '  by category:'];
  for (const [name, f] of report.byCategory) lines.push(row(name, f));
  lines.push('  by language:');
  for (const [name, f] of report.byLang) lines.push(row(name, f));
  lines.push(`  misses (${report.misses.length}):`);
  for (const m of report.misses) {
    lines.push(
      `    ${m.falseCode ? 'FALSE ' : 'miss  '}${m.id} [${m.category}/${m.lang}]: expected ${m.expected}, got ${m.got}`,
    );
  }
  return lines.join('\n');
}

/** Computes, prints (console.log) and returns the report. */
export function printOtpReport(
  title: string,
  items: OtpFixture[],
  extract: (item: OtpFixture) => OtpResult,
): OtpReport {
  const report = otpReport(items, extract);
  console.log(formatOtpReport(title, report));
  return report;
}
