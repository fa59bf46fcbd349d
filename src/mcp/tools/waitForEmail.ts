// wait_for_email: the newest matching email, or the first to arrive within the timeout, with its code and links.
import { z } from 'zod';
import { defineTool } from '../toolkit.ts';
import { emailView } from '../views.ts';
import { messageWaitQuery } from '../../core/schemas.ts';
import { after, hint, ID_NAMES, loose, sandboxId } from './common.ts';
import { coreFields, EMAIL_WAIT_ARGS, invert } from './coreArgs.ts';
import { startingPoint, withProgress } from './waitSupport.ts';

const fields = coreFields(messageWaitQuery.shape, EMAIL_WAIT_ARGS);

export const waitForEmail = defineTool({
  name: 'wait_for_email',
  title: 'Wait for an email',
  description:
    'Returns the newest email in the sandbox that matches the filters, or blocks until one arrives ' +
    '(up to timeout_seconds). The result already carries the one-time code (otp) and the links (verify, ' +
    'reset, magic_login, unsubscribe) extracted from it. A timeout is a normal result with status "timeout".',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    timeout_seconds: fields.timeout_seconds.describe(
      'How long to wait, 0..300 seconds (default 30). 0 only checks what is already there.',
    ),
    subject_contains: fields.subject_contains.describe('Case-insensitive substring of the subject.'),
    from_contains: fields.from_contains.describe('Case-insensitive substring of the From header.'),
    to: fields.to.describe('Exact recipient address the mail arrived on (Bcc included).'),
    unread_only: z.boolean().optional().describe('Only emails not yet marked read.'),
    since: fields.since.describe(
      'Only emails received at or after this instant (ISO 8601). Use it when reusing a sandbox.',
    ),
    after,
  }),
  outputSchema: z.object({
    status: z.enum(['received', 'timeout']),
    email: loose.nullable(),
    non_matching_arrivals: z.number(),
    hint,
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  coreNames: { ...ID_NAMES, ...invert(EMAIL_WAIT_ARGS) },
  async handler(args, ctx) {
    const from = await startingPoint(
      args.since,
      args.after,
      async (id) => (await ctx.backend.getEmail(args.sandbox_id, id)).receivedAt,
    );
    const result = await withProgress(ctx, args.timeout_seconds, 'an email', () =>
      ctx.backend.waitForEmail(
        args.sandbox_id,
        {
          subjectContains: args.subject_contains,
          fromContains: args.from_contains,
          capturedFor: args.to,
          isRead: args.unread_only === true ? false : undefined,
          since: from,
        },
        { timeoutSeconds: args.timeout_seconds, signal: ctx.signal },
      ),
    );
    if (result.status === 'timeout') {
      return {
        status: 'timeout' as const,
        email: null,
        non_matching_arrivals: result.nonMatching,
        hint:
          result.nonMatching > 0
            ? `${result.nonMatching} email(s) arrived but did not match: loosen the filters or check them with list_emails.`
            : 'Nothing arrived. Check the app sent to this sandbox (email_address or the SMTP settings), then wait again.',
      };
    }
    const email = emailView(result.item);
    return {
      status: 'received' as const,
      email,
      non_matching_arrivals: 0,
      hint:
        email.otp.code !== null
          ? `Use the code ${email.otp.code}. To wait for the next email, pass after: "${email.id}".`
          : email.links.length > 0
            ? `Use the ${email.links[0]?.kind} link. To wait for the next email, pass after: "${email.id}".`
            : `Read the text, or call extract_from_body with email_id "${email.id}". Pass after: "${email.id}" to wait for the next one.`,
    };
  },
});
