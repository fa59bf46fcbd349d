// get_request: one captured HTTP request in full.
import { z } from 'zod';
import { defineTool } from '../toolkit.ts';
import { requestView } from '../views.ts';
import { hint, loose, sandboxId } from './common.ts';

export const getRequest = defineTool({
  name: 'get_request',
  title: 'Get a captured request',
  description:
    'Returns one captured request: method, path, query, headers in order, body and parsed JSON/form.',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    request_id: z.string().uuid('request_id must be an id from list_requests'),
  }),
  outputSchema: z.object({ request: loose, hint }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handler(args, { backend }) {
    return {
      request: requestView(await backend.getRequest(args.sandbox_id, args.request_id)),
      hint: 'extract_from_body pulls values out of it.',
    };
  },
});
