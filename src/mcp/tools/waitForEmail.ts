// wait_for_email: the newest matching email not yet handed out, or the first to arrive within the timeout,
// with its code and links; on a miss, what did not match and the corrected call.
import { z } from 'zod';
import { defineTool } from '../toolkit.ts';
import { emailSchema, emailView } from '../views.ts';
import { messageWaitQuery } from '../../core/schemas.ts';
import { after, hint, ID_NAMES, sandboxId } from './common.ts';
import { coreFields, EMAIL_WAIT_ARGS, invert } from './coreArgs.ts';
import { emailMissSchema, emailMissView, missHint, startingPoint, withProgress } from './waitSupport.ts';

const fields = coreFields(messageWaitQuery.shape, EMAIL_WAIT_ARGS);

export const waitForEmail = defineTool({
  name: 'wait_for_email',
  title: 'Wait for an email',
  description:
    'Returns the newest matching email, or the first to arrive within timeout_seconds, with its code (otp) ' +
    'and links already extracted. Each call returns an email no earlier wait returned and marks it read ' +
    '(peek: true leaves it unread). Timeouts are results listing what did not ' +
    'match. Most clients end calls at 60 s unless progress resets it (sent every 5 s).',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    timeout_seconds: fields.timeout_seconds.describe(
      'How long to wait, 0..300 seconds (default 30). 0 only checks what is already there.',
    ),
    subject_contains: fields.subject_contains.describe('Case-insensitive substring of the subject.'),
    from_contains: fields.from_contains.describe('Case-insensitive substring of the From header.'),
    to: fields.to.describe('Exact recipient address the mail arrived on (Bcc included).'),
    unread_only: z.boolean().default(true).describe('Default true: skip emails an earlier wait returned.'),
    peek: z.boolean().default(false).describe('Leave the email unread.'),
    since: fields.since.describe(
      'Only emails received at or after this instant (ISO 8601). Use it when reusing a sandbox.',
    ),
    after,
  }),
  outputSchema: z.object({
    status: z.enum(['received', 'timeout']),
    email: emailSchema.nullable(),
    non_matching_arrivals: z.number().describe('Emails that arrived during the wait and did not match.'),
    non_matching: z.array(emailMissSchema).describe('Up to 5 emails that did not match, newest first.'),
    hint,
  }),
  annotations: { readOnlyHint: false, openWorldHint: false },
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
          isRead: args.unread_only ? false : undefined,
          since: from?.at,
        },
        { timeoutSeconds: args.timeout_seconds, signal: ctx.signal, claim: !args.peek },
      ),
    );
    const nonMatching = result.misses.map((m) => emailMissView(m, from));
    const report = { non_matching_arrivals: result.nonMatching, non_matching: nonMatching };
    if (result.status === 'timeout') {
      const [first] = nonMatching;
      return {
        status: 'timeout' as const,
        email: null,
        ...report,
        hint:
          first !== undefined
            ? missHint('wait_for_email', args, first)
            : result.nonMatching > 0
              ? `${result.nonMatching} email(s) arrived but did not match: loosen the filters or check them with list_emails.`
              : 'Nothing arrived. Check the app sent to this sandbox (email_address or the SMTP settings), then wait again.',
      };
    }
    const email = emailView(result.item, await ctx.backend.sandboxDashboardUrl(args.sandbox_id));
    return {
      status: 'received' as const,
      email,
      ...report,
      hint:
        email.otp.code !== null
          ? `Use the code ${email.otp.code}. To wait for the next email, pass after: "${email.id}".`
          : email.links.length > 0
            ? `Use the ${email.links[0]?.kind} link. To wait for the next email, pass after: "${email.id}".`
            : `Read the text, or call extract_from_body with email_id "${email.id}". Pass after: "${email.id}" to wait for the next one.`,
    };
  },
});
