// create_sandbox: a fresh sandbox with SMTP credentials, an email address and a capture URL.
import { z } from 'zod';
import { parseMockRules } from '../../core/mocks/rules.ts';
import { createSandboxInput, MAX_MOCK_RULES } from '../../core/schemas.ts';
import { defineTool, ToolError } from '../toolkit.ts';
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
    // Each rule is checked in the handler against set_mock_rules' schema: listing it twice in tools/list cost
    // 870 of the 13,000 characters the model sees.
    mock_rules: z
      .array(z.looseObject({}))
      .max(MAX_MOCK_RULES)
      .optional()
      .describe('Rules with the fields of set_mock_rules.'),
  }),
  outputSchema: sandboxSchema.extend({ hint }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  coreNames: invert(SANDBOX_ARGS, MOCK_RULE_ARGS, { mock_rules: 'mocks' }),
  async handler(args, { backend }) {
    const given = mockRules.safeParse(args.mock_rules ?? []);
    if (!given.success) {
      const what = given.error.issues
        .map((i) => `mock_rules[${i.path.map(String).join('].')}${i.path.length > 1 ? '' : ']'} ${i.message}`)
        .join('; ');
      throw new ToolError(
        'INVALID_INPUT',
        `Invalid mock_rules: ${what}`,
        'Give each rule the fields set_mock_rules takes (see its input schema) and call again',
      );
    }
    const rules = toCoreRules(given.data);
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
