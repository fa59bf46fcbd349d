// Scores OTP tokens: nearness to code words (and to words naming other numbers), standing alone on a
// line, emphasis, old-versus-new wording, and the negative rules. Scores are 0..~1.3 before the caller clamps
// them. A mail is read in two steps: each line once for its words and tokens (readLine), then, knowing what
// the whole mail says (MailContext), into the hits the scoring uses (analyseLine).
import { findHits, lowerSameLength, wordTable, type Hit } from './keywordHits.ts';
import type { TextLine } from './lines.ts';
import { nearFooter, numericRules, YEAR_FACTOR, type RuleResult } from './otpRules.ts';
import { asciiFold, lineTokens, type Token } from './otpTokens.ts';
import {
  AMBIVALENT_WORDS,
  CODE_WORDS,
  ENTRY_WORDS,
  FOOTER_WORDS,
  FRESH_WORDS,
  NOT_OTP_CODES,
  OLD_WORDS,
  OTHER_NUMBER_WORDS,
} from './vocabulary.ts';

const CODE = 0;
const NOT_OTP = 1;
const OTHER = 2;
const FOOTER = 3;
const AMBIVALENT = 4;
const OLD = 5;
const FRESH = 6;
const ENTRY = 7;
/** Every list a line is read for, in one table so a line is scanned once. */
const LABELS = wordTable([
  ...CODE_WORDS.map(([w, weight]) => [w, weight, CODE] as const),
  ...NOT_OTP_CODES.map((w) => [w, 1, NOT_OTP] as const),
  ...OTHER_NUMBER_WORDS.map((w) => [w, 1, OTHER] as const),
  ...FOOTER_WORDS.map((w) => [w, 1, FOOTER] as const),
  ...AMBIVALENT_WORDS.map((w) => [w, 1, AMBIVALENT] as const),
  ...OLD_WORDS.map((w) => [w, 1, OLD] as const),
  ...FRESH_WORDS.map((w) => [w, 1, FRESH] as const),
  ...ENTRY_WORDS.map((w) => [w, 1, ENTRY] as const),
]);

interface LabelHit extends Hit {
  negative: boolean;
}

/** One line read once: its words of every list and its candidate tokens. */
export interface ReadLine {
  text: string;
  emph: Array<[number, number]>;
  all: Hit[];
  tokens: Array<{ token: Token; rules: RuleResult | null }>;
}

