// Chooses the mock rule for a request (design section 5): the first non-fallback rule in list order whose
// method and path pattern match, else the fallback rule, else none (the default reply). Regex rules run
// only on paths up to MAX_REGEX_PATH characters and within a per-request time budget, so no request can
// hold the event loop for long whatever rules a sandbox has.
import { setImmediate } from 'node:timers/promises';
import { compilePattern, type CompiledPattern, type Segment } from './pattern.ts';
import { isJsonBody, markJsonStrings, parseTemplate, type TemplatePart } from './template.ts';
import type { StoredMockRule } from './types.ts';

export interface CompiledRule {
  rule: StoredMockRule;
  pattern: CompiledPattern;
  body: TemplatePart[] | null;
  headers: Array<[name: string, value: TemplatePart[]]>;
}

export interface RuleMatch {
  rule: CompiledRule;
  params: Record<string, string>;
}

/** A regex rule never sees a longer path: it does not match it (and the reply says so). */
export const MAX_REGEX_PATH = 2048;
/**
 * Regex matching for one request may take about this long; then the remaining rules are skipped and the
 * fallback (or the default reply) answers. MAX_REGEX_PROGRAM (pattern.ts) and MAX_REGEX_PATH keep one run
 * near 5 ms, so a request holds the event loop for at most this plus one run.
 */
export const MATCH_BUDGET_MS = 5;
/**
 * A ceiling on the cost of one regex step (an instruction over a character), 2..4x what the worst pattern
 * costs here. A run is charged its measured time, but never more than its size allows, so a pause of the
 * whole process (GC, the OS running something else) in the middle of a cheap rule cannot spend the budget
 * of an innocent request.
 */
const MAX_NS_PER_STEP = 100;

/**
 * Rules were validated when saved, so compiling them again cannot fail; a failure here is a bug. The one
 * exception is a regex saved before the size limit existed: it is kept but never matches.
 */
export function compileRules(rules: StoredMockRule[]): CompiledRule[] {
  return rules.map(compileRule);
}

/**
 * compileRules for the capture path, yielding to the event loop every couple of milliseconds: 100 regex
 * rules compiled from scratch (after a restart, or on another instance) cost tens of milliseconds, which
 * must not be one block.
 */
export async function compileRulesInSlices(rules: StoredMockRule[], sliceMs = 2): Promise<CompiledRule[]> {
  const out: CompiledRule[] = [];
  let sliceStart = performance.now();
  for (const rule of rules) {
    out.push(compileRule(rule));
    if (performance.now() - sliceStart > sliceMs) {
      await setImmediate();
      sliceStart = performance.now();
    }
  }
  return out;
}

