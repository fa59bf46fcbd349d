// Finds the strings in one line of text that could be a one-time code, by manual scanning only (no
// backtracking), and joins codes written in groups ("482 913", "X7K-92P") into one token.
import { NOT_CODE_TOKENS } from './vocabulary.ts';

export interface Token {
  /** The code as typed into a form: separators removed. */
  code: string;
  /** [start, end) in the line, separators included. */
  start: number;
  end: number;
  kind: 'numeric' | 'alnum';
  /** One group of a longer run of numbers ("2019 482913 77") that does not read as one code. */
  loose: boolean;
}

interface Run {
  start: number;
  end: number;
  text: string;
  digits: boolean;
  upper: boolean;
  lower: boolean;
}

/** Separators that may sit between groups of one number: dates, times, decimals, spaced codes. */
const NUMBER_SEPARATORS = new Set([' ', '-', '\u00a0', '\u2011', '\u2012', '\u2013', '.', '/', ':', ',']);
const GROUP_SEPARATORS = new Set([' ', '-', '\u00a0', '\u2011', '\u2012', '\u2013']);
/** The widest run of spaces that still joins the groups of one code. */
const MAX_SPACE_RUN = 4;

const isSpaceRun = (sep: string): boolean => /^[ \u00a0]+$/.test(sep);
const isGroupSeparator = (sep: string): boolean => GROUP_SEPARATORS.has(sep) || isSpaceRun(sep);
const GLUE = new Set(['-', '_', '.', '/', '\u2011']);

/**
 * Digits of other scripts (Arabic-Indic, Persian, Devanagari, Bengali, Gurmukhi, Gujarati, Tamil, Telugu, Kannada,
 * Malayalam, Thai, Lao, Myanmar, Khmer, Mongolian): one UTF-16 unit each, with their zero.
 */
const NATIVE_ZEROS = [
  0x0660, 0x06f0, 0x0966, 0x09e6, 0x0a66, 0x0ae6, 0x0be6, 0x0c66, 0x0ce6, 0x0d66, 0x0e50, 0x0ed0, 0x1040,
  0x17e0, 0x1810,
];
const FOLDABLE =
  /[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a\u0660-\u0669\u06f0-\u06f9\u0966-\u096f\u09e6-\u09ef\u0a66-\u0a6f\u0ae6-\u0aef\u0be6-\u0bef\u0c66-\u0c6f\u0ce6-\u0cef\u0d66-\u0d6f\u0e50-\u0e59\u0ed0-\u0ed9\u1040-\u1049\u17e0-\u17e9\u1810-\u1819]/g;

/**
 * Full-width digits and letters (common in Japanese mail) and the digits of other scripts as ASCII, since a code
 * is typed as ASCII; one UTF-16 unit each, so offsets hold.
 */
export function asciiFold(line: string): string {
  FOLDABLE.lastIndex = 0;
  if (!FOLDABLE.test(line)) return line;
  return line.replace(FOLDABLE, (c) => {
    const code = c.charCodeAt(0);
    const zero = NATIVE_ZEROS.find((z) => code >= z && code <= z + 9);
    return String.fromCharCode(zero === undefined ? (code - 0xfee0) & 0xffff : 48 + code - zero);
  });
}

function runsOf(line: string): Run[] {
  const runs: Run[] = [];
  for (const m of line.matchAll(/[A-Za-z0-9]+/g)) {
    const text = m[0];
    runs.push({
      start: m.index,
      end: m.index + text.length,
      text,
      digits: /^[0-9]+$/.test(text),
      upper: /[A-Z]/.test(text),
      lower: /[a-z]/.test(text),
    });
  }
  return runs;
}

