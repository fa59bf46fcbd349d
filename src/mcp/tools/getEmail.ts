// get_email: one captured email with its code and links extracted.
import { z } from 'zod';
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
  }),
  outputSchema: z.object({ email: emailSchema, hint }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  coreNames: ID_NAMES,
  async handler(args, { backend }) {
    const email = emailView(
      await backend.getEmail(args.sandbox_id, args.email_id),
      await backend.sandboxDashboardUrl(args.sandbox_id),
    );
    return {
      email,
      hint:
        email.otp.code !== null
          ? `The code is ${email.otp.code}.`
          : email.primary_link !== null
            ? `Open the ${email.primary_link.kind} link primary_link.url (${email.primary_link.url}).`
            : 'No code or action link: read text, or extract_from_body.',
    };
  },
});
