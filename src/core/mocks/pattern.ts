// Mock rule path patterns (design section 5): parsed once when rules are saved, matched per request.
// Non-regex patterns are matched segment by segment; `regex:` patterns use RE2 (linear time).
import { RE2JS } from 're2js';

export type Segment =
  | { type: 'literal'; value: string }
  | { type: 'param'; name: string }
  | { type: 'wildcard' }
  | { type: 'rest'; name: string | null };

export type CompiledPattern =
  | { kind: 'any' }
  | { kind: 'segments'; segments: Segment[] }
  | { kind: 'regex'; regex: RE2JS; groupNames: string[] };

export type PatternResult = { ok: true; pattern: CompiledPattern } | { ok: false; message: string };

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

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

function compileRegex(source: string): PatternResult {
  if (source === '') return { ok: false, message: 'regex: needs an expression after the prefix' };
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(source);
  } catch (err) {
    return { ok: false, message: `regex does not compile: ${(err as Error).message}` };
  }
  const groupNames = Object.keys(regex.namedGroups());
  const bad = groupNames.find((n) => FORBIDDEN_NAMES.has(n));
  if (bad !== undefined) return { ok: false, message: `"${bad}" cannot be a group name` };
  return { ok: true, pattern: { kind: 'regex', regex, groupNames } };
}

export function compilePattern(pattern: string | null | undefined): PatternResult {
  if (isAnyPattern(pattern)) return { ok: true, pattern: { kind: 'any' } };
  const text = (pattern as string).trim();
  if (text.startsWith('regex:')) return compileRegex(text.slice('regex:'.length));
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
