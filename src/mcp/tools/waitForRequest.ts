// wait_for_request: the newest matching captured HTTP request newer than any a wait handed out, or the first to arrive
// within the timeout; on a miss, what did not match and the corrected call.
import { z } from 'zod';
import { defineTool } from '../toolkit.ts';
import { requestHint, requestInclude, requestSchema, requestView } from '../views.ts';
import { requestWaitQuery } from '../../core/schemas.ts';
import { after, hint, sandboxId } from './common.ts';
import { coreFields, ID_NAMES, invert, REQUEST_WAIT_ARGS } from './coreArgs.ts';
import {
  continuation,
  continueWith,
  includeOlder,
  missHint,
  planWait,
  requestMissSchema,
  requestMissView,
  sandboxEnded,
  waitStatus,
  withProgress,
} from './waitSupport.ts';

const fields = coreFields(requestWaitQuery.shape, REQUEST_WAIT_ARGS);

export const waitForRequest = defineTool({
  name: 'wait_for_request',
  title: 'Wait for an HTTP request',
  description:
    'Returns the newest matching captured request, or the first to arrive: headers, the exact body, the ' +
    'reply sent. Never one older than a request a wait already returned unless since, after or ' +
    'include_older. Marks it read unless peek. status still_waiting: call again with continue_with.',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    timeout_seconds: fields.timeout_seconds.describe('0..300 s (default 30); 0 only checks what is there.'),
    method: fields.method.describe('Exact HTTP method, e.g. POST.'),
    path_contains: fields.path_contains.describe('Substring of the path (without the query).'),
    unread_only: z.boolean().default(true).describe('Skip requests a wait returned.'),
    peek: z.boolean().default(false).describe('Leave the request unread.'),
    since: fields.since.describe('Only requests received at or after this ISO 8601 instant.'),
    after,
    include_older: includeOlder,
    include: requestInclude,
  }),
  outputSchema: z.object({
    status: waitStatus,
    request: requestSchema.nullable(),
    non_matching_arrivals: z.number().describe('Requests that arrived during the wait and did not match.'),
    non_matching: z.array(requestMissSchema).describe('Up to 5 requests that did not match, newest first.'),
    continue_with: continueWith,
    hint,
  }),
  annotations: { readOnlyHint: false, openWorldHint: false },
  coreNames: { ...ID_NAMES, ...invert(REQUEST_WAIT_ARGS) },
  async handler(args, ctx) {
    const plan = await planWait(
      ctx,
      args,
      async (id) => (await ctx.backend.getRequest(args.sandbox_id, id)).receivedAt,
    );
    const { from } = plan;
    const method = args.method?.toUpperCase() || undefined;
    let result;
    try {
      result = await withProgress(ctx, plan.seconds, 'a request', () =>
        ctx.backend.waitForRequest(
          args.sandbox_id,
          {
            method,
            pathContains: args.path_contains,
            isRead: args.unread_only ? false : undefined,
            since: from?.at,
          },
          { timeoutSeconds: plan.seconds, signal: ctx.signal, claim: !args.peek, onlyNewer: plan.onlyNewer },
        ),
      );
    } catch (err) {
      const ended = sandboxEnded(err);
      if (ended === undefined) throw err;
      return { ...ended, request: null, non_matching_arrivals: 0, non_matching: [] };
    }
    const nonMatching = result.misses.map((m) => requestMissView(m, from));
    const report = { non_matching_arrivals: result.nonMatching, non_matching: nonMatching };
    if (result.status === 'timeout') {
      if (plan.remaining > 0 && !ctx.signal.aborted) {
        return {
          status: 'still_waiting' as const,
          request: null,
          ...report,
          continue_with: continuation(args, plan),
          hint: `Nothing matched in ${plan.seconds} s (calls without a progress token end by ${plan.seconds} s, before clients give up). Call wait_for_request with continue_with.arguments to wait ${plan.remaining} s more; nothing that arrives in between is missed.`,
        };
      }
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
    const request = requestView(
      result.item,
      await ctx.backend.sandboxDashboardUrl(args.sandbox_id),
      args.include,
    );
    return {
      status: 'received' as const,
      request,
      ...report,
      hint: requestHint(request, args.sandbox_id),
    };
  },
});
