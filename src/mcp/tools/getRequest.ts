// get_request: one captured HTTP request in full: the exact body (up to 256 KB), parsed views where asked.
import { z } from 'zod';
import { defineTool } from '../toolkit.ts';
import { requestHint, requestInclude, requestSchema, requestView } from '../views.ts';
import { uuid } from '../../core/schemas.ts';
import { hint, sandboxId } from './common.ts';
import { ID_NAMES } from './coreArgs.ts';

export const getRequest = defineTool({
  name: 'get_request',
  title: 'Get a captured request',
  description:
    'Returns one captured request: method, path, query, headers in order, the exact body (up to 256 KB), ' +
    'its JSON paths, and parsed JSON/form with include.',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    request_id: uuid.describe('A request id from list_requests or wait_for_request.'),
    include: requestInclude,
  }),
  outputSchema: z.object({ request: requestSchema, hint }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  coreNames: ID_NAMES,
  async handler(args, { backend }) {
    const request = requestView(
      await backend.getRequest(args.sandbox_id, args.request_id),
      await backend.sandboxDashboardUrl(args.sandbox_id),
      args.include,
    );
    return { request, hint: requestHint(request, args.sandbox_id) };
  },
});