/** What the whole mail says, which decides how some words on a line count. */
export interface MailContext {
  /** Some line asks to type a code in ("enter", "expires", "do not share"). */
  entryWord: boolean;
  /** Some line outside the footer labels another kind of number (order, amount, flight, booking). */
  otherWord: boolean;
  /** Some line has an ambivalent label ("approval code"). */
  ambivalentWord: boolean;
  /** Some line (or the subject) has a code word: a number no code word points at may still be the code. */
  codeWord: boolean;
  /** Some line calls a code old, previous or expired: "new" then picks the code to use. */
  oldWord: boolean;
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
  /** Old and new markers ("previous", "new"), sorted by start; kind OLD or FRESH. */
  age: Hit[];
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

/** Reads a line once: every word of every list, and the candidate tokens with the numeric rules' verdict. */
export function readLine(line: TextLine, minDigits = 4, maxDigits = 8): ReadLine {
  const text = asciiFold(line.text);
  const all = findHits(lowerSameLength(text), LABELS);
  const tokens = lineTokens(text, minDigits, maxDigits).map((token) => ({
    token,
    rules: token.kind === 'numeric' ? numericRules(text, token) : null,
  }));
  return { text, emph: line.emph, all, tokens };
}

/**
 * Whether a label of another number labels one here: a value follows it ("Amount: $14.60", "Flight SK 1803") or
 * it ends its line, as a table's label cell does. "Verify your account." labels nothing.
 */
function labelsValue(text: string, hit: Hit): boolean {
  const after = text.slice(hit.end, hit.end + 24);
  return (
    /^\s*[:：#№]?\s*$/.test(after) ||
    /^\s*[:：#№]?\s*(?:[\p{L}.]{1,8}\s+)?[:：#№]?\s*[$€£¥₹₩₽₺]?\s*\p{N}/u.test(after)
  );
}

/** What a set of read lines says about the mail as a whole; contexts of several parts combine with `joinContext`. */
export function contextOf(lines: ReadLine[]): MailContext {
  const context = {
    entryWord: false,
    otherWord: false,
    ambivalentWord: false,
    codeWord: false,
    oldWord: false,
  };
  for (const line of lines) {
    const footer = line.all.some((h) => h.kind === FOOTER);
    for (const h of line.all) {
      if (h.kind === ENTRY) context.entryWord = true;
      else if (h.kind === OLD) context.oldWord = true;
      else if (h.kind === OTHER && !footer && !context.otherWord)
        context.otherWord = labelsValue(line.text, h);
      else if (h.kind === AMBIVALENT) context.ambivalentWord = true;
    }
    if (!context.codeWord) {
      // "promo code" is not a code word: hits inside a not-OTP label do not count.
      const strong = line.all.filter((h) => h.kind === CODE && h.weight >= 0.8);
      const hiding = line.all.filter((h) => h.kind === NOT_OTP);
      context.codeWord = strong.length > 0 && notInside(strong, hiding).length > 0;
    }
  }
  return context;
}

export function joinContext(a: MailContext, b: MailContext): MailContext {
  return {
    entryWord: a.entryWord || b.entryWord,
    otherWord: a.otherWord || b.otherWord,
    ambivalentWord: a.ambivalentWord || b.ambivalentWord,
    codeWord: a.codeWord || b.codeWord,
    oldWord: a.oldWord || b.oldWord,
  };
}

/**
 * "Approval code" and "confirmation code" name a one-time code in a mail that asks to type one in, or that
 * labels no other number; on a receipt or a booking (amounts, flights, orders, and nothing to enter) they
 * name its approval or booking number.
 */
const ambivalentIsCode = (c: MailContext): boolean => c.entryWord || !c.otherWord;

/** Whether some word of the mail points at a code: a code word, or an ambivalent label read as one. */
const namesACode = (c: MailContext): boolean => c.codeWord || (c.ambivalentWord && ambivalentIsCode(c));

export function analyseLine(read: ReadLine, context: MailContext): AnalysedLine {
  const { text, all, tokens } = read;
  const ambivalent = all.filter((h) => h.kind === AMBIVALENT);
  // A receipt's "approval code" hides the "code" in it, as "promo code" does.
  const asCode = ambivalentIsCode(context);
  const notOtp = all.filter((h) => h.kind === NOT_OTP || (h.kind === AMBIVALENT && !asCode));
  const codeHits = notInside(
    [...all.filter((h) => h.kind === CODE), ...(asCode ? ambivalent : [])].sort((a, b) => a.start - b.start),
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
    emph: read.emph,
    hits,
    tokens,
    candidatesBefore,
    footer: all.filter((h) => h.kind === FOOTER),
    notOtpCode: notOtp.length > 0,
    age: all.filter((h) => h.kind === OLD || h.kind === FRESH),
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

/** Where the clause holding `at` starts: after the last sentence or clause mark before it. */
function clauseStart(text: string, at: number): number {
  for (let k = at - 1; k >= 0 && k >= at - 200; k--) {
    const c = text[k] as string;
    if ('。！？；，、'.includes(c)) return k + 1;
    if ('.!?;,—–'.includes(c) && (text[k + 1] === ' ' || text[k + 1] === undefined)) return k + 1;
  }
  return Math.max(0, at - 200);
}

/** Where the clause holding `at` ends: at the next sentence or clause mark. */
function clauseEnd(text: string, at: number): number {
  for (let k = at; k < text.length && k < at + 200; k++) {
    const c = text[k] as string;
    if ('。！？；，、'.includes(c)) return k;
    if ('.!?;,—–'.includes(c) && (text[k + 1] === ' ' || text[k + 1] === undefined)) return k;
  }
  return Math.min(text.length, at + 200);
}

/**
 * Whether a word naming another number is a label of what follows ("Order number:", "Your ticket number is")
 * rather than the object of a sentence about a code ("Use this code to verify your account:"). A label opens its
 * clause; deep in a clause that a code word started, the word is what the code is for.
 */
function labels(line: AnalysedLine, hit: LabelHit): boolean {
  const from = clauseStart(line.text, hit.start);
  const before = line.text.slice(from, hit.start).trim();
  if (before === '' || before.split(/\s+/).length <= 3) return true;
  // Hits are sorted by end, and a clause is at most 200 characters: this walks a few hits, not the line.
  for (let k = lastHitIndexBefore(line.hits, hit.start); k >= 0; k--) {
    const h = line.hits[k] as LabelHit;
    if (h.end < from) break;
    if (!h.negative && h.weight >= 0.45 && h.start >= from) return false;
  }
  return true;
}

/** What a line above says about a token: its strongest code word, or a label it ends with. */
function lineAbove(prev: AnalysedLine, decay: number): Influence {
  const lastHit = prev.hits[prev.hits.length - 1] as LabelHit;
  if (lastHit.negative && endsWith(prev, lastHit) && labels(prev, lastHit)) {
    return { positive: 0, negative: lastHit.weight * decay };
  }
  // A line reads as a whole: "Your confirmation code is below; enter it with your account" is about a code.
  let best: LabelHit | undefined;
  for (const hit of prev.hits)
    if (!hit.negative && (best === undefined || hit.weight > best.weight)) best = hit;
  if (best === undefined) return { positive: 0, negative: 0 };
  // A line ending in a colon introduces what comes next, whatever it named on the way ("… to account jdoe42:").
  const blocked = candidateBetween(prev, best.end, prev.text.length) && !/[:：]\s*$/.test(prev.text);
  return { positive: best.weight * decay * (blocked ? 0.6 : 1), negative: 0 };
}

/**
 * What the line below says about a token with nothing said before it: a code shown first and named after
 * ("K7M2Q9" / "Enter the code above to sign in"). The line must open with its point: a code word in its first
 * words, before any label of another number.
 */
function lineBelow(below: AnalysedLine | undefined, alone: boolean, short: boolean): number {
  if (below === undefined || !short) return 0;
  const first = below.hits.reduce<LabelHit | undefined>(
    (a, h) => (a === undefined || h.start < a.start ? h : a),
    undefined,
  );
  if (first === undefined || first.negative) return 0;
  if (!alone) return first.weight * 0.4;
  let best = 0;
  for (const h of below.hits) {
    if (h.start > 60) continue;
    if (h.negative) return best * 0.7;
    best = Math.max(best, h.weight);
  }
  return best * 0.7;
}

/**
 * How code words and other labels around a token bear on it. On its own line the strongest code word before it
 * counts, but the label nearest before it decides when that names another number ("order number: 88120934").
 * Lines above count when this one says little; one word after it ("482913 is your code") can also vouch.
 */
function influence(
  lines: AnalysedLine[],
  index: number,
  token: Token,
  short: boolean,
  alone: boolean,
): Influence {
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
      if (nearest && !blocked && negBefore(d) > 0 && labels(line, hit)) negative = hit.weight * negBefore(d);
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
  if (positive === 0 && negative === 0) positive = lineBelow(lines[index + 1], alone, short);
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

/** The old or new marker nearest a token in its clause, before it first ("your previous code 4821"), then after. */
function markerNear(line: AnalysedLine, start: number, end: number): number | null {
  if (line.age.length === 0) return null;
  const from = clauseStart(line.text, start);
  const to = clauseEnd(line.text, end);
  // Markers are sorted by start and a clause is at most 200 characters each side: only its markers are read.
  let k = firstStartingAt(line.age, from);
  let before: Hit | undefined;
  let after: Hit | undefined;
  for (; k < line.age.length; k++) {
    const h = line.age[k] as Hit;
    if (h.start >= to || h.start - end > 30) break;
    if (h.end <= start && (before === undefined || h.end > before.end)) before = h;
    if (h.start >= end && after === undefined) after = h;
  }
  return (before ?? after)?.kind ?? null;
}

/** The index of the first hit starting at or after `pos`, by binary search over hits sorted by start. */
function firstStartingAt(hits: Hit[], pos: number): number {
  let lo = 0;
  let hi = hits.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((hits[mid] as Hit).start < pos) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether a token is called old or new: in its own clause, or for a code alone on its line, in the label above. */
function ageOf(lines: AnalysedLine[], index: number, token: Token, alone: boolean): number | null {
  const own = markerNear(lines[index] as AnalysedLine, token.start, token.end);
  if (own !== null || !alone) return own;
  const prev = lines[index - 1];
  if (prev === undefined) return null;
  const end = prev.text.length;
  return markerNear(prev, end, end);
}

/** How much an old code ("your previous code 712004") is worth next to the new one. */
const OLD_FACTOR = 0.45;
const FRESH_BONUS = 0.1;

export function scoreToken(
  lines: AnalysedLine[],
  index: number,
  token: Token,
  rules: RuleResult | null,
  context: MailContext,
): ScoredToken | null {
  const line = lines[index] as AnalysedLine;
  const alone = standsAlone(line, token);
  const short = alone || line.text.length <= 40;
  const { positive, negative } = influence(lines, index, token, short, alone);
  // A bold number in a mail that names no code anywhere is an order, a booking or a sum in a language the
  // vocabulary lacks, not a code.
  if (positive === 0 && !namesACode(context)) return null;
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
  const age = context.oldWord ? ageOf(lines, index, token, alone) : null;
  if (age === OLD) factor *= OLD_FACTOR;
  else if (age === FRESH) score += FRESH_BONUS;
  return { token, score: score * factor, alone };
}

/** The weight of the strongest code word in a line read in a mail's context, 0 when there is none. */
export function codeWordWeight(read: ReadLine, context: MailContext): number {
  return analyseLine(read, context).hits.reduce((w, h) => (h.negative ? w : Math.max(w, h.weight)), 0);
}

/** All scored tokens of a block of read lines, in reading order, in the context of the whole mail. */
export function scoreLines(
  lines: ReadLine[],
  context: MailContext,
): Array<ScoredToken & { line: number; lines: AnalysedLine[] }> {
  const analysed = lines.map((line) => analyseLine(line, context));
  const out: Array<ScoredToken & { line: number; lines: AnalysedLine[] }> = [];
  analysed.forEach((line, index) => {
    for (const { token, rules } of line.tokens) {
      const scored = scoreToken(analysed, index, token, rules, context);
      if (scored !== null && scored.score > 0) out.push({ ...scored, line: index, lines: analysed });
    }
  });
  return out;
}
