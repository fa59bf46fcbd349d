// create_sandbox: a fresh sandbox with SMTP credentials, an email address and a capture URL.
import { z } from 'zod';
import { parseMockRules } from '../../core/mocks/rules.ts';
import { createSandboxInput } from '../../core/schemas.ts';
import { defineTool } from '../toolkit.ts';
import { mockRuleViews, sandboxView } from '../views.ts';
import { hint } from './common.ts';
import { coreFields, invert, MOCK_RULE_ARGS, SANDBOX_ARGS } from './coreArgs.ts';
import { mockRules, toCoreRules } from './mockRuleInput.ts';

const fields = coreFields(createSandboxInput.shape, SANDBOX_ARGS);

export const createSandbox = defineTool({
  name: 'create_sandbox',
  title: 'Create a capture sandbox',
  description:
    'Creates a sandbox that captures email (via its SMTP credentials or its email address) and HTTP requests ' +
    '(sent to its capture URL) without delivering anything. Ephemeral by default: it and its captures are ' +
    'removed after ttl_minutes (60). Point the app under test at the returned smtp settings, email_address ' +
    'or capture_url, trigger the action, then call wait_for_email or wait_for_request.',
  inputSchema: z.object({
    name: fields.name.default('agent sandbox').describe('A label for people; not unique.'),
    ttl_minutes: fields.ttl_minutes
      .default(60)
      .describe('Minutes until the sandbox expires, 1..1440 (default 60); null keeps it until deleted.'),
    tags: fields.tags.describe(
      'String tags, e.g. {"branch":"main"}: at most 50, keys 1-64 and values up to 256 characters.',
    ),
    mock_rules: mockRules
      .optional()
      .describe('Replies for the capture URL, first match wins (see set_mock_rules).'),
  }),
  outputSchema: z.object({
    sandbox_id: z.string(),
    name: z.string(),
    email_address: z.string(),
    email_domain: z.string(),
    smtp: z.object({
      host: z.string(),
      port: z.number(),
      username: z.string(),
      password: z.string(),
      starttls: z.boolean(),
    }),
    capture_url: z.string(),
    expires_at: z.string().nullable(),
    created_at: z.string().nullable(),
    tags: z.record(z.string(), z.string()),
    mock_rules: z.array(z.looseObject({})),
    hint,
  }),
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
      mock_rules: mockRuleViews(sandbox),
      hint:
        `Send mail to ${sandbox.emailAddress} (or through SMTP ${sandbox.smtpHost}:${sandbox.smtpPort} with STARTTLS and the ` +
        `username/password above), or HTTP to ${sandbox.captureUrl}/<path>. Then call wait_for_email or wait_for_request ` +
        `with sandbox_id "${sandbox.id}".`,
    };
  },
});
