// Chooses the mock rule for a request (design section 5): the first non-fallback rule in list order whose
// method and path pattern match, else the fallback rule, else none (the default reply).
import { compilePattern, type CompiledPattern, type Segment } from './pattern.ts';
import { parseTemplate, type TemplatePart } from './template.ts';
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

/** Rules were validated when saved, so compiling them again cannot fail; a failure here is a bug. */
export function compileRules(rules: StoredMockRule[]): CompiledRule[] {
  return rules.map((rule) => {
    const pattern = compilePattern(rule.pattern);
    if (!pattern.ok) throw new Error(`stored rule ${rule.id} has an invalid pattern: ${pattern.message}`);
    const template = (text: string) => {
      const parsed = parseTemplate(text);
      if (!parsed.ok) throw new Error(`stored rule ${rule.id} has an invalid template: ${parsed.message}`);
      return parsed.parts;
    };
    return {
      rule,
      pattern: pattern.pattern,
      body: rule.body === null ? null : template(rule.body),
      headers: Object.entries(rule.headers).map(
        ([name, value]) => [name, template(value)] as [string, TemplatePart[]],
      ),
    };
  });
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

export function matchPath(pattern: CompiledPattern, path: string): Record<string, string> | null {
  switch (pattern.kind) {
    case 'any':
      return Object.create(null) as Record<string, string>;
    case 'segments':
      return matchSegments(pattern.segments, pathSegments(path));
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

export function chooseRule(rules: CompiledRule[], method: string, path: string): RuleMatch | null {
  for (const rule of rules) {
    if (rule.rule.isFallback || !methodMatches(rule.rule.method, method)) continue;
    const params = matchPath(rule.pattern, path);
    if (params !== null) return { rule, params };
  }
  return null;
}

export function fallbackRule(rules: CompiledRule[]): RuleMatch | null {
  const rule = rules.find((r) => r.rule.isFallback);
  return rule === undefined ? null : { rule, params: Object.create(null) as Record<string, string> };
}
