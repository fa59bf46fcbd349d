// list_emails: a sandbox's captured emails, newest first.
import { z } from 'zod';
import { defineTool } from '../toolkit.ts';
import { emailSummarySchema, emailSummaryView } from '../views.ts';
import { listMessagesQuery } from '../../core/schemas.ts';
import { hint, limit, nextCursor, sandboxId } from './common.ts';
import { coreFields, EMAIL_LIST_ARGS, ID_NAMES, invert, toCore } from './coreArgs.ts';

const fields = coreFields(listMessagesQuery.shape, EMAIL_LIST_ARGS);

export const listEmails = defineTool({
  name: 'list_emails',
  title: 'List emails',
  description: 'Lists captured emails, newest first, as summaries (get_email reads one in full).',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    query: fields.query.describe('Free text: subject, sender, recipients, the start of the body.'),
    search: fields.search.describe(
      'Words (bodies, file names too), "phrase", -word, from: to: subject: has:attachment is:unread before:/after:2026-01-31',
    ),
    to: fields.to.describe('Exact recipient address the mail arrived on.'),
    unread_only: z.boolean().optional().describe('Only emails not yet marked read.'),
    since: fields.since.describe(
      'Only emails received at or after this instant (ISO 8601). Use it when reusing a sandbox.',
    ),
    limit,
    cursor: fields.cursor.describe('next_cursor from the previous page.'),
  }),
  outputSchema: z.object({ emails: z.array(emailSummarySchema), next_cursor: nextCursor, hint }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  coreNames: { ...ID_NAMES, ...invert(EMAIL_LIST_ARGS) },
  async handler(args, { backend }) {
    const sandboxUrl = await backend.sandboxDashboardUrl(args.sandbox_id);
    const page = await backend.listEmails(args.sandbox_id, {
      ...toCore(args, EMAIL_LIST_ARGS),
      isRead: args.unread_only === true ? false : undefined,
    });
    return {
      emails: page.items.map((m) => emailSummaryView(m, sandboxUrl)),
      next_cursor: page.nextCursor,
      hint:
        page.items.length === 0
          ? 'No email yet: wait_for_email blocks until one arrives.'
          : 'get_email reads one in full.',
    };
  },
});
