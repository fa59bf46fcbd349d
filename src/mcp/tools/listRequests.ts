// list_requests: a sandbox's captured HTTP requests, newest first.
import { z } from 'zod';
import { defineTool } from '../toolkit.ts';
import { requestSummaryView } from '../views.ts';
import { cursor, hint, limit, loose, sandboxId } from './common.ts';

export const listRequests = defineTool({
  name: 'list_requests',
  title: 'List captured requests',
  description:
    'Lists captured HTTP requests, newest first. query matches method, path, query string, status and rule name.',
  inputSchema: z.object({ sandbox_id: sandboxId, query: z.string().max(200).optional(), limit, cursor }),
  outputSchema: z.object({ requests: z.array(loose), next_cursor: z.string().nullable(), hint }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handler(args, { backend }) {
    const page = await backend.listRequests(args.sandbox_id, {
      limit: args.limit,
      ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
      ...(args.query === undefined ? {} : { q: args.query }),
    });
    return {
      requests: page.items.map(requestSummaryView),
      next_cursor: page.nextCursor,
      hint:
        page.items.length === 0
          ? 'Nothing captured yet: wait_for_request blocks until a request arrives.'
          : 'get_request reads one in full.',
    };
  },
});
