// Which mock rule would answer a method and path, and the reply it would give, without sending anything to
// the capture listener: for the saved rules, or for an edited list not yet saved (validated as a save would
// be, so the same errors name the same fields).
import { z } from 'zod';
import type { CaptureService } from '../http/capture.ts';
import type { SandboxService } from '../sandboxes.ts';
import { parseInput } from '../validation.ts';
import { chooseRuleWithin, compileRules, fallbackRule } from './match.ts';
import { parseMockRules } from './rules.ts';
import type { StoredMockRule } from './types.ts';

const previewInput = z.object({
  method: z
    .string()
    .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,16}$/, 'must be an HTTP method such as GET')
    .transform((m) => m.toUpperCase()),
  path: z.string().max(8192).startsWith('/', 'must start with /'),
  mocks: z.array(z.unknown()).optional(),
});

export interface MockPreview {
  /** The position of the answering rule in the list, or null when the default reply answers. */
  index: number | null;
  rule: StoredMockRule | null;
  statusCode: number;
  headers: Array<[string, string]>;
  body: string;
}

export async function previewMock(
  deps: { sandboxes: SandboxService; capture: CaptureService },
  workspaceId: string,
  sandboxId: string,
  body: unknown,
): Promise<MockPreview> {
  const input = parseInput(previewInput, body, 'request body');
  const sandbox = await deps.sandboxes.get(workspaceId, sandboxId);
  const rules = input.mocks === undefined ? sandbox.mocks : parseMockRules({ mocks: input.mocks });
  const compiled = compileRules(rules);
  const q = input.path.indexOf('?');
  const path = q === -1 ? input.path : input.path.slice(0, q);
  const query = q === -1 ? null : input.path.slice(q + 1);
  const chosen = chooseRuleWithin(compiled, input.method, path).match ?? fallbackRule(compiled);
  const reply = await deps.capture.preview(compiled, {
    method: input.method,
    target: input.path,
    httpVersion: '1.1',
    path,
    query,
    headers: [],
    body: new Uint8Array(0),
    sourceIp: null,
  });
  const index = chosen === null ? null : compiled.indexOf(chosen.rule);
  return {
    index,
    rule: chosen === null ? null : chosen.rule.rule,
    statusCode: reply.status,
    headers: reply.headers,
    body: reply.body.toString('utf8'),
  };
}
