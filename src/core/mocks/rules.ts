// Checks and normalises a sandbox's whole rule list (design section 5) before it is stored:
// every pattern, method, header and template is verified here, so the capture path never meets a bad rule.
import { invalidInput, type FieldError } from '../errors.ts';
import { isServiceCookieName, setCookieName } from '../http/sessionShield.ts';
import { newId } from '../random.ts';
import { mockRuleInput, updateMocksEnvelope, type MockRuleInput } from '../schemas.ts';
import { parseInput, zodErrors } from '../validation.ts';
import { colonSegmentProblem, compilePattern, isAnyPattern, normalizePattern } from './pattern.ts';
import { parseTemplate } from './template.ts';
import type { StoredMockRule } from './types.ts';

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
  };
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
