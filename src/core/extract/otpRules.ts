// The negative rules for a numeric token: what around it makes it a year, a price, a time, a card's
// last digits, a ZIP code or a quantity. Each check looks only a few characters around the token.
import { findHits, lowerSameLength, wordTable, type Hit } from './keywordHits.ts';
import type { Token } from './otpTokens.ts';
import { CURRENCY_CODES, CURRENCY_SYMBOLS, DATE_WORDS, LAST_DIGITS_WORDS, UNIT_WORDS } from './vocabulary.ts';

const LAST_DIGITS = wordTable(LAST_DIGITS_WORDS);
const DATES = wordTable(DATE_WORDS);
const UNITS = new Set(UNIT_WORDS);
const CURRENCIES = new Set(CURRENCY_CODES);
const MASK = '*•●·∙◦xX…';
const CJK_AFTER = /^[\u3000-\u9fff]/u;

/** The word right before `at` (skipping one space), lower-cased. */
function wordBefore(line: string, at: number): string {
  let end = at;
  if (line[end - 1] === ' ' || line[end - 1] === '\u00a0') end--;
  let start = end;
  while (start > 0 && end - start < 12 && /[\p{L}$]/u.test(line[start - 1] as string)) start--;
  return line.slice(start, end).toLowerCase();
}

/** The word right after `at` (skipping one space), lower-cased; one character for CJK scripts. */
function wordAfter(line: string, at: number): string {
  let start = at;
  if (line[start] === ' ' || line[start] === '\u00a0') start++;
  if (line[start] === '%') return '%';
  if (CJK_AFTER.test(line[start] ?? '')) return line.slice(start, start + 2);
  let end = start;
  while (end < line.length && end - start < 12 && /\p{L}/u.test(line[end] as string)) end++;
  return line.slice(start, end).toLowerCase();
}

function nearChar(line: string, at: number, step: 1 | -1): string {
  let k = step === 1 ? at : at - 1;
  if (line[k] === ' ' || line[k] === '\u00a0') k += step;
  return line[k] ?? '';
}

/** Masked digits: "•••• 1234", "****1234", or capital-X masks before the last digits. A lone "*" both sides is markdown bold. */
function masked(line: string, start: number, end: number): boolean {
  let k = start - 1;
  if (line[k] === ' ' || line[k] === '-') k--;
  let count = 0;
  while (k >= 0 && line[k] !== '' && MASK.includes(line[k] as string) && count < 8) {
    count++;
    k--;
    if (line[k] === ' ' || line[k] === '-') k--;
  }
  if (count === 0) return false;
  const bullet = /[•●·∙◦…]/.test(line[start - 1] ?? '') || /[•●·∙◦…]/.test(line[start - 2] ?? '');
  if (count === 1 && !bullet) return line[start - 1] === '*' ? line[end] !== '*' : false;
  return true;
}

export interface RuleResult {
  drop: boolean;
  /** Multiplier on the token's score, 1 when nothing applies. */
  factor: number;
  /** The number reads as a year (and is not dropped only because nothing dates it). */
  year: boolean;
  reason: string | null;
}

const KEEP: RuleResult = { drop: false, factor: 1, reason: null, year: false };
const drop = (reason: string): RuleResult => ({ drop: true, factor: 0, reason, year: false });

/** How much less a number that reads as a year (with nothing dating it) is worth. */
export const YEAR_FACTOR = 0.55;

function isYear(code: string): boolean {
  // Years mail talks about: 1900-2039. A "2087" is more likely a code than a date.
  return code.length === 4 && (code.startsWith('19') || (code.startsWith('20') && (code[2] ?? '') <= '3'));
}

export function numericRules(line: string, token: Token): RuleResult {
  const { start, end, code } = token;
  const before = nearChar(line, start, -1);
  const after = nearChar(line, end, 1);
  if (before === '+') return drop('phone');
  if (
    (before !== '' && CURRENCY_SYMBOLS.includes(before)) ||
    (after !== '' && CURRENCY_SYMBOLS.includes(after))
  ) {
    return drop('price');
  }
  if (CURRENCIES.has(wordBefore(line, start)) || CURRENCIES.has(wordAfter(line, end))) return drop('price');
  if (masked(line, start, end)) return drop('masked digits');
  const lowerBefore = lowerSameLength(line.slice(Math.max(0, start - 24), start));
  // Only when the phrase leads straight to this number: "ending in 4417 is 604215" keeps the code.
  const lastDigits = findHits(lowerBefore, LAST_DIGITS).some((h) =>
    /^[\s:*•·xX.-]*$/.test(lowerBefore.slice(h.end)),
  );
  if (lastDigits) return drop('last digits of a card or phone');
  const next = wordAfter(line, end);
  if (next === '%') return drop('percentage');
  if (next.startsWith('年') || next.startsWith('円') || next.startsWith('元')) return drop('year or price');
  // "CA 94107": a US state before five digits.
  if (code.length === 5 && /[A-Z]{2}[ \u00a0]$/.test(line.slice(Math.max(0, start - 3), start))) {
    if (!/[A-Za-z]/.test(line[start - 4] ?? '')) return drop('postcode');
  }
  let factor = 1;
  let reason: string | null = null;
  if (isYear(code)) {
    const window = lowerSameLength(line.slice(Math.max(0, start - 24), Math.min(line.length, end + 24)));
    if (findHits(window, DATES).length > 0) return drop('year');
    factor *= YEAR_FACTOR;
    reason = 'looks like a year';
  }
  if (UNITS.has(CJK_AFTER.test(next) ? next.slice(0, 1) : next)) {
    factor *= 0.3;
    reason = 'quantity';
  }
  if (token.loose) factor *= 0.6;
  return factor === 1 ? KEEP : { drop: false, factor, reason, year: reason === 'looks like a year' };
}

/** Whether a footer word sits shortly before [start, end), or after it in the same sentence. */
export function nearFooter(line: string, footer: Hit[], start: number, end: number): boolean {
  return footer.some(
    (h) =>
      (h.end <= start && h.end > start - 80) ||
      (h.start >= end && h.start < end + 40 && !/[.!?。] /.test(line.slice(end, h.start))),
  );
}
