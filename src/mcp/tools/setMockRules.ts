// set_mock_rules: replaces the replies a sandbox's capture URL gives.
import { z } from 'zod';
import { defineTool } from '../toolkit.ts';
import { mockRuleSchema, sandboxView } from '../views.ts';
import { hint, sandboxId } from './common.ts';
import { ID_NAMES, invert, MOCK_RULE_ARGS } from './coreArgs.ts';
import { mockRules, toCoreRules } from './mockRuleInput.ts';

export const setMockRules = defineTool({
  name: 'set_mock_rules',
  title: 'Set mock rules',
  description:
    'Replaces all reply rules of the capture URL. The first rule whose method and pattern match answers; an ' +
    'is_fallback rule answers the rest; else the reply is 200 {}.',
  inputSchema: z.object({ sandbox_id: sandboxId, rules: mockRules }),
  outputSchema: z.object({
    sandbox_id: z.string(),
    capture_url: z.string(),
    mock_rules: z.array(mockRuleSchema),
    hint,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  coreNames: { ...ID_NAMES, ...invert(MOCK_RULE_ARGS, { rules: 'mocks' }) },
  async handler(args, { backend }) {
    const sandbox = await backend.setMocks(args.sandbox_id, { mocks: toCoreRules(args.rules) });
    return {
      sandbox_id: sandbox.id,
      capture_url: sandbox.captureUrl,
      mock_rules: sandboxView(sandbox).mock_rules,
      hint: `Requests to ${sandbox.captureUrl}/<path> now get these replies.`,
    };
  },
});
