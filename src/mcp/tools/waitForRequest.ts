// wait_for_request: the newest matching captured HTTP request, or the first to arrive within the timeout.
import { z } from 'zod';
import { defineTool } from '../toolkit.ts';
import { requestView } from '../views.ts';
import { requestWaitQuery } from '../../core/schemas.ts';
import { after, hint, ID_NAMES, loose, sandboxId } from './common.ts';
import { coreFields, invert, REQUEST_WAIT_ARGS } from './coreArgs.ts';
import { startingPoint, withProgress } from './waitSupport.ts';

const fields = coreFields(requestWaitQuery.shape, REQUEST_WAIT_ARGS);

export const waitForRequest = defineTool({
  name: 'wait_for_request',
  title: 'Wait for an HTTP request',
  description:
    'Returns the newest HTTP request captured by the sandbox that matches the filters, or blocks until one ' +
    'arrives (up to timeout_seconds): method, path, query, headers, body and parsed JSON. A timeout is a ' +
    'normal result with status "timeout".',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    timeout_seconds: fields.timeout_seconds.describe(
      'How long to wait, 0..300 seconds (default 30). 0 only checks what is already there.',
    ),
    method: fields.method.describe('Exact HTTP method, e.g. POST.'),
    path_contains: fields.path_contains.describe('Substring of the path (without the query).'),
    since: fields.since.describe(
      'Only requests received at or after this instant (ISO 8601). Use it when reusing a sandbox.',
    ),
    after,
  }),
  outputSchema: z.object({
    status: z.enum(['received', 'timeout']),
    request: loose.nullable(),
    non_matching_arrivals: z.number(),
    hint,
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  coreNames: { ...ID_NAMES, ...invert(REQUEST_WAIT_ARGS) },
  async handler(args, ctx) {
    const from = await startingPoint(
      args.since,
      args.after,
      async (id) => (await ctx.backend.getRequest(args.sandbox_id, id)).receivedAt,
    );
    const result = await withProgress(ctx, args.timeout_seconds, 'a request', () =>
      ctx.backend.waitForRequest(
        args.sandbox_id,
        {
          method: args.method?.toUpperCase() || undefined,
          pathContains: args.path_contains,
          since: from,
        },
        { timeoutSeconds: args.timeout_seconds, signal: ctx.signal },
      ),
    );
    if (result.status === 'timeout') {
      return {
        status: 'timeout' as const,
        request: null,
        non_matching_arrivals: result.nonMatching,
        hint:
          result.nonMatching > 0
            ? `${result.nonMatching} request(s) arrived but did not match: check method/path_contains with list_requests.`
            : 'Nothing arrived. Check the app sends to the capture_url of this sandbox, then wait again.',
      };
    }
    const request = requestView(result.item);
    return {
      status: 'received' as const,
      request,
      non_matching_arrivals: 0,
      hint: `Inspect body/json. To wait for the next request, pass after: "${request.id}".`,
    };
  },
});
