// list_emails: a sandbox's captured emails, newest first.
import { z } from 'zod';
import { defineTool } from '../toolkit.ts';
import { emailSummaryView } from '../views.ts';
import { cursor, hint, limit, loose, sandboxId, since } from './common.ts';

export const listEmails = defineTool({
  name: 'list_emails',
  title: 'List emails',
  description:
    'Lists captured emails, newest first. query matches subject, sender, recipients and the start of the body.',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    query: z.string().max(200).optional(),
    to: z.string().max(320).optional().describe('Exact recipient address the mail arrived on.'),
    unread_only: z.boolean().optional(),
    since,
    limit,
    cursor,
  }),
  outputSchema: z.object({ emails: z.array(loose), next_cursor: z.string().nullable(), hint }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handler(args, { backend }) {
    const page = await backend.listEmails(args.sandbox_id, {
      limit: args.limit,
      cursor: args.cursor,
      q: args.query,
      capturedFor: args.to,
      isRead: args.unread_only === true ? false : undefined,
      since: args.since === undefined ? undefined : new Date(args.since),
    });
    return {
      emails: page.items.map(emailSummaryView),
      next_cursor: page.nextCursor,
      hint:
        page.items.length === 0
          ? 'No email yet: wait_for_email blocks until one arrives.'
          : 'get_email reads one in full.',
    };
  },
});
