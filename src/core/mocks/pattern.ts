// Mock rule path patterns (design section 5): parsed once when rules are saved, matched per request.
// Non-regex patterns are matched segment by segment; `regex:` patterns use RE2 (linear time).
import { RE2JS } from 're2js';

/**
 * The largest regex program (re2js instructions) a rule may compile to. RE2 is linear in the input, but each
 * input character can cost a step per instruction, 25..50 ns each here: 128 instructions over a
 * 2,048-character path (MAX_REGEX_PATH) stay near 5 ms for the worst pattern. The regexes people write for
 * paths compile to 10..80 (a UUID spelled out with counted classes is about 45).
 */
export const MAX_REGEX_PROGRAM = 128;

export type Segment =
  | { type: 'literal'; value: string }
  | { type: 'param'; name: string }
  | { type: 'wildcard' }
  | { type: 'rest'; name: string | null };

export type CompiledPattern =
  | { kind: 'any' }
  | { kind: 'segments'; segments: Segment[] }
  | { kind: 'regex'; regex: RE2JS; groupNames: string[]; programSize: number }
  /** A stored regex over today's limits (saved before they existed): it never matches. */
  | { kind: 'never' };

export type PatternResult =
  { ok: true; pattern: CompiledPattern } | { ok: false; message: string; tooLarge?: true };

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
/** An Express-style parameter segment: `:id` is `{id}`, `:rest*` is `{rest*}` (issue 35). */
const COLON_PARAM = /^:([A-Za-z_][A-Za-z0-9_]*)(\*?)$/;
/** A segment that opens like an Express parameter; one that is not a whole `:name` is refused at save. */
const COLON_START = /^:[A-Za-z_]/;

function isRegexPattern(text: string): boolean {
  return text.trim().startsWith('regex:');
}

/**
 * The pattern with Express-style `:name` and `:name*` segments written as `{name}` and `{name*}`, which is
 * how a saved rule stores and returns it; anything else (a colon inside a segment such as `/v1/a:b`, regex
 * patterns) is kept as written.
 */
export function normalizePattern(pattern: string): string {
  if (isRegexPattern(pattern)) return pattern;
  return pattern
    .split('/')
    .map((segment) => {
      const m = COLON_PARAM.exec(segment);
      return m === null ? segment : `{${m[1]}${m[2]}}`;
    })
    .join('/');
}

/**
 * Why a pattern's Express-style segment cannot be taken as a parameter, naming the form to write; checked
 * when rules are saved, never by the matcher (which keeps such a segment literal, as a stored rule had it).
 * undefined when there is none.
 */
export function colonSegmentProblem(pattern: string): string | undefined {
  if (isRegexPattern(pattern)) return undefined;
  const optional = /(?:^|\/):([A-Za-z_][A-Za-z0-9_]*)\?/.exec(pattern);
  if (optional !== null) {
    return `":${optional[1]}?" (an optional parameter) is not supported: use two rules, or {${optional[1]}*} for zero or more segments`;
  }
  for (const segment of pattern.split('/')) {
    if (!COLON_START.test(segment) || COLON_PARAM.test(segment)) continue;
    const name = /^:([A-Za-z_][A-Za-z0-9_]*)/.exec(segment)?.[1] as string;
    if (segment === `:${name}+`) {
      return `":${name}+" is not supported: use {${name}*} (zero or more segments) or a regex: pattern`;
    }
    return `segment "${segment}": a parameter must be a whole segment, written {${name}} (or :${name}); use regex: to match part of a segment`;
  }
  return undefined;
}

export function isAnyPattern(pattern: string | null | undefined): boolean {
  return pattern === null || pattern === undefined || ['', '**', '/**'].includes(pattern.trim());
}

function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

function parseSegment(raw: string): Segment | string {
  if (raw === '*') return { type: 'wildcard' };
  if (raw === '**') return { type: 'rest', name: null };
  const colon = COLON_PARAM.exec(raw);
  if (colon !== null) return parseSegment(`{${colon[1]}${colon[2]}}`);
  const param = /^\{([^{}]*)\}$/.exec(raw);
  if (param !== null) {
    const inner = param[1] ?? '';
    const rest = inner.endsWith('*');
    const name = rest ? inner.slice(0, -1) : inner;
    if (!PARAM_NAME.test(name)) return `"{${inner}}" is not a valid parameter; use letters, digits and _`;
    if (FORBIDDEN_NAMES.has(name)) return `"${name}" cannot be a parameter name`;
    return rest ? { type: 'rest', name } : { type: 'param', name };
  }
  if (/[{}]/.test(raw))
    return `segment "${raw}" mixes text and {braces}; a parameter must be a whole segment`;
  if (raw.includes('*')) return `segment "${raw}" mixes text and *; a wildcard must be a whole segment`;
  const value = decodeSegment(raw);
  if (value === null) return `segment "${raw}" has a broken percent-encoding`;
  return { type: 'literal', value };
}

