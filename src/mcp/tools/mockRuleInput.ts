// The mock rule as tools take it: core's rule schema under snake_case names, and its way back to core.
import { z } from 'zod';
import { MAX_MOCK_RULES, mockRuleInput as coreRule } from '../../core/schemas.ts';
import { coreFields, MOCK_RULE_ARGS, toCore } from './coreArgs.ts';

const fields = coreFields(coreRule.shape, MOCK_RULE_ARGS);

export const mockRuleInput = z.object({
  name: fields.name,
  method: fields.method.describe('Empty or ANY: every method.'),
  pattern: fields.pattern.describe('/users/{id}, /files/*, /api/**, regex:^/v[0-9]+/; empty: every path.'),
  status_code: fields.status_code.default(200),
  headers: fields.headers,
  body: fields.body.describe(
    'Templates {{uuid}} {{now}} {{body.x}} {{query.x}} {{header.x}} {{path.x}}; {{x | json}} inserts JSON, {{x ?? "d"}} a default.',
  ),
  is_fallback: fields.is_fallback.describe('Answers what no other rule matched.'),
});

export const mockRules = z
  .array(mockRuleInput)
  .max(MAX_MOCK_RULES, `at most ${MAX_MOCK_RULES} rules per sandbox`);

/** The rules as core's `{ mocks: [...] }` update takes them. */
export function toCoreRules(rules: Array<z.output<typeof mockRuleInput>>): unknown[] {
  return rules.map((r) => toCore(r, MOCK_RULE_ARGS));
}
