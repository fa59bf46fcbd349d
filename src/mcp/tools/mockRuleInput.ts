// The mock rule as tools take it: core's rule schema under snake_case names, and its way back to core.
import { z } from 'zod';
import { MAX_MOCK_RULES, mockRuleInput as coreRule } from '../../core/schemas.ts';
import { coreFields, MOCK_RULE_ARGS, toCore } from './coreArgs.ts';

const fields = coreFields(coreRule.shape, MOCK_RULE_ARGS);

export const mockRuleInput = z.object({
  name: fields.name,
  method: fields.method.describe('Empty or ANY: any method.'),
  pattern: fields.pattern.describe('/users/{id}, /files/*, /api/**, regex:^/v[0-9]+/; empty: every path.'),
  status_code: fields.status_code.default(200),
  headers: fields.headers,
  body: fields.body.describe(
    'Templates {{uuid}} {{now}} {{body.x}} {{query.x}} {{header.x}} {{path.x}}; {{x | json}} as JSON, {{x ?? "d"}}.',
  ),
  is_fallback: fields.is_fallback.describe('Answers what no rule matched.'),
  delay_ms: fields.delay_ms.describe('ms before answering, or {min,max}; max 25000.'),
  fault: fields.fault.describe(
    'reset | empty | malformed (bad chunking) | {"type":"slow","durationMs":N}; still recorded.',
  ),
  times: fields.times.describe('Answer the next N matches, then fall through.'),
  scenario: fields.scenario.describe('State machine name; keys start in "Started" (see mock_state).'),
  required_state: fields.required_state.describe('Match only in this state.'),
  new_state: fields.new_state.describe('Move the key to this state on answering.'),
  state_key: fields.state_key.describe(
    'path.<p> | header.<h> | query.<q> | body.<path>; absent: whole sandbox.',
  ),
  callbacks: fields.callbacks.describe(
    'Sent after answering: {url, method?, delayMs?, headers?, body?, signing?: {scheme: "standard-webhooks"|"hmac-sha256", secret?}}; templates as in body; see wait_for_callback.',
  ),
});

export const mockRules = z
  .array(mockRuleInput)
  .max(MAX_MOCK_RULES, `at most ${MAX_MOCK_RULES} rules per sandbox`);

/** The rules as core's `{ mocks: [...] }` update takes them. */
export function toCoreRules(rules: Array<z.output<typeof mockRuleInput>>): unknown[] {
  return rules.map((r) => toCore(r, MOCK_RULE_ARGS));
}