/** Index just past the character class opening at `start` (RE2 syntax: a leading `]` is literal). */
function skipClass(source: string, start: number): number {
  let i = start + 1;
  if (source[i] === '^') i++;
  if (source[i] === ']') i++;
  while (i < source.length) {
    const c = source[i];
    if (c === '\\') i += 2;
    else if (c === '[' && source[i + 1] === ':') {
      const end = source.indexOf(':]', i + 2);
      i = end === -1 ? i + 1 : end + 2;
    } else if (c === ']') return i + 1;
    else i++;
  }
  return source.length;
}

const COUNTED = /^\{(\d{1,7})(?:(,)(\d{0,7}))?\}/;

/**
 * About how many instructions a regex compiles to, read from its text: each atom once per copy, where a
 * counted repetition like `{30}` makes 30 copies of what it repeats and nested ones multiply. Cheap, so a
 * pattern that would compile to a huge program is refused before re2js spends time building it; RE2 may
 * factor alternations smaller, so the exact check after compiling has the last word.
 */
export function estimateRegexSize(source: string): number {
  interface Frame {
    size: number;
    /** The size of the last operand, which a following repetition copies. */
    last: number;
    capture: boolean;
  }
  const cap = (n: number) => Math.min(n, 1e9);
  const stack: Frame[] = [];
  let top: Frame = { size: 0, last: 0, capture: false };
  const operand = (n: number) => {
    top.size = cap(top.size + n);
    top.last = n;
  };
  let i = 0;
  while (i < source.length) {
    const c = source[i] as string;
    if (c === '\\') {
      const next = source[i + 1];
      if (next === 'Q') {
        const end = source.indexOf('\\E', i + 2);
        const stop = end === -1 ? source.length : end;
        top.size = cap(top.size + (stop - i - 2));
        top.last = stop > i + 2 ? 1 : 0;
        i = end === -1 ? source.length : end + 2;
        continue;
      }
      if ((next === 'p' || next === 'P' || next === 'x') && source[i + 2] === '{') {
        const end = source.indexOf('}', i + 3);
        i = end === -1 ? source.length : end + 1;
      } else if (next === 'p' || next === 'P') i += 3;
      else if (next === 'x') i += 4;
      else i += 2;
      operand(1);
      continue;
    }
    if (c === '[') {
      i = skipClass(source, i);
      operand(1);
      continue;
    }
    if (c === '(') {
      // (?i) only sets flags; (?i:...) (?:...) and lookarounds group without capturing.
      const flags = /^\(\?[A-Za-z-]*\)/.exec(source.slice(i, i + 16));
      if (flags !== null) {
        i += flags[0].length;
        continue;
      }
      // The group's prefix: (?P<name> and (?<name> capture; (?: (?i: (?= (?<= and the like do not.
      const prefix = /^\(\?(?:P?<[A-Za-z0-9_]*>|[A-Za-z-]*:|<?[=!])?/.exec(source.slice(i, i + 140));
      const head = prefix?.[0] ?? '(';
      stack.push(top);
      top = { size: 0, last: 0, capture: head === '(' || head.includes('>') };
      i += head.length;
      continue;
    }
    if (c === ')') {
      const inner = top;
      top = stack.pop() ?? { size: 0, last: 0, capture: false };
      operand(cap(inner.size + (inner.capture ? 2 : 0)));
      i++;
      continue;
    }
    if (c === '|') {
      top.size = cap(top.size + 1);
      top.last = 0;
      i++;
      continue;
    }
    if (c === '*' || c === '+' || c === '?') {
      top.size = cap(top.size + 1);
      i += source[i + 1] === '?' ? 2 : 1;
      continue;
    }
    if (c === '{') {
      const m = COUNTED.exec(source.slice(i, i + 20));
      if (m !== null) {
        const min = Number(m[1]);
        const max = m[2] === undefined ? min : m[3] === '' ? undefined : Number(m[3]);
        const copies = max ?? Math.max(min, 1);
        // Each optional copy (or the loop of an open count) adds a branch instruction.
        const branches = max === undefined ? 1 : max - min;
        top.size = cap(Math.max(0, top.size + top.last * (copies - 1) + branches));
        top.last = cap(top.last * copies);
        i += m[0].length;
        if (source[i] === '?') i++;
        continue;
      }
    }
    operand(1);
    i++;
  }
  while (stack.length > 0) {
    const inner = top;
    top = stack.pop() as Frame;
    top.size = cap(top.size + inner.size);
  }
  // Every program also has the whole-match capture around it.
  return top.size + 2;
}

function tooLarge(size: string): PatternResult {
  return {
    ok: false,
    tooLarge: true,
    message:
      `regex is too large: ${size}, at most ${MAX_REGEX_PROGRAM} (a counted repetition like {30} copies ` +
      'what it repeats, and nested ones multiply); simplify it or use a path pattern such as /hooks/{id}',
  };
}

function compileRegex(source: string): PatternResult {
  if (source === '') return { ok: false, message: 'regex: needs an expression after the prefix' };
  // The estimate may overshoot (RE2 factors alternations): only refuse on it when far over.
  const estimate = estimateRegexSize(source);
  if (estimate > 2 * MAX_REGEX_PROGRAM) {
    return tooLarge(`it expands to about ${estimate} instructions`);
  }
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(source);
  } catch (err) {
    return { ok: false, message: `regex does not compile: ${(err as Error).message}` };
  }
  const programSize = regex.programSize();
  if (programSize > MAX_REGEX_PROGRAM) return tooLarge(`it compiles to ${programSize} instructions`);
  const groupNames = Object.keys(regex.namedGroups());
  const bad = groupNames.find((n) => FORBIDDEN_NAMES.has(n));
  if (bad !== undefined) return { ok: false, message: `"${bad}" cannot be a group name` };
  return { ok: true, pattern: { kind: 'regex', regex, groupNames, programSize } };
}

