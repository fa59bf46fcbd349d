// Checks and normalises a sandbox's whole rule list (design section 5) before it is stored:
// every pattern, method, header and template is verified here, so the capture path never meets a bad rule.
import { invalidInput, type FieldError } from '../errors.ts';
import { isServiceCookieName, setCookieName } from '../http/sessionShield.ts';
import { newId } from '../random.ts';
import { mockRuleInput, updateMocksEnvelope, type MockRuleInput } from '../schemas.ts';
import { parseInput, zodErrors } from '../validation.ts';
import { checkCallbacks } from './callbackRules.ts';
import {
  colonSegmentProblem,
  compilePattern,
  isAnyPattern,
  normalizePattern,
  type PatternResult,
} from './pattern.ts';
import { parseTemplate } from './template.ts';
import type { MockDelay, MockFault, StoredMockRule } from './types.ts';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Framing headers are the server's to set; a rule that sets them would corrupt the reply. */
const RESERVED_HEADERS = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
]);

export function normalizeMethod(method: string | null | undefined): string | null {
  const m = (method ?? '').trim();
  if (m === '' || m === '*' || m.toUpperCase() === 'ANY') return 'ANY';
  return TOKEN.test(m) ? m.toUpperCase() : null;
}

function defaultName(method: string, pattern: string, isFallback: boolean): string {
  return isFallback ? 'fallback' : `${method} ${pattern}`;
}

function checkRule(input: MockRuleInput, at: string, errors: FieldError[]): StoredMockRule | undefined {
  const before = errors.length;
  const isFallback = input.isFallback === true;
  const method = normalizeMethod(input.method);
  if (method === null)
    errors.push({ path: `${at}.method`, message: 'must be an HTTP method such as GET, or ANY' });

  const written = isAnyPattern(input.pattern) ? '/**' : (input.pattern as string).trim();
  // Express-style `:id` is stored as `{id}`, the one form rules are returned in.
  const pattern = normalizePattern(written);
  const compiled = compilePattern(pattern);
  const colonProblem = colonSegmentProblem(written);
  if (colonProblem !== undefined) errors.push({ path: `${at}.pattern`, message: colonProblem });
  else if (!compiled.ok) errors.push({ path: `${at}.pattern`, message: compiled.message });

  if (isFallback && (method !== 'ANY' || (compiled.ok && compiled.pattern.kind !== 'any'))) {
    errors.push({
      path: `${at}.isFallback`,
      message: 'a fallback rule answers everything no other rule matched: leave its method and pattern empty',
    });
  }

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    const path = `${at}.headers.${name}`;
    if (!TOKEN.test(name)) errors.push({ path, message: 'is not a valid header name' });
    else if (RESERVED_HEADERS.has(name.toLowerCase())) {
      errors.push({ path, message: 'is set by the server and cannot be set by a rule' });
    }
    if (name.toLowerCase() === 'set-cookie' && isServiceCookieName(setCookieName(value))) {
      errors.push({
        path,
        message: `cannot set ${setCookieName(value)}: that is the dashboard's session cookie, which a capture reply never sets`,
      });
    }
    if (/[\r\n\0]/.test(value)) errors.push({ path, message: 'a header value cannot contain CR, LF or NUL' });
    if (/[^\x00-\xff]/.test(value)) {
      errors.push({ path, message: 'a header value must be Latin-1 text; percent-encode anything else' });
    }
    const parsed = parseTemplate(value);
    if (!parsed.ok) errors.push({ path, message: parsed.message });
    headers[name] = value;
  }

  const body = input.body ?? null;
  if (body !== null) {
    const parsed = parseTemplate(body);
    if (!parsed.ok) errors.push({ path: `${at}.body`, message: parsed.message });
  }

  const delayMs = checkDelay(input, at, errors);
  const fault = checkFault(input, at, errors);
  checkScenario(input, at, compiled, errors);
  if (isFallback && (input.times != null || input.scenario != null)) {
    errors.push({
      path: `${at}.${input.times != null ? 'times' : 'scenario'}`,
      message:
        'the fallback answers whatever no other rule took, so it cannot run out or wait for a state: put it on a rule with a pattern',
    });
  }
  const callbacks = checkCallbacks(input.callbacks ?? [], `${at}.callbacks`, errors);

  if (errors.length > before || method === null) return undefined;
  const name = input.name?.trim() || defaultName(method, pattern, isFallback);
  return {
    id: input.id ?? newId(),
    name,
    method,
    pattern,
    statusCode: input.statusCode,
    headers,
    body,
    isFallback,
    ...(delayMs === undefined ? {} : { delayMs }),
    ...(fault === undefined ? {} : { fault }),
    ...(input.times == null ? {} : { times: input.times }),
    ...(input.scenario == null ? {} : { scenario: input.scenario }),
    ...(input.requiredState == null ? {} : { requiredState: input.requiredState }),
    ...(input.newState == null ? {} : { newState: input.newState }),
    ...(input.stateKey == null ? {} : { stateKey: input.stateKey.trim() }),
    ...(callbacks.length === 0 ? {} : { callbacks }),
  };
}

function checkDelay(input: MockRuleInput, at: string, errors: FieldError[]): MockDelay | undefined {
  const d = input.delayMs;
  if (d == null) return undefined;
  if (typeof d === 'number') return d === 0 ? undefined : d;
  if (d.min > d.max) {
    errors.push({ path: `${at}.delayMs.max`, message: `must be at least min (${d.min})` });
    return undefined;
  }
  return { min: d.min, max: d.max };
}

