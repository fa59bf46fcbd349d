// wait_for_callback: blocks until a mock rule's callback is delivered (or failed for good, or attempted), so an
// agent can tell "the payment webhook reached my app" without polling mock_state.
import { z } from 'zod';
import type { QueuedCallback } from '../../core/mocks/mockState.ts';
import { defineTool } from '../toolkit.ts';
import { hint, sandboxId } from './common.ts';
import { ID_NAMES } from './coreArgs.ts';
import { callSeconds, sandboxEnded, withProgress } from './waitSupport.ts';

const callbackSchema = z.object({
  id: z.string(),
  rule_id: z.string(),
  request_id: z.string(),
  method: z.string(),
  url: z.string(),
  status: z.string().describe('pending (retrying), delivered or failed.'),
  attempts: z.array(
    z.object({
      attempt: z.number(),
      outcome: z.string(),
      status_code: z.number().nullable(),
      error: z.string().nullable(),
      at: z.string(),
    }),
  ),
});

function callbackView(c: QueuedCallback): z.infer<typeof callbackSchema> {
  return {
    id: c.id,
    rule_id: c.ruleId,
    request_id: c.requestId,
    method: c.method,
    url: c.url,
    status: c.status,
    attempts: c.deliveries.map((d) => ({
      attempt: d.attempt,
      outcome: d.outcome,
      status_code: d.statusCode,
      error: d.error,
      at: d.at.toISOString(),
    })),
  };
}

export const waitForCallback = defineTool({
  name: 'wait_for_callback',
  title: 'Wait for a mock callback',
  description:
    'Waits until a mock rule callback reaches outcome (delivered: 2xx; failed: retries over; attempted: ' +
    'any try) and returns it with its attempts. Newest match of request_id / rule_id.',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    request_id: z.string().uuid().optional().describe('The captured request that queued it.'),
    rule_id: z.string().max(64).optional(),
    outcome: z.enum(['delivered', 'failed', 'attempted']).default('delivered'),
    timeout_seconds: z.number().int().min(0).max(300).default(30).describe('0..300 s (default 30).'),
  }),
  outputSchema: z.object({
    status: z.enum(['reached', 'timeout', 'still_waiting', 'sandbox_expired', 'sandbox_deleted']),
    callback: callbackSchema.nullable(),
    hint,
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  coreNames: { ...ID_NAMES, requestId: 'request_id', ruleId: 'rule_id', timeoutSeconds: 'timeout_seconds' },
  async handler(args, ctx) {
    // A client that ends calls at 60 s without progress gets an answer before then, and the call to go on.
    const seconds = callSeconds(ctx, args.timeout_seconds);
    const capped = seconds < args.timeout_seconds;
    const query = {
      ...(args.request_id === undefined ? {} : { requestId: args.request_id }),
      ...(args.rule_id === undefined ? {} : { ruleId: args.rule_id }),
      outcome: args.outcome,
      timeoutSeconds: seconds,
    };
    let found: QueuedCallback | undefined;
    try {
      found = await withProgress(ctx, seconds, 'a callback', () =>
        ctx.backend.waitForCallback(args.sandbox_id, query, ctx.signal),
      );
    } catch (err) {
      const ended = sandboxEnded(err);
      if (ended === undefined) throw err;
      return { ...ended, callback: null };
    }
    if (found !== undefined) {
      const view = callbackView(found);
      const last = view.attempts.at(-1);
      return {
        status: 'reached' as const,
        callback: view,
        hint:
          found.status === 'delivered'
            ? `Delivered to ${found.url} (HTTP ${last?.status_code ?? '2xx'}) after ${view.attempts.length} attempt(s).`
            : `Attempted ${view.attempts.length} time(s); the last: ${last?.error ?? `HTTP ${last?.status_code}`}. ` +
              (found.status === 'failed' ? 'Retries have stopped.' : 'It will be retried.'),
      };
    }
    if (capped && !ctx.signal.aborted) {
      return {
        status: 'still_waiting' as const,
        callback: null,
        hint: `Not ${args.outcome} within ${seconds} s (calls without a progress token end by then). Call wait_for_callback again with timeout_seconds ${args.timeout_seconds - seconds} to go on waiting.`,
      };
    }
    const queued = await ctx.backend.mockCallbacks(args.sandbox_id, {
      ...(args.request_id === undefined ? {} : { requestId: args.request_id }),
      ...(args.rule_id === undefined ? {} : { ruleId: args.rule_id }),
    });
    const newest = queued.items[0];
    return {
      status: 'timeout' as const,
      callback: newest === undefined ? null : callbackView(newest),
      hint:
        newest === undefined
          ? 'No callback matches: check the rule has callbacks (get_sandbox) and that a request it answers arrived (list_requests).'
          : `The newest matching callback is ${newest.status} after ${newest.deliveries.length} attempt(s)` +
            (newest.deliveries.at(-1)?.error ? `; the last: ${newest.deliveries.at(-1)?.error}` : '') +
            '. Check the target is up and in WEBHOOK_TARGETS, then wait again.',
    };
  },
});