function compileRule(rule: StoredMockRule): CompiledRule {
  let pattern = compilePattern(rule.pattern);
  if (!pattern.ok && pattern.tooLarge === true) pattern = { ok: true, pattern: { kind: 'never' } };
  if (!pattern.ok) throw new Error(`stored rule ${rule.id} has an invalid pattern: ${pattern.message}`);
  const template = (text: string) => {
    const parsed = parseTemplate(text);
    if (!parsed.ok) throw new Error(`stored rule ${rule.id} has an invalid template: ${parsed.message}`);
    return parsed.parts;
  };
  return {
    rule,
    pattern: pattern.pattern,
    body:
      rule.body === null
        ? null
        : isJsonBody(rule.headers, rule.body)
          ? markJsonStrings(template(rule.body))
          : template(rule.body),
    headers: Object.entries(rule.headers).map(
      ([name, value]) => [name, template(value)] as [string, TemplatePart[]],
    ),
  };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Path segments, percent-decoded one by one; a single trailing slash is ignored. */
export function pathSegments(path: string): string[] {
  const trimmed = path.replace(/^\/+/, '').replace(/\/$/, '');
  return trimmed === '' ? [] : trimmed.split('/').map(decodeSegment);
}

function matchSegment(pattern: Segment, value: string, params: Record<string, string>): boolean {
  switch (pattern.type) {
    case 'literal':
      return pattern.value === value;
    case 'param':
      params[pattern.name] = value;
      return true;
    case 'wildcard':
      return true;
    case 'rest':
      return false; // handled by matchSegments
  }
}

/** Segment-by-segment matching with at most one multi-segment wildcard: linear in the path length. */
function matchSegments(pattern: Segment[], segments: string[]): Record<string, string> | null {
  const params: Record<string, string> = Object.create(null) as Record<string, string>;
  const restAt = pattern.findIndex((s) => s.type === 'rest');
  if (restAt === -1) {
    if (pattern.length !== segments.length) return null;
    return pattern.every((p, i) => matchSegment(p, segments[i] as string, params)) ? params : null;
  }
  const before = pattern.slice(0, restAt);
  const after = pattern.slice(restAt + 1);
  if (segments.length < before.length + after.length) return null;
  for (let i = 0; i < before.length; i++) {
    if (!matchSegment(before[i] as Segment, segments[i] as string, params)) return null;
  }
  const tailStart = segments.length - after.length;
  for (let i = 0; i < after.length; i++) {
    if (!matchSegment(after[i] as Segment, segments[tailStart + i] as string, params)) return null;
  }
  const rest = pattern[restAt] as Extract<Segment, { type: 'rest' }>;
  if (rest.name !== null) params[rest.name] = segments.slice(before.length, tailStart).join('/');
  return params;
}

/**
 * Whether `pattern` matches `path`, with its captured parameters. `segments` is the path split by
 * pathSegments, when the caller already has it. No length limit here: chooseRule applies MAX_REGEX_PATH.
 */
export function matchPath(
  pattern: CompiledPattern,
  path: string,
  segments?: string[],
): Record<string, string> | null {
  switch (pattern.kind) {
    case 'any':
      return Object.create(null) as Record<string, string>;
    case 'never':
      return null;
    case 'segments':
      return matchSegments(pattern.segments, segments ?? pathSegments(path));
    case 'regex': {
      const m = pattern.regex.matcher(path);
      if (!m.matches()) return null;
      const params = Object.create(null) as Record<string, string>;
      for (const name of pattern.groupNames) {
        const value = m.group(name);
        if (value !== null) params[name] = value;
      }
      return params;
    }
  }
}

export function methodMatches(ruleMethod: string, requestMethod: string): boolean {
  if (ruleMethod === 'ANY') return true;
  const method = requestMethod.toUpperCase();
  return ruleMethod === method || (method === 'HEAD' && ruleMethod === 'GET');
}

export interface RuleChoice {
  match: RuleMatch | null;
  /** The budget ran out: the rules after that point were not tried (so `match` is null). */
  budgetExhausted: boolean;
  /** At least one regex rule was passed over because the path is longer than MAX_REGEX_PATH. */
  pathTooLongForRegex: boolean;
}

export interface MatchOptions {
  /** Try the rules from this position on (a conditional rule before it did not take the request). */
  from?: number;
  budgetMs?: number;
  /** Milliseconds from a monotonic clock; tests slow it down to spend the budget. */
  now?: () => number;
}

/** The rule that answers, or null (then the fallback or the default reply does); see chooseRuleWithin. */
export function chooseRule(rules: CompiledRule[], method: string, path: string): RuleMatch | null {
  return chooseRuleWithin(rules, method, path).match;
}

/** chooseRule, saying also whether the limits on regex matching decided the outcome. */
export function chooseRuleWithin(
  rules: CompiledRule[],
  method: string,
  path: string,
  options: MatchOptions = {},
): RuleChoice {
  const budgetMs = options.budgetMs ?? MATCH_BUDGET_MS;
  const now = options.now ?? (() => performance.now());
  let spentMs = 0;
  let segments: string[] | undefined;
  let pathTooLongForRegex = false;
  for (let i = options.from ?? 0; i < rules.length; i++) {
    const rule = rules[i] as CompiledRule;
    if (rule.rule.isFallback || !methodMatches(rule.rule.method, method)) continue;
    const pattern = rule.pattern;
    let params: Record<string, string> | null;
    if (pattern.kind === 'regex') {
      if (path.length > MAX_REGEX_PATH) {
        pathTooLongForRegex = true;
        continue;
      }
      if (spentMs >= budgetMs) return { match: null, budgetExhausted: true, pathTooLongForRegex };
      const started = now();
      params = matchPath(pattern, path);
      const ceilingMs = (pattern.programSize * (path.length + 1) * MAX_NS_PER_STEP) / 1e6;
      spentMs += Math.min(now() - started, ceilingMs);
    } else {
      // Split once per request, not once per rule: a long path times many rules adds up.
      if (pattern.kind === 'segments') segments ??= pathSegments(path);
      params = matchPath(pattern, path, segments);
    }
    if (params !== null) return { match: { rule, params }, budgetExhausted: false, pathTooLongForRegex };
  }
  return { match: null, budgetExhausted: false, pathTooLongForRegex };
}

export function fallbackRule(rules: CompiledRule[]): RuleMatch | null {
  const rule = rules.find((r) => r.rule.isFallback);
  return rule === undefined ? null : { rule, params: Object.create(null) as Record<string, string> };
}
