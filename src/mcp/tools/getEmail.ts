// get_email: one captured email with its code and links extracted.
import { z } from 'zod';
import { CHECK_NAMES } from '../../core/checks/service.ts';
import { checksSchema, checksView } from '../checksView.ts';
import { defineTool } from '../toolkit.ts';
import { emailSchema, emailView } from '../views.ts';
import { uuid } from '../../core/schemas.ts';
import { hint, sandboxId } from './common.ts';
import { ID_NAMES } from './coreArgs.ts';

export const getEmail = defineTool({
  name: 'get_email',
  title: 'Get an email',
  description: 'Returns one email: subject, from, to, text, attachments, the one-time code (otp) and links.',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    email_id: uuid.describe('An email id from list_emails or wait_for_email.'),
    checks: z
      .array(z.enum(CHECK_NAMES))
      .optional()
      .describe(
        'Also run these checks: html (client compatibility from caniemail), spam (offline spam-style score), ' +
          'links (fetches every link now; slow, and only targets the webhook policy allows).',
      ),
  }),
  outputSchema: z.object({ email: emailSchema, checks: checksSchema.optional(), hint }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  coreNames: ID_NAMES,
  async handler(args, { backend }) {
    const email = emailView(
      await backend.getEmail(args.sandbox_id, args.email_id),
      await backend.sandboxDashboardUrl(args.sandbox_id),
    );
    const checks =
      args.checks === undefined || args.checks.length === 0
        ? undefined
        : checksView(await backend.emailChecks(args.sandbox_id, args.email_id, args.checks));
    return {
      email,
      ...(checks && { checks }),
      hint:
        email.otp.code !== null
          ? `The code is ${email.otp.code}.`
          : email.primary_link !== null
            ? `Open the ${email.primary_link.kind} link primary_link.url (${email.primary_link.url}).`
            : 'No code or action link: read text, or extract_from_body.',
    };
  },
});