/** [start, end) spans of URLs, web addresses and email addresses: digits inside them are never codes. */
export function addressSpans(line: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const m of line.matchAll(/\S+/g)) {
    const chunk = m[0];
    const at = chunk.indexOf('@');
    const isAddress =
      chunk.includes('://') ||
      /^[(<["']?www\./i.test(chunk) ||
      (at > 0 && chunk.indexOf('.', at) > at + 1) ||
      /[a-z0-9-]\.[a-z]{2,}\//i.test(chunk);
    if (isAddress) spans.push([m.index, m.index + chunk.length]);
  }
  return spans;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/**
 * [start, end) spans that read as phone numbers: an international "+" prefix, an "(area)" group, or
 * three or more groups adding up to 9-15 digits. Each character is visited once.
 */
export function phoneSpans(line: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let i = 0;
  while (i < line.length) {
    const c = line[i] as string;
    const startsNumber = c === '+' || c === '(' || isDigit(c);
    if (!startsNumber || /[A-Za-z0-9]/.test(line[i - 1] ?? '')) {
      i++;
      continue;
    }
    let j = i;
    let digits = 0;
    let groups = 0;
    let inGroup = false;
    let paren = false;
    while (j < line.length) {
      const d = line[j] as string;
      if (isDigit(d)) {
        digits++;
        if (!inGroup) groups++;
        inGroup = true;
      } else if (
        d === ' ' ||
        d === '-' ||
        d === '.' ||
        d === '\u00a0' ||
        d === '(' ||
        d === ')' ||
        (d === '+' && j === i)
      ) {
        if (d === ' ' && line[j + 1] === ' ') break;
        if (d === ')') paren = true;
        inGroup = false;
      } else break;
      j++;
    }
    let end = j;
    while (end > i && !isDigit(line[end - 1])) end--;
    if (isDigit(line[j - 1]) && /[A-Za-z]/.test(line[j] ?? '')) {
      // "555-0199abc" is an identifier, not a phone.
      i = Math.max(j, i + 1);
      continue;
    }
    const phone =
      (c === '+' && digits >= 7) || (paren && digits >= 7) || (groups >= 3 && digits >= 9 && digits <= 15);
    if (phone) spans.push([i, end]);
    i = Math.max(j, i + 1);
  }
  return spans;
}

/**
 * [start, end) spans of IBANs ("DE89 3704 0044 0532 0130 00"): a country, two check digits, then groups of four.
 * Their groups look like codes one by one. Each match is at most 40 characters, so the scan stays linear.
 */
export function ibanSpans(line: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const m of line.matchAll(
    /(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}(?:[ \u00a0]?[A-Z0-9]{4}){2,7}(?:[ \u00a0]?[A-Z0-9]{1,3})?(?![A-Za-z0-9])/g,
  )) {
    spans.push([m.index, m.index + m[0].length]);
  }
  return spans;
}

function isYear(group: string): boolean {
  return (
    group.length === 4 && (group.startsWith('19') || (group.startsWith('20') && (group[2] ?? '') <= '3'))
  );
}

/** Drops tokens overlapping any span; both lists sorted by start, so one forward pass suffices. */
function outsideSpans(tokens: Token[], spans: Array<[number, number]>): Token[] {
  const sorted = spans.sort((a, b) => a[0] - b[0]);
  const kept: Token[] = [];
  let k = 0;
  let reach = -1;
  for (const t of tokens) {
    while (k < sorted.length && (sorted[k] as [number, number])[0] < t.end) {
      reach = Math.max(reach, (sorted[k] as [number, number])[1]);
      k++;
    }
    // `reach` is the furthest end among spans starting before this token ends.
    if (!(reach > t.start)) kept.push(t);
  }
  return kept;
}

/** Numbers glued to letters by "-", "_" or "." (SKU-12345, INV-2024-001) are identifiers. */
function gluedToWord(line: string, runs: Run[], index: number): boolean {
  const run = runs[index] as Run;
  const prev = runs[index - 1];
  if (
    prev !== undefined &&
    prev.end === run.start - 1 &&
    GLUE.has(line[prev.end] as string) &&
    !prev.digits
  ) {
    // "G-482913": a one or two letter sender prefix in front of a code is part of how it is shown.
    const prefix = prev.text.length <= 2 && !prev.lower && line[prev.end] === '-';
    const prefixStands = !/[A-Za-z0-9_.-]/.test(line[prev.start - 1] ?? '');
    if (!(prefix && prefixStands)) return true;
  }
  const next = runs[index + 1];
  return (
    next !== undefined && next.start === run.end + 1 && GLUE.has(line[run.end] as string) && !next.digits
  );
}

/** "12-05-24" read as day-month-year, month-day-year or year-month-day. */
function readsAsDate(group: Run[]): boolean {
  const [a, b, c] = group.map((r) => Number(r.text)) as [number, number, number];
  const day = (n: number): boolean => n >= 1 && n <= 31;
  const month = (n: number): boolean => n >= 1 && n <= 12;
  return (day(a) && month(b)) || (month(a) && day(b)) || (month(b) && day(c));
}

/**
 * Groups that spell one code: the same separator throughout and groups of one size ("482 913", "48-29-13",
 * "77 31 05 96", "4821 9912"), or single digits spaced out ("4 8 2 9 1 3"). Years side by side and dashed
 * triples that read as a date are not codes.
 */
function codeGroups(group: Run[], seps: string[]): boolean {
  const size = (group[0] as Run).text.length;
  if (!group.every((r) => r.text.length === size) || !seps.every((s) => s === seps[0])) return false;
  if (size === 1) return group.length >= 4 && seps[0] !== '-';
  if (size > 4 || group.every((r) => isYear(r.text))) return false;
  if (size === 2 && group.length === 3 && !isSpaceRun(seps[0] as string)) return !readsAsDate(group);
  return true;
}

function numericTokens(line: string, runs: Run[], min: number, max: number): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < runs.length) {
    const first = runs[i] as Run;
    if (!first.digits) {
      i++;
      continue;
    }
    // A cluster: digit runs joined by one separator character, or by the same run of spaces throughout
    // ("4  8  2  9  1  3", "481   207").
    let j = i;
    const seps: string[] = [];
    while (j + 1 < runs.length) {
      const cur = runs[j] as Run;
      const next = runs[j + 1] as Run;
      if (!next.digits) break;
      const sep = line.slice(cur.end, next.start);
      const single = sep.length === 1 && NUMBER_SEPARATORS.has(sep);
      const spaces = sep.length <= MAX_SPACE_RUN && isSpaceRun(sep);
      if (!(single || spaces)) break;
      // A different gap ends a cluster laid out in spaced columns ("4471 2093    1180 5536" is two numbers).
      const first = seps[0];
      if (first !== undefined && first !== sep && (sep.length > 1 || first.length > 1)) break;
      seps.push(sep);
      j++;
    }
    const base = i;
    const group = runs.slice(i, j + 1);
    i = j + 1;
    // INV-2025-00123, 112-4456723-8812: a number glued to a word, or dashed past any code length, is an id.
    if (gluedToWord(line, runs, base) || gluedToWord(line, runs, base + group.length - 1)) continue;
    const punctuated = seps.some((sep) => !isSpaceRun(sep));
    if (punctuated && group.reduce((n, r) => n + r.text.length, 0) > max) continue;
    const push = (k: number, loose: boolean): void => {
      const run = group[k] as Run;
      if (run.text.length < min || run.text.length > max) return;
      tokens.push({ code: run.text, start: run.start, end: run.end, kind: 'numeric', loose });
    };
    if (group.length === 1) {
      push(0, false);
      continue;
    }
    // Dates, times, decimals, versions and IP addresses.
    if (seps.some((s) => !isGroupSeparator(s))) continue;
    const joined = group.map((r) => r.text).join('');
    if (codeGroups(group, seps) && joined.length >= min && joined.length <= max) {
      const last = group[group.length - 1] as Run;
      tokens.push({ code: joined, start: first.start, end: last.end, kind: 'numeric', loose: false });
      continue;
    }
    // 2025-03-04, 04-03-25: a short group between dashes is a date.
    if (punctuated && group.some((r) => r.text.length <= 2)) continue;
    for (let k = 0; k < group.length; k++) push(k, true);
  }
  return tokens;
}

