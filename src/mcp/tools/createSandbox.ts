// create_sandbox: a fresh sandbox with SMTP credentials, an email address and a capture URL.
import { z } from 'zod';
import { parseMockRules } from '../../core/mocks/rules.ts';
import { createSandboxInput } from '../../core/schemas.ts';
import { defineTool } from '../toolkit.ts';
import { sandboxSchema, sandboxView } from '../views.ts';
import { hint } from './common.ts';
import { coreFields, invert, MOCK_RULE_ARGS, SANDBOX_ARGS } from './coreArgs.ts';
import { mockRules, toCoreRules } from './mockRuleInput.ts';

const fields = coreFields(createSandboxInput.shape, SANDBOX_ARGS);

export const createSandbox = defineTool({
  name: 'create_sandbox',
  title: 'Create a capture sandbox',
  description:
    'Creates a sandbox that captures email (sent to email_address or through its smtp settings) and HTTP ' +
    'requests (sent to capture_url/<path>); nothing is delivered. Removed with its captures after ttl_minutes. ' +
    'Point the app at it, act, then call wait_for_email or wait_for_request.',
  inputSchema: z.object({
    name: fields.name.default('agent sandbox').describe('A label for people; not unique.'),
    ttl_minutes: fields.ttl_minutes
      .default(60)
      .describe('1..1440 (default 60); null keeps it until deleted.'),
    tags: fields.tags.describe('String tags, e.g. {"branch":"main"}.'),
    mock_rules: mockRules.optional().describe('As in set_mock_rules.'),
  }),
  outputSchema: sandboxSchema.extend({ hint }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  coreNames: invert(SANDBOX_ARGS, MOCK_RULE_ARGS, { mock_rules: 'mocks' }),
  async handler(args, { backend }) {
    const rules = args.mock_rules === undefined ? [] : toCoreRules(args.mock_rules);
    // Core's own check of the whole list first, so refused rules never leave a sandbox behind.
    if (rules.length > 0) parseMockRules({ mocks: rules });
    let sandbox = await backend.createSandbox({
      name: args.name,
      tags: args.tags ?? null,
      ephemeral: args.ttl_minutes !== null,
      ttlMinutes: args.ttl_minutes,
    });
    if (rules.length > 0) {
      try {
        sandbox = await backend.setMocks(sandbox.id, { mocks: rules });
      } catch (err) {
        await backend.deleteSandbox(sandbox.id).catch(() => {});
        throw err;
      }
    }
    return {
      ...sandboxView(sandbox),
      hint:
        `Send mail to ${sandbox.emailAddress} (or through SMTP ${sandbox.smtpHost}:${sandbox.smtpPort} with STARTTLS and the ` +
        `username/password above), or HTTP to ${sandbox.captureUrl}/<path>. Then call wait_for_email or wait_for_request ` +
        `with sandbox_id "${sandbox.id}".`,
    };
  },
});
