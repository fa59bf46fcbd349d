// The `search=` query language, parsed in core for every door: words (all must match), "quoted phrases",
// -exclusion and operators. A mistake is an invalid_input naming `search`, with where it is and what to do.
import { invalidInput, type AppError } from '../errors.ts';
import { searchTokens } from './tokens.ts';

/** Longest search accepted; a longer one is refused, not cut (a cut would search for something else). */
export const MAX_SEARCH_CHARS = 500;
/** Most terms in one search: each is one more index condition. */
export const MAX_SEARCH_TERMS = 32;

/** Which stream a search reads: the operators differ (a request has no sender). */
export type SearchStream = 'messages' | 'requests';

/** A field a text term may be limited to (messages only). */
export type SearchField = 'from' | 'to' | 'subject';

export type SearchTerm =
  | {
      kind: 'text';
      /** Limited to one field, or any. */
      field: SearchField | undefined;
      /** Its words in order (searchTokens), at least one. */
      words: string[];
      /** A quoted phrase: its words as whole words, in this order, next to each other. */
      phrase: boolean;
      negated: boolean;
    }
  | { kind: 'hasAttachment'; negated: boolean }
  | { kind: 'isRead'; value: boolean; negated: boolean }
  | { kind: 'before' | 'after'; at: Date; negated: boolean };

interface Operator {
  /** How the hint lists it. */
  forms: string[];
  streams: readonly SearchStream[];
}

const BOTH = ['messages', 'requests'] as const;
const OPERATORS: Record<string, Operator> = {
  from: { forms: ['from:'], streams: ['messages'] },
  to: { forms: ['to:'], streams: ['messages'] },
  subject: { forms: ['subject:'], streams: ['messages'] },
  has: { forms: ['has:attachment'], streams: ['messages'] },
  is: { forms: ['is:unread', 'is:read'], streams: BOTH },
  before: { forms: ['before:'], streams: BOTH },
  after: { forms: ['after:'], streams: BOTH },
};

/** The operators a stream knows, as a hint lists them. */
export function searchOperators(stream: SearchStream): string[] {
  return Object.values(OPERATORS)
    .filter((op) => op.streams.includes(stream))
    .flatMap((op) => op.forms);
}

/** A refusal of the search, at a 0-based index of it (told 1-based: "at character 5"). */
function refuse(at: number, problem: string, hint: string): AppError {
  const message = `${problem} at character ${at + 1}: ${hint}`;
  return invalidInput(`The search is invalid: ${message}`, [{ path: 'search', message }]);
}

const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);
const OPERATOR_NAME = /^([A-Za-z]+):/;

/**
 * Parses a search. Never throws anything but an AppError (invalid_input naming `search`); an empty or
 * blank search is no terms.
 */
export function parseSearch(input: string, stream: SearchStream): SearchTerm[] {
  if (input.length > MAX_SEARCH_CHARS)
    throw refuse(MAX_SEARCH_CHARS, 'The search is too long', `keep it to ${MAX_SEARCH_CHARS} characters`);
  const terms: SearchTerm[] = [];
  let i = 0;
  while (i < input.length) {
    if (isSpace(input[i])) {
      i++;
      continue;
    }
    const start = i;
    let negated = false;
    if (input[i] === '-') {
      negated = true;
      i++;
      if (i >= input.length || isSpace(input[i]))
        throw refuse(
          start,
          'A "-" with nothing after it',
          'write the word to leave out right after it, as -word',
        );
    }
    const name = OPERATOR_NAME.exec(input.slice(i, i + 16));
    let term: SearchTerm;
    if (name !== null) {
      const op = (name[1] as string).toLowerCase();
      const valueAt = i + (name[0] as string).length;
      const value = readValue(input, valueAt);
      term = operatorTerm(op, input.slice(i, valueAt), value, start, stream, negated);
      i = value.end;
    } else {
      const value = readValue(input, i);
      term = textTerm(value, undefined, start, negated);
      i = value.end;
    }
    terms.push(term);
    if (terms.length > MAX_SEARCH_TERMS)
      throw refuse(start, 'Too many terms', `use at most ${MAX_SEARCH_TERMS} words, phrases and operators`);
  }
  return terms;
}

interface Value {
  text: string;
  quoted: boolean;
  /** Where the value starts in the search. */
  at: number;
  /** The index after it. */
  end: number;
}