const LETTER = /[A-Za-z]/;
const DIGIT = /[0-9]/;

/** Digits and letters counted in a string of [A-Za-z0-9]. */
function mix(code: string): { letters: number; digits: number } {
  let digits = 0;
  for (let k = 0; k < code.length; k++) if (DIGIT.test(code[k] as string)) digits++;
  return { letters: code.length - digits, digits };
}

/**
 * Letter+digit codes in any case, alone or in dashed or spaced groups ("QX7-M2P", "k3m9-x2q7", "HX4 92T"),
 * upper-cased without separators. Lower-case strings need more of both kinds, as words with a digit in them
 * (mp3, web3) are common in prose.
 */
function alnumTokens(line: string, runs: Run[]): Token[] {
  const tokens: Token[] = [];
  const consider = (parts: Run[]): boolean => {
    const written = parts.map((p) => p.text).join('');
    if (written.length < 4 || written.length > 10) return false;
    const { letters, digits } = mix(written);
    if (letters === 0 || digits === 0) return false;
    const lower = parts.some((p) => p.lower);
    if (lower && (letters < 2 || digits < 2 || (parts.length === 1 && written.length < 6))) return false;
    const code = written.toUpperCase();
    if (NOT_CODE_TOKENS.has(code)) return false;
    // Capital-X masks followed by digits are a masked card or account number.
    if (/^X{2,}[0-9]+$/.test(code)) return false;
    const first = parts[0] as Run;
    const last = parts[parts.length - 1] as Run;
    // Glued to a word or an identifier on either side: part of something longer.
    if (/[A-Za-z0-9_]/.test(line[first.start - 1] ?? '') || /[A-Za-z0-9_]/.test(line[last.end] ?? ''))
      return false;
    tokens.push({ code, start: first.start, end: last.end, kind: 'alnum', loose: false });
    return true;
  };
  let i = 0;
  while (i < runs.length) {
    const run = runs[i] as Run;
    if (run.digits && runs[i + 1] === undefined) {
      i++;
      continue;
    }
    const parts = [run];
    let j = i;
    while (j + 1 < runs.length && parts.length < 4) {
      const cur = runs[j] as Run;
      const next = runs[j + 1] as Run;
      const sep = line[cur.end] ?? '';
      const spaced =
        sep === ' ' && DIGIT.test(cur.text) && DIGIT.test(next.text) && LETTER.test(cur.text + next.text);
      const dashed = sep === '-' || sep === '\u2011';
      if (next.start !== cur.end + 1 || !(spaced || dashed)) break;
      if (cur.text.length < 2 || next.text.length < 2 || cur.text.length > 6 || next.text.length > 6) break;
      // One case throughout: "Wi-Fi 6E" or "e-Mail" mix cases, codes do not.
      if ((cur.lower && next.upper) || (cur.upper && next.lower)) break;
      parts.push(next);
      j++;
    }
    if (parts.length > 1 && consider(parts)) {
      i = j + 1;
      continue;
    }
    if (!run.digits) consider([run]);
    i++;
  }
  return tokens;
}

/** Candidate tokens of one line, with address, phone and IBAN spans already removed. */
export function lineTokens(line: string, minDigits: number, maxDigits: number): Token[] {
  const runs = runsOf(line);
  if (runs.length === 0) return [];
  const blocked = [...addressSpans(line), ...phoneSpans(line), ...ibanSpans(line)];
  const tokens = [...numericTokens(line, runs, minDigits, maxDigits), ...alnumTokens(line, runs)];
  const sorted = tokens.filter((t) => line[t.start - 1] !== '#').sort((a, b) => a.start - b.start);
  return outsideSpans(sorted, blocked);
}
