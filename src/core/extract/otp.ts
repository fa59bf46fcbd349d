// Finds the one-time code in an email: heuristic candidates from the subject, the text part and the
// HTML part, ranked by score; or, when the caller gives an RE2 pattern, its first match.
import { joinCharCells } from './charCells.ts';
import { htmlToLines, textToLines, type TextLine } from './lines.ts';
import {
  codeWordWeight,
  contextOf as mailContextOf,
  joinContext,
  readLine,
  scoreLines,
  type AnalysedLine,
  type MailContext,
  type ReadLine,
} from './otpScore.ts';
import { compileRe2, findAll, inputError, snippet } from './re2.ts';

export type OtpSource = 'subject' | 'text' | 'html';

export interface OtpInput {
  subject?: string | null;
  text?: string | null;
  html?: string | null;
}

export interface OtpOptions {
  /** RE2 expression with exactly one capture group around the code; replaces the heuristics. */
  pattern?: string;
  minDigits?: number;
  maxDigits?: number;
}

export interface OtpCandidate {
  code: string;
  confidence: number;
  source: OtpSource;
  context: string | null;
}

export interface OtpResult {
  status: 'found' | 'ambiguous' | 'not_found';
  /** Null unless status is "found": an ambiguous result leaves the choice to the caller. */
  code: string | null;
  confidence: number;
  source: OtpSource | null;
  context: string | null;
  /** Up to five distinct codes, best first. */
  candidates: OtpCandidate[];
}

/** Below this a candidate is not reported as the code. */
export const OTP_THRESHOLD = 0.55;
/** Two candidates closer than this are ambiguous. */
export const OTP_AMBIGUITY_MARGIN = 0.1;
const SUBJECT_AND_BODY_BONUS = 0.12;
/** A subject about a code ("Your one-time passcode") vouches for the numbers in the body. */
const SUBJECT_TOPIC_BONUS = 0.1;
const MAX_CANDIDATES = 5;
/** Codes sit near the top of a mail; bounding each part bounds the work on huge bodies. */
const MAX_SOURCE_CHARS = 1_000_000;

function linesOf(source: OtpSource, value: string): TextLine[] {
  const bounded = value.slice(0, MAX_SOURCE_CHARS);
  if (source === 'html') return joinCharCells(htmlToLines(bounded));
  if (source === 'subject') return textToLines(bounded.replace(/[\r\n]+/g, ' '));
  return joinCharCells(textToLines(bounded));
}

function sourcesOf(input: OtpInput): Array<[OtpSource, string]> {
  const out: Array<[OtpSource, string]> = [];
  for (const source of ['subject', 'text', 'html'] as const) {
    const value = input[source];
    if (typeof value === 'string' && value.trim() !== '') out.push([source, value]);
  }
  return out;
}

function integerOption(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > 16) {
    throw inputError(name, `${name} must be a whole number from 1 to 16; got ${String(value)}.`);
  }
  return value;
}

function contextOf(lines: AnalysedLine[], index: number, start: number, end: number, alone: boolean): string {
  const line = lines[index] as AnalysedLine;
  const prev = lines[index - 1];
  if (alone && prev !== undefined) {
    const joined = `${prev.text} ${line.text}`;
    const offset = prev.text.length + 1;
    return snippet(joined, offset + start, offset + end);
  }
  return snippet(line.text, start, end);
}

interface Ranked {
  code: string;
  score: number;
  confidence: number;
  source: OtpSource;
  sources: Set<OtpSource>;
  lines: AnalysedLine[];
  line: number;
  start: number;
  end: number;
  alone: boolean;
  kind: 'numeric' | 'alnum';
}

/** Context is built only for the few candidates reported: a huge body can hold thousands of tokens. */
function reported(r: Ranked): OtpCandidate {
  return {
    code: r.code,
    confidence: r.confidence,
    source: r.source,
    context: contextOf(r.lines, r.line, r.start, r.end, r.alone),
  };
}

/** Codes of one shape on neighbouring lines of their own are a list (backup codes), not one answer. */
function inList(top: Ranked, others: Ranked[]): boolean {
  return (
    top.alone &&
    others.some(
      (r) =>
        r !== top &&
        r.alone &&
        r.score >= 0.4 &&
        r.source === top.source &&
        r.kind === top.kind &&
        r.code.length === top.code.length &&
        Math.abs(r.line - top.line) <= 2,
    )
  );
}

