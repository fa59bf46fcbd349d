// mock_state: what a sandbox's mock rules remember (scenario states per key) and queued (callbacks with their
// delivery state), optionally resetting the scenarios first; an agent polls it to wait for a callback.
import { z } from 'zod';
import { defineTool } from '../toolkit.ts';
import { hint, sandboxId } from './common.ts';
import { ID_NAMES } from './coreArgs.ts';

export const mockState = defineTool({
  name: 'mock_state',
  title: 'Mock scenario states and callbacks',
  description:
    'Scenario states per key (a key not listed is in "Started") and the callbacks the rules queued, newest ' +
    'first, with status pending/delivered/failed. reset_scenarios: true puts every key back to "Started" first.',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    scenario: z.string().max(120).optional().describe('Only this scenario.'),
    reset_scenarios: z.boolean().default(false),
    request_id: z.string().uuid().optional().describe('Only the callbacks of this captured request.'),
  }),
  outputSchema: z.object({
    scenarios: z.array(z.object({ scenario: z.string(), key: z.string(), state: z.string() })),
    callbacks: z.array(
      z.object({
        id: z.string(),
        rule_id: z.string(),
        request_id: z.string(),
        url: z.string(),
        status: z.string(),
        attempts: z.number(),
        last_error: z.string().nullable(),
      }),
    ),
    hint,
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  coreNames: { ...ID_NAMES, requestId: 'request_id' },
  async handler(args, { backend }) {
    const query = args.scenario === undefined ? {} : { scenario: args.scenario };
    const states = await backend.mockScenarios(args.sandbox_id, query, args.reset_scenarios);
    const callbacks = await backend.mockCallbacks(
      args.sandbox_id,
      args.request_id === undefined ? {} : { requestId: args.request_id },
    );
    const pending = callbacks.items.filter((c) => c.status === 'pending').length;
    return {
      scenarios: states.map((s) => ({ scenario: s.scenario, key: s.key, state: s.state })),
      callbacks: callbacks.items.map((c) => ({
        id: c.id,
        rule_id: c.ruleId,
        request_id: c.requestId,
        url: c.url,
        status: c.status,
        attempts: c.attempts,
        last_error: c.deliveries.at(-1)?.error ?? null,
      })),
      hint:
        pending > 0
          ? `${pending} callback(s) pending: call mock_state again to see them delivered.`
          : 'Change the rules with set_mock_rules.',
    };
  },
});
