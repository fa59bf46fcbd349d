// list_requests: a sandbox's captured HTTP requests, newest first.
import { z } from 'zod';
import { defineTool } from '../toolkit.ts';
import { requestSummarySchema, requestSummaryView } from '../views.ts';
import { listRequestsQuery } from '../../core/schemas.ts';
import { hint, limit, nextCursor, sandboxId } from './common.ts';
import { coreFields, ID_NAMES, invert, REQUEST_LIST_ARGS, toCore } from './coreArgs.ts';

const fields = coreFields(listRequestsQuery.shape, REQUEST_LIST_ARGS);

export const listRequests = defineTool({
  name: 'list_requests',
  title: 'List captured requests',
  description: 'Lists captured HTTP requests, newest first, as summaries (get_request reads one in full).',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    query: fields.query.describe('Free text: method, path, query string, status, rule name.'),
    search: fields.search.describe('Words (path, query, headers, text body), "phrase", -word, is:unread'),
    unread_only: z.boolean().optional().describe('Only requests no wait has returned yet.'),
    limit,
    cursor: fields.cursor.describe('next_cursor from the previous page.'),
  }),
  outputSchema: z.object({ requests: z.array(requestSummarySchema), next_cursor: nextCursor, hint }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  coreNames: { ...ID_NAMES, ...invert(REQUEST_LIST_ARGS) },
  async handler(args, { backend }) {
    const sandboxUrl = await backend.sandboxDashboardUrl(args.sandbox_id);
    const page = await backend.listRequests(args.sandbox_id, {
      ...toCore(args, REQUEST_LIST_ARGS),
      isRead: args.unread_only === true ? false : undefined,
    });
    return {
      requests: page.items.map((r) => requestSummaryView(r, sandboxUrl)),
      next_cursor: page.nextCursor,
      hint:
        page.items.length === 0
          ? 'Nothing captured yet: wait_for_request blocks until a request arrives.'
          : 'get_request reads one in full.',
    };
  },
});