const FAULTS = 'reset, empty, malformed, slow';

/** `"reset"` is shorthand for `{"type":"reset"}`; `slow` needs a duration, the others take none. */
function checkFault(input: MockRuleInput, at: string, errors: FieldError[]): MockFault | undefined {
  const raw = input.fault;
  if (raw == null) return undefined;
  const type = typeof raw === 'string' ? raw.trim().toLowerCase() : raw.type.trim().toLowerCase();
  const durationMs = typeof raw === 'string' ? undefined : (raw.durationMs ?? undefined);
  const path = typeof raw === 'string' ? `${at}.fault` : `${at}.fault.type`;
  switch (type) {
    case 'reset':
    case 'empty':
    case 'malformed':
      if (durationMs !== undefined) {
        errors.push({ path: `${at}.fault.durationMs`, message: `only a "slow" fault takes a duration` });
        return undefined;
      }
      return { type };
    case 'slow':
      if (durationMs === undefined) {
        errors.push({
          path: typeof raw === 'string' ? `${at}.fault` : `${at}.fault.durationMs`,
          message: 'a slow fault needs its duration: {"type": "slow", "durationMs": 2000}',
        });
        return undefined;
      }
      return { type: 'slow', durationMs };
    default:
      errors.push({ path, message: `unknown fault "${type}"; faults: ${FAULTS}` });
      return undefined;
  }
}

const STATE_KEY = /^(path|header|query|body)\.(.+)$/;

/** The names a pattern captures (`{id}`, `{rest*}`, regex groups), or undefined when it did not compile. */
function capturedNames(compiled: PatternResult): Set<string> | undefined {
  if (!compiled.ok) return undefined;
  const p = compiled.pattern;
  if (p.kind === 'segments') {
    return new Set(
      p.segments.flatMap((s) =>
        s.type === 'param' || (s.type === 'rest' && s.name !== null) ? [s.name as string] : [],
      ),
    );
  }
  if (p.kind === 'regex') return new Set(p.groupNames);
  return new Set();
}

function checkScenario(
  input: MockRuleInput,
  at: string,
  compiled: PatternResult,
  errors: FieldError[],
): void {
  const hasScenario = input.scenario != null && input.scenario.trim() !== '';
  if (input.scenario != null && !hasScenario)
    errors.push({ path: `${at}.scenario`, message: 'cannot be empty' });
  for (const field of ['requiredState', 'newState', 'stateKey'] as const) {
    if (input[field] != null && !hasScenario && input.scenario == null) {
      errors.push({ path: `${at}.${field}`, message: 'needs a scenario: name one in "scenario"' });
    }
    if (input[field] === '') errors.push({ path: `${at}.${field}`, message: 'cannot be empty' });
  }
  if (hasScenario && input.requiredState == null && input.newState == null) {
    errors.push({
      path: `${at}.scenario`,
      message: 'a scenario does nothing without requiredState, newState or both',
    });
  }
  if (input.stateKey == null || input.stateKey === '') return;
  const m = STATE_KEY.exec(input.stateKey.trim());
  if (m === null) {
    errors.push({
      path: `${at}.stateKey`,
      message: 'must be path.<name>, header.<name>, query.<name> or body.<field path>, e.g. "path.id"',
    });
    return;
  }
  const [, source = '', name = ''] = m;
  if (source === 'path') {
    const names = capturedNames(compiled);
    if (names !== undefined && !names.has(name)) {
      errors.push({
        path: `${at}.stateKey`,
        message: `the pattern captures no "${name}"; write {${name}} in the pattern or use one it captures (${[...names].join(', ') || 'none'})`,
      });
    }
    return;
  }
  // The same paths templates read ({{body.order.id}}, {{header.x-order}}), parsed the same way.
  const parsed = parseTemplate(`{{${source}.${name}}}`);
  if (!parsed.ok) errors.push({ path: `${at}.stateKey`, message: parsed.message });
}

/**
 * Validates a whole `{ mocks: [...] }` update at once: shape and semantics of every rule, reporting every
 * problem with its `mocks[i].field` path, so one round trip shows everything to fix.
 */
export function parseMockRules(body: unknown): StoredMockRule[] {
  const { mocks } = parseInput(updateMocksEnvelope, body, 'request body');
  const errors: FieldError[] = [];
  const rules: StoredMockRule[] = [];
  const seenIds = new Map<string, number>();
  let fallbackAt: number | undefined;
  mocks.forEach((raw, i) => {
    const at = `mocks[${i}]`;
    const parsed = mockRuleInput.safeParse(raw);
    if (!parsed.success) {
      errors.push(...zodErrors(parsed.error, ['mocks', i]));
      return;
    }
    const input: MockRuleInput = parsed.data;
    const rule = checkRule(input, at, errors);
    if (input.id !== null && input.id !== undefined) {
      const first = seenIds.get(input.id);
      if (first !== undefined)
        errors.push({ path: `${at}.id`, message: `repeats the id of mocks[${first}]` });
      else seenIds.set(input.id, i);
    }
    if (input.isFallback === true) {
      if (fallbackAt !== undefined) {
        errors.push({
          path: `${at}.isFallback`,
          message: `mocks[${fallbackAt}] is already the fallback; keep one`,
        });
      } else fallbackAt = i;
    }
    if (rule !== undefined) rules.push(rule);
  });
  if (errors.length > 0) throw invalidInput('The mock rules are invalid; nothing was changed.', errors);
  return rules;
}