const NO_CONTEXT: MailContext = {
  entryWord: false,
  otherWord: false,
  ambivalentWord: false,
  codeWord: false,
  oldWord: false,
};

const round = (n: number): number => Math.round(Math.min(1, Math.max(0, n)) * 100) / 100;

function heuristic(input: OtpInput, minDigits: number, maxDigits: number): OtpResult {
  const byCode = new Map<string, Ranked>();
  const read: Array<[OtpSource, ReadLine[]]> = sourcesOf(input).map(([source, value]) => [
    source,
    linesOf(source, value).map((line) => readLine(line, minDigits, maxDigits)),
  ]);
  const context = read.map(([, lines]) => mailContextOf(lines)).reduce<MailContext>(joinContext, NO_CONTEXT);
  for (const [source, lines] of read) {
    for (const s of scoreLines(lines, context)) {
      const existing = byCode.get(s.token.code);
      if (existing !== undefined) existing.sources.add(source);
      if (existing !== undefined && existing.score >= s.score) continue;
      byCode.set(s.token.code, {
        code: s.token.code,
        score: s.score,
        confidence: 0,
        source,
        sources: existing?.sources ?? new Set([source]),
        lines: s.lines,
        line: s.line,
        start: s.token.start,
        end: s.token.end,
        alone: s.alone,
        kind: s.token.kind,
      });
    }
  }
  const ranked = [...byCode.values()];
  const subject = read.find(([source]) => source === 'subject')?.[1][0];
  const subjectTopic = subject !== undefined && codeWordWeight(subject, context) >= 0.8;
  for (const r of ranked) {
    const inBody = r.sources.has('text') || r.sources.has('html');
    // The same code in the subject and the body is the sender pointing at it twice.
    if (r.sources.has('subject') && inBody) r.score += SUBJECT_AND_BODY_BONUS;
    else if (subjectTopic && inBody) r.score += SUBJECT_TOPIC_BONUS;
    r.confidence = round(r.score);
  }
  ranked.sort((a, b) => b.score - a.score || b.code.length - a.code.length);
  const candidates = ranked
    .filter((r) => r.confidence >= 0.1)
    .slice(0, MAX_CANDIDATES)
    .map(reported);
  const [top, second] = ranked;
  if (top === undefined || top.confidence < OTP_THRESHOLD) {
    return { status: 'not_found', code: null, confidence: 0, source: null, context: null, candidates };
  }
  const close =
    second !== undefined &&
    second.confidence >= OTP_THRESHOLD &&
    top.score - second.score < OTP_AMBIGUITY_MARGIN;
  // A list of codes of one shape (backup codes) holds no code to type now.
  if (inList(top, ranked)) {
    return { status: 'not_found', code: null, confidence: 0, source: null, context: null, candidates };
  }
  if (close) {
    return { status: 'ambiguous', code: null, confidence: 0, source: null, context: null, candidates };
  }
  return { status: 'found', ...reported(top), candidates };
}

function withPattern(input: OtpInput, pattern: string): OtpResult {
  const re = compileRe2(pattern);
  const groups = re.groupCount();
  if (groups !== 1) {
    throw inputError(
      'pattern',
      `pattern must have exactly one capture group around the code, e.g. "code: ([0-9]{6})"; it has ${groups}. ` +
        'Make other groups non-capturing with (?:...).',
    );
  }
  for (const [source, value] of sourcesOf(input)) {
    const text = linesOf(source, value)
      .map((l) => l.text)
      .join('\n');
    const [match] = findAll(re, text, 1);
    if (match === undefined) continue;
    const found = {
      code: match.value,
      confidence: 1,
      source,
      context: snippet(text, match.start, match.end),
    };
    return { status: 'found', ...found, candidates: [found] };
  }
  return { status: 'not_found', code: null, confidence: 0, source: null, context: null, candidates: [] };
}

/** The one-time code of an email, with the ranked alternatives it was chosen from. Pure; never throws on content. */
export function extractOtp(input: OtpInput, options: OtpOptions = {}): OtpResult {
  const minDigits = integerOption('minDigits', options.minDigits, 4);
  const maxDigits = integerOption('maxDigits', options.maxDigits, 8);
  if (minDigits > maxDigits) {
    throw inputError('minDigits', `minDigits (${minDigits}) is larger than maxDigits (${maxDigits}).`);
  }
  if (options.pattern !== undefined) return withPattern(input, options.pattern);
  return heuristic(input, minDigits, maxDigits);
}