/** A "quoted phrase" or a run up to the next space. */
function readValue(input: string, at: number): Value {
  if (input[at] === '"') {
    const close = input.indexOf('"', at + 1);
    if (close < 0) throw refuse(at, 'A quote is not closed', 'end the phrase with a closing "');
    return { text: input.slice(at + 1, close), quoted: true, at, end: close + 1 };
  }
  let end = at;
  while (end < input.length && !isSpace(input[end])) end++;
  return { text: input.slice(at, end), quoted: false, at, end };
}

function textTerm(value: Value, field: SearchField | undefined, start: number, negated: boolean): SearchTerm {
  const words = searchTokens(value.text);
  if (words.length === 0) {
    const what = value.text === '' ? 'An empty phrase' : `"${value.text}" has no letters or digits and`;
    throw refuse(start, `${what} finds nothing`, 'search finds words: use letters or digits');
  }
  return { kind: 'text', field, words, phrase: value.quoted, negated };
}

function operatorTerm(
  op: string,
  written: string,
  value: Value,
  start: number,
  stream: SearchStream,
  negated: boolean,
): SearchTerm {
  const known = OPERATORS[op];
  const list = searchOperators(stream).join(' ');
  if (known === undefined)
    throw refuse(
      start,
      `Unknown operator "${written}"`,
      `the operators are ${list}; to search for the text itself, put it in quotes ("${written}…")`,
    );
  if (!known.streams.includes(stream))
    throw refuse(
      start,
      `"${written}" does not apply to ${stream}`,
      `the operators for ${stream} are ${list}`,
    );
  if (value.text === '' && !value.quoted)
    throw refuse(
      value.at,
      `"${written}" needs a value`,
      `write it with no space after the colon, as ${known.forms[0]}${known.forms[0]?.endsWith(':') ? 'value' : ''}`,
    );
  switch (op) {
    case 'from':
    case 'to':
    case 'subject':
      return textTerm(value, op, start, negated);
    case 'has':
      if (value.text.toLowerCase() !== 'attachment')
        throw refuse(value.at, `"has:${value.text}" is not known`, 'the one form is has:attachment');
      return { kind: 'hasAttachment', negated };
    case 'is': {
      const v = value.text.toLowerCase();
      if (v !== 'read' && v !== 'unread')
        throw refuse(value.at, `"is:${value.text}" is not known`, 'use is:unread or is:read');
      return { kind: 'isRead', value: v === 'read', negated };
    }
    default: {
      const at = parseInstant(value.text);
      if (at === undefined)
        throw refuse(
          value.at,
          `"${value.text}" is not a date`,
          `write ${op}:2026-01-31 (a day, UTC) or ${op}:2026-01-31T09:30:00Z (an instant)`,
        );
      return { kind: op as 'before' | 'after', at, negated };
    }
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/**
 * A day (its start, UTC) or an ISO 8601 date-time (UTC when it names no offset), years 1000 to 9999;
 * undefined if not a real one.
 */
export function parseInstant(text: string): Date | undefined {
  const day = DATE.exec(text);
  if (day !== null) return utc(Number(day[1]), Number(day[2]), Number(day[3]), 0, 0, 0, 0);
  const m = DATE_TIME.exec(text);
  if (m === null) return undefined;
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  const local = utc(
    Number(m[1]),
    Number(m[2]),
    Number(m[3]),
    Number(m[4]),
    Number(m[5]),
    Number(m[6] ?? 0),
    ms,
  );
  if (local === undefined) return undefined;
  const zone = m[8];
  if (zone === undefined || zone.toUpperCase() === 'Z') return local;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2));
  if (hours > 23 || minutes > 59) return undefined;
  const at = new Date(local.getTime() - sign * (hours * 60 + minutes) * 60_000);
  // An offset can move the instant out of the years taken (9999-12-31T23:00-14:00).
  const year = at.getUTCFullYear();
  return year >= 1000 && year <= 9999 ? at : undefined;
}

/** The instant, or undefined when a part is out of range (2026-02-30, 24:00). */
function utc(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  ms: number,
): Date | undefined {
  // Years before 1000 are refused: the drivers write them in forms the database reads differently.
  if (y < 1000 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return undefined;
  const at = new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms));
  return at.getUTCDate() === d && at.getUTCMonth() === mo - 1 ? at : undefined;
}
