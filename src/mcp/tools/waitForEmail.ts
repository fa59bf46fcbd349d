// wait_for_email: the newest matching email newer than any a wait handed out, or the first to arrive within the
// timeout, with its code and links; on a miss, what did not match and the corrected call.
import { z } from 'zod';
import { defineTool } from '../toolkit.ts';
import { emailSchema, emailView } from '../views.ts';
import { messageWaitQuery } from '../../core/schemas.ts';
import { after, hint, sandboxId } from './common.ts';
import { coreFields, EMAIL_WAIT_ARGS, ID_NAMES, invert } from './coreArgs.ts';
import {
  continuation,
  continueWith,
  emailHint,
  emailMissSchema,
  emailMissView,
  includeOlder,
  missHint,
  planWait,
  sandboxEnded,
  waitStatus,
  withProgress,
} from './waitSupport.ts';

const fields = coreFields(messageWaitQuery.shape, EMAIL_WAIT_ARGS);

export const waitForEmail = defineTool({
  name: 'wait_for_email',
  title: 'Wait for an email',
  description:
    'Returns the newest matching email, or the first to arrive, with otp, links and primary_link extracted. ' +
    'Never one older than an email a wait already returned (a resent code replaces the old) unless since, ' +
    'after or include_older. Marks it read unless peek. status still_waiting: call again with continue_with.',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    timeout_seconds: fields.timeout_seconds.describe('0..300 s (default 30); 0 only checks what is there.'),
    subject_contains: fields.subject_contains.describe('Case-insensitive substring of the subject.'),
    from_contains: fields.from_contains.describe('Case-insensitive substring of the From header.'),
    to: fields.to.describe('Exact recipient address the mail arrived on (Bcc included).'),
    unread_only: z.boolean().default(true).describe('Skip emails a wait returned.'),
    peek: z.boolean().default(false).describe('Leave the email unread.'),
    since: fields.since.describe('Only emails received at or after this ISO 8601 instant.'),
    after,
    include_older: includeOlder,
  }),
  outputSchema: z.object({
    status: waitStatus,
    email: emailSchema.nullable(),
    non_matching_arrivals: z.number().describe('Emails that arrived during the wait and did not match.'),
    non_matching: z.array(emailMissSchema).describe('Up to 5 emails that did not match, newest first.'),
    continue_with: continueWith,
    hint,
  }),
  annotations: { readOnlyHint: false, openWorldHint: false },
  coreNames: { ...ID_NAMES, ...invert(EMAIL_WAIT_ARGS) },
  async handler(args, ctx) {
    const plan = await planWait(
      ctx,
      args,
      async (id) => (await ctx.backend.getEmail(args.sandbox_id, id)).receivedAt,
    );
    const { from } = plan;
    let result;
    try {
      result = await withProgress(ctx, plan.seconds, 'an email', () =>
        ctx.backend.waitForEmail(
          args.sandbox_id,
          {
            subjectContains: args.subject_contains,
            fromContains: args.from_contains,
            capturedFor: args.to,
            isRead: args.unread_only ? false : undefined,
            since: from?.at,
          },
          { timeoutSeconds: plan.seconds, signal: ctx.signal, claim: !args.peek, onlyNewer: plan.onlyNewer },
        ),
      );
    } catch (err) {
      const ended = sandboxEnded(err);
      if (ended === undefined) throw err;
      return { ...ended, email: null, non_matching_arrivals: 0, non_matching: [] };
    }
    const nonMatching = result.misses.map((m) => emailMissView(m, from));
    const report = { non_matching_arrivals: result.nonMatching, non_matching: nonMatching };
    if (result.status === 'timeout') {
      if (plan.remaining > 0 && !ctx.signal.aborted) {
        const next = continuation(args, plan);
        return {
          status: 'still_waiting' as const,
          email: null,
          ...report,
          continue_with: next,
          hint: `Nothing matched in ${plan.seconds} s (calls without a progress token end by ${plan.seconds} s, before clients give up). Call wait_for_email with continue_with.arguments to wait ${plan.remaining} s more; nothing that arrives in between is missed.`,
        };
      }
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
      hint: emailHint(email),
    };
  },
});