/**
 * Compiled regexes by source, shared by every sandbox: saving rules compiles them, and loading the rules for
 * the capture path then finds them here. A compile costs up to a millisecond, a rule list has up to 100.
 * Entries are small (a program of at most MAX_REGEX_PROGRAM instructions); least recently used go first.
 */
const regexCache = new Map<string, PatternResult>();
const REGEX_CACHE_ENTRIES = 500;

function cachedRegex(source: string): PatternResult {
  const hit = regexCache.get(source);
  if (hit !== undefined) {
    regexCache.delete(source);
    regexCache.set(source, hit);
    return hit;
  }
  const result = compileRegex(source);
  regexCache.set(source, result);
  if (regexCache.size > REGEX_CACHE_ENTRIES) regexCache.delete(regexCache.keys().next().value as string);
  return result;
}

export function compilePattern(pattern: string | null | undefined): PatternResult {
  if (isAnyPattern(pattern)) return { ok: true, pattern: { kind: 'any' } };
  const text = (pattern as string).trim();
  if (text.startsWith('regex:')) return cachedRegex(text.slice('regex:'.length));
  if (text.includes('?') || text.includes('#')) {
    return {
      ok: false,
      message: 'a pattern matches the path only: remove "?" and "#" (use regex: for more)',
    };
  }
  const rawSegments = text.replace(/^\/+/, '').replace(/\/$/, '').split('/');
  const segments: Segment[] = [];
  const names = new Set<string>();
  for (const raw of rawSegments.length === 1 && rawSegments[0] === '' ? [] : rawSegments) {
    const seg = parseSegment(raw);
    if (typeof seg === 'string') return { ok: false, message: seg };
    if (seg.type === 'param' || (seg.type === 'rest' && seg.name !== null)) {
      const name = seg.name as string;
      if (names.has(name)) return { ok: false, message: `parameter "${name}" appears twice` };
      names.add(name);
    }
    segments.push(seg);
  }
  if (segments.filter((s) => s.type === 'rest').length > 1) {
    return { ok: false, message: 'at most one ** (or {name*}) per pattern' };
  }
  return { ok: true, pattern: { kind: 'segments', segments } };
}
