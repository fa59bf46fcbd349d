// The mock rule as tools take it (snake_case), and its conversion to the REST/core rule input.
import { z } from 'zod';

export const mockRuleInput = z.object({
  name: z.string().max(120).optional(),
  method: z.string().max(16).optional().describe('HTTP method; empty or ANY matches every method.'),
  pattern: z
    .string()
    .max(512)
    .optional()
    .describe(
      'Path pattern: /users/{id}, /files/*, /api/**, or regex:^/v[0-9]+/.*$; empty matches every path.',
    ),
  status_code: z.number().int().min(100).max(599).default(200),
  headers: z.record(z.string(), z.string()).optional(),
  body: z
    .string()
    .max(65536)
    .optional()
    .describe(
      'Reply body; templates: {{uuid}}, {{now}}, {{body.field}}, {{query.x}}, {{header.x}}, {{path.x}}.',
    ),
  is_fallback: z.boolean().optional().describe('Answers whatever no other rule matched (at most one).'),
});

export function toRestRules(rules: Array<z.output<typeof mockRuleInput>>): unknown[] {
  return rules.map((r) => ({
    name: r.name ?? null,
    method: r.method ?? null,
    pattern: r.pattern ?? null,
    statusCode: r.status_code,
    headers: r.headers ?? null,
    body: r.body ?? null,
    isFallback: r.is_fallback ?? false,
  }));
}
