// Scores OTP tokens: nearness to code words (and to words naming other numbers), standing alone on a
// line, emphasis, and the negative rules. Scores are 0..~1.3 before the caller clamps them.
import { findHits, lowerSameLength, wordTable, type Hit } from './keywordHits.ts';
import type { TextLine } from './lines.ts';
import { nearFooter, numericRules, YEAR_FACTOR, type RuleResult } from './otpRules.ts';
import { asciiFold, lineTokens, type Token } from './otpTokens.ts';
import { CODE_WORDS, FOOTER_WORDS, NOT_OTP_CODES, OTHER_NUMBER_WORDS } from './vocabulary.ts';

const CODE = 0;
const NOT_OTP = 1;
const OTHER = 2;
const FOOTER = 3;
/** Every list a line is read for, in one table so a line is scanned once. */
const LABELS = wordTable([
  ...CODE_WORDS.map(([w, weight]) => [w, weight, CODE] as const),
  ...NOT_OTP_CODES.map((w) => [w, 1, NOT_OTP] as const),
  ...OTHER_NUMBER_WORDS.map((w) => [w, 1, OTHER] as const),
  ...FOOTER_WORDS.map((w) => [w, 1, FOOTER] as const),
]);

interface LabelHit extends Hit {
  negative: boolean;
}

export interface AnalysedLine {
  text: string;
  emph: Array<[number, number]>;
  /** Code words and other-number words, sorted by end. */
  hits: LabelHit[];
  /** The line's candidate tokens, with the numeric rules' verdict (null for letter+digit tokens). */
  tokens: Array<{ token: Token; rules: RuleResult | null }>;
  /** candidatesBefore[i] = candidate tokens starting in text[0, i). */
  candidatesBefore: Uint32Array;
  /** Footer and postal-address words. */
  footer: Hit[];
  notOtpCode: boolean;
}

/** Hits not contained in any `outer` hit; both sorted by start, so one sweep suffices. */
function notInside(hits: Hit[], outer: Hit[]): Hit[] {
  const kept: Hit[] = [];
  let k = 0;
  let reach = -1;
  for (const h of hits) {
    while (k < outer.length && (outer[k] as Hit).start <= h.start) {
      reach = Math.max(reach, (outer[k] as Hit).end);
      k++;
    }
    if (reach < h.end) kept.push(h);
  }
  return kept;
}

export function analyseLine(line: TextLine, minDigits = 4, maxDigits = 8): AnalysedLine {
  const text = asciiFold(line.text);
  const lower = lowerSameLength(text);
  const all = findHits(lower, LABELS);
  const notOtp = all.filter((h) => h.kind === NOT_OTP);
  const codeHits = notInside(
    all.filter((h) => h.kind === CODE),
    notOtp,
  );
  const other = notInside(
    all.filter((h) => h.kind === OTHER),
    codeHits,
  );
  const hits: LabelHit[] = [
    ...codeHits.map((h) => ({ ...h, negative: false })),
    ...[...notOtp, ...other].map((h) => ({ ...h, negative: true })),
  ].sort((a, b) => a.end - b.end || a.weight - b.weight);
  const tokens = lineTokens(text, minDigits, maxDigits).map((token) => ({
    token,
    rules: token.kind === 'numeric' ? numericRules(text, token) : null,
  }));
  // Only a number that could itself be the code stands between a code word and a later number: a price, a
  // card's last digits or the "2" of "eu2" cannot be what "Your passcode for … is" names.
  const candidatesBefore = new Uint32Array(text.length + 1);
  for (const { token, rules } of tokens) {
    if (rules === null || !rules.drop) candidatesBefore[token.start + 1] = 1;
  }
  for (let i = 0; i < text.length; i++) {
    candidatesBefore[i + 1] = (candidatesBefore[i + 1] as number) + (candidatesBefore[i] as number);
  }
  return {
    text,
    emph: line.emph,
    hits,
    tokens,
    candidatesBefore,
    footer: all.filter((h) => h.kind === FOOTER),
    notOtpCode: notOtp.length > 0,
  };
}

/** Whether a candidate number starts in [from, to). */
function candidateBetween(line: AnalysedLine, from: number, to: number): boolean {
  return to > from && (line.candidatesBefore[to] as number) - (line.candidatesBefore[from] as number) > 0;
}

