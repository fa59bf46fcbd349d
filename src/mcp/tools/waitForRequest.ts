// wait_for_request: the newest matching captured HTTP request not yet handed out, or the first to arrive
// within the timeout; on a miss, what did not match and the corrected call.
import { z } from 'zod';
import { defineTool } from '../toolkit.ts';
import { requestSchema, requestView } from '../views.ts';
import { requestWaitQuery } from '../../core/schemas.ts';
import { after, hint, ID_NAMES, sandboxId } from './common.ts';
import { coreFields, invert, REQUEST_WAIT_ARGS } from './coreArgs.ts';
import { missHint, requestMissSchema, requestMissView, startingPoint, withProgress } from './waitSupport.ts';

const fields = coreFields(requestWaitQuery.shape, REQUEST_WAIT_ARGS);

export const waitForRequest = defineTool({
  name: 'wait_for_request',
  title: 'Wait for an HTTP request',
  description:
    'Returns the newest matching captured HTTP request, or the first to arrive within timeout_seconds: ' +
    'method, path, query, headers, body, parsed JSON. Each call returns a request no earlier wait returned ' +
    'and marks it read (peek: true leaves it unread). Timeouts are results listing what did not match. ' +
    'Most clients end calls at 60 s unless progress resets it (sent every 5 s).',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    timeout_seconds: fields.timeout_seconds.describe(
      'How long to wait, 0..300 seconds (default 30). 0 only checks what is already there.',
    ),
    method: fields.method.describe('Exact HTTP method, e.g. POST.'),
    path_contains: fields.path_contains.describe('Substring of the path (without the query).'),
    unread_only: z.boolean().default(true).describe('Default true: skip requests an earlier wait returned.'),
    peek: z.boolean().default(false).describe('Leave the request unread.'),
    since: fields.since.describe(
      'Only requests received at or after this instant (ISO 8601). Use it when reusing a sandbox.',
    ),
    after,
  }),
  outputSchema: z.object({
    status: z.enum(['received', 'timeout']),
    request: requestSchema.nullable(),
    non_matching_arrivals: z.number().describe('Requests that arrived during the wait and did not match.'),
    non_matching: z.array(requestMissSchema).describe('Up to 5 requests that did not match, newest first.'),
    hint,
  }),
  annotations: { readOnlyHint: false, openWorldHint: false },
  coreNames: { ...ID_NAMES, ...invert(REQUEST_WAIT_ARGS) },
  async handler(args, ctx) {
    const from = await startingPoint(
      args.since,
      args.after,
      async (id) => (await ctx.backend.getRequest(args.sandbox_id, id)).receivedAt,
    );
    const method = args.method?.toUpperCase() || undefined;
    const result = await withProgress(ctx, args.timeout_seconds, 'a request', () =>
      ctx.backend.waitForRequest(
        args.sandbox_id,
        {
          method,
          pathContains: args.path_contains,
          isRead: args.unread_only ? false : undefined,
          since: from?.at,
        },
        { timeoutSeconds: args.timeout_seconds, signal: ctx.signal, claim: !args.peek },
      ),
    );
    const nonMatching = result.misses.map((m) => requestMissView(m, from));
    const report = { non_matching_arrivals: result.nonMatching, non_matching: nonMatching };
    if (result.status === 'timeout') {
      const [first] = nonMatching;
      return {
        status: 'timeout' as const,
        request: null,
        ...report,
        hint:
          first !== undefined
            ? missHint('wait_for_request', { ...args, method }, first)
            : result.nonMatching > 0
              ? `${result.nonMatching} request(s) arrived but did not match: check method/path_contains with list_requests.`
              : 'Nothing arrived. Check the app sends to the capture_url of this sandbox, then wait again.',
      };
    }
    const request = requestView(result.item, await ctx.backend.sandboxDashboardUrl(args.sandbox_id));
    return {
      status: 'received' as const,
      request,
      ...report,
      hint: `Inspect body/json. To wait for the next request, pass after: "${request.id}".`,
    };
  },
});