const proxBefore = (d: number): number => (d <= 12 ? 1 : d <= 40 ? 0.85 : d <= 80 ? 0.6 : 0.4);
const proxAfter = (d: number): number => (d <= 20 ? 0.9 : d <= 50 ? 0.6 : 0.3);
const negBefore = (d: number): number => (d <= 8 ? 1 : d <= 20 ? 0.8 : d <= 40 ? 0.5 : 0);
const lineDecay = [0, 0.8, 0.55, 0.35];

/** Hits at or before `pos`, nearest first, by binary search over hits sorted by end. */
function lastHitIndexBefore(hits: LabelHit[], pos: number): number {
  let lo = 0;
  let hi = hits.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((hits[mid] as LabelHit).end <= pos) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

interface Influence {
  /** 0..1: how strongly a code word points at this token. */
  positive: number;
  /** 0..1: how strongly a word naming another kind of number points at it. */
  negative: number;
}

/**
 * Whether a line is a label ending with this hit: "Order number:" or a short "Tracking number" cell names what
 * follows; "…to finish setting up your account." is a sentence and names nothing.
 */
function endsWith(line: AnalysedLine, hit: Hit): boolean {
  const rest = line.text.slice(hit.end);
  if (rest.length > 4 || !/^\s*[:：#№]?\s*$/.test(rest)) return false;
  return rest.includes(':') || rest.includes('：') || line.text.length <= 40;
}

/**
 * Whether a word after a token is a label of its own value ("… 204817 (Ref: WQPN)", "… 198765 · BIC code: X"):
 * it then names what follows it, and says nothing about the number before it.
 */
function labelsWhatFollows(line: AnalysedLine, hit: Hit): boolean {
  return /^[^\p{L}\p{N}]{0,2}[:：#№]\s*[\p{L}\p{N}]/u.test(line.text.slice(hit.end, hit.end + 12));
}

/** What a line above says about a token: its strongest code word, or a label it ends with. */
function lineAbove(prev: AnalysedLine, decay: number): Influence {
  const lastHit = prev.hits[prev.hits.length - 1] as LabelHit;
  if (lastHit.negative && endsWith(prev, lastHit)) return { positive: 0, negative: lastHit.weight * decay };
  // A line reads as a whole: "Your confirmation code is below; enter it with your account" is about a code.
  let best: LabelHit | undefined;
  for (const hit of prev.hits)
    if (!hit.negative && (best === undefined || hit.weight > best.weight)) best = hit;
  if (best === undefined) return { positive: 0, negative: 0 };
  const blocked = candidateBetween(prev, best.end, prev.text.length);
  return { positive: best.weight * decay * (blocked ? 0.6 : 1), negative: 0 };
}

/**
 * How code words and other labels around a token bear on it. On its own line the strongest code word before it
 * counts, but the label nearest before it decides when that names another number ("order number: 88120934").
 * Lines above count when this one says little; one word after it ("482913 is your code") can also vouch.
 */
function influence(lines: AnalysedLine[], index: number, token: Token, short: boolean): Influence {
  const line = lines[index] as AnalysedLine;
  let positive = 0;
  let negative = 0;
  let nearest = true;
  const last = lastHitIndexBefore(line.hits, token.start);
  for (let k = last; k >= 0 && k > last - 8; k--) {
    const hit = line.hits[k] as LabelHit;
    const blocked = candidateBetween(line, hit.end, token.start);
    const d = token.start - hit.end;
    if (hit.negative) {
      if (nearest && !blocked && negBefore(d) > 0) negative = hit.weight * negBefore(d);
    } else {
      positive = Math.max(positive, hit.weight * proxBefore(d) * (blocked ? 0.6 : 1));
    }
    nearest = false;
  }
  for (let up = 1; negative === 0 && positive < 0.8 && up <= 3 && index - up >= 0; up++) {
    const prev = lines[index - up] as AnalysedLine;
    if (prev.hits.length === 0) continue;
    const above = lineAbove(prev, (lineDecay[up] as number) * (short ? 1 : 0.6));
    if (last < 0) negative = above.negative;
    positive = Math.max(positive, above.positive);
    break;
  }
  let after: LabelHit | undefined;
  for (let k = last + 1; k < line.hits.length && k <= last + 8 && after === undefined; k++) {
    if ((line.hits[k] as LabelHit).start >= token.end) after = line.hits[k];
  }
  if (after !== undefined && labelsWhatFollows(line, after)) after = undefined;
  if (after !== undefined) {
    const d = after.start - token.end;
    if (!after.negative) {
      const blocked = candidateBetween(line, token.end, after.start);
      positive = Math.max(positive, after.weight * proxAfter(d) * (blocked ? 0.5 : 1));
    } else if (negative === 0 && d <= 20) {
      negative = 0.5 * after.weight;
    }
  }
  if (positive === 0 && negative === 0) {
    const below = lines[index + 1]?.hits[0];
    if (below !== undefined && !below.negative && short) positive = below.weight * 0.4;
  }
  return { positive, negative };
}

function emphasised(line: AnalysedLine, token: Token): boolean {
  if (line.text[token.start - 1] === '*' && line.text[token.end] === '*') return true;
  let lo = 0;
  let hi = line.emph.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((line.emph[mid] as [number, number])[1] <= token.start) lo = mid + 1;
    else hi = mid;
  }
  const range = line.emph[lo];
  return range !== undefined && range[0] <= token.start;
}

function standsAlone(line: AnalysedLine, token: Token): boolean {
  // Anything much longer than the token holds words; checking only short lines keeps this O(1).
  if (line.text.length - (token.end - token.start) > 24) return false;
  const rest = line.text.slice(0, token.start) + line.text.slice(token.end);
  return !/[\p{L}\p{N}]/u.test(rest);
}

export interface ScoredToken {
  token: Token;
  score: number;
  alone: boolean;
}

const WORD_AND_NUMBER = /^(?:[A-Z]{3,}[0-9]{1,4}|[0-9]{1,4}[A-Z]{3,})$/;

const LENGTH_BONUS: Record<number, number> = { 5: 0.03, 6: 0.08, 7: 0.03 };

export function scoreToken(
  lines: AnalysedLine[],
  index: number,
  token: Token,
  rules: RuleResult | null,
): ScoredToken | null {
  const line = lines[index] as AnalysedLine;
  const alone = standsAlone(line, token);
  const short = alone || line.text.length <= 40;
  const { positive, negative } = influence(lines, index, token, short);
  let factor = 1;
  let score: number;
  if (token.kind === 'alnum') {
    // Letter+digit strings are everywhere (SKUs, model names); only a code word next to one makes it a code.
    if (positive < 0.5 || line.notOtpCode) return null;
    // A word and a number ("SPRING15", "TAK10") is how shops name discount codes; one-time codes are random.
    if (WORD_AND_NUMBER.test(token.code) && positive < 0.9) return null;
    score = 0.3;
  } else {
    if (rules === null || rules.drop) return null;
    // "Your PIN is 1987": a year-like number straight after a decisive code word is the code.
    factor = rules.year && positive >= 0.8 ? rules.factor / YEAR_FACTOR : rules.factor;
    score = 0.3 + (LENGTH_BONUS[token.code.length] ?? 0);
    if (line.notOtpCode) factor *= 0.6;
  }
  score += 0.45 * positive + (alone ? 0.15 : 0) + (emphasised(line, token) ? 0.12 : 0);
  if (negative > 0) score *= negative >= positive ? 1 - 0.85 * negative : 1 - 0.2 * negative;
  if (nearFooter(line.text, line.footer, token.start, token.end)) factor *= 0.3;
  return { token, score: score * factor, alone };
}

/** The weight of the strongest code word in a text, 0 when there is none. */
export function codeWordWeight(text: string): number {
  return analyseLine({ text, emph: [] }).hits.reduce((w, h) => (h.negative ? w : Math.max(w, h.weight)), 0);
}

/** All scored tokens of a block of lines, in reading order. */
export function scoreLines(
  lines: TextLine[],
  minDigits: number,
  maxDigits: number,
): Array<ScoredToken & { line: number; lines: AnalysedLine[] }> {
  const analysed = lines.map((line) => analyseLine(line, minDigits, maxDigits));
  const out: Array<ScoredToken & { line: number; lines: AnalysedLine[] }> = [];
  analysed.forEach((line, index) => {
    for (const { token, rules } of line.tokens) {
      const scored = scoreToken(analysed, index, token, rules);
      if (scored !== null && scored.score > 0) out.push({ ...scored, line: index, lines: analysed });
    }
  });
  return out;
}
