// expect: counts of emails and requests over one window, checked together; pass or fail (never an error) with
// what matched each condition, what came closest, and what failed in words.
import { z } from 'zod';
import { expectationInput, MAX_EXPECTATION_CONDITIONS, MAX_EXPECTED_COUNT } from '../../core/schemas.ts';
import { parseInput } from '../../core/validation.ts';
import type { ExpectItem, ExpectOutcome } from '../backend.ts';
import { defineTool, ToolError } from '../toolkit.ts';
import { hint, sandboxId } from './common.ts';
import { EMAIL_WAIT_ARGS, ID_NAMES, invert, REQUEST_WAIT_ARGS } from './coreArgs.ts';
import { WAIT_CAP_WITHOUT_PROGRESS_SECONDS, withProgress } from './waitSupport.ts';

const EXPECT_ARGS = {
  at_least: 'atLeast',
  at_most: 'atMost',
  in_order: 'inOrder',
  within_seconds: 'withinSeconds',
  quiet_for_seconds: 'quietForSeconds',
} as const;

/** Core field -> argument, for the paths of core's refusals and the failed filters of closest items. */
const CORE_TO_ARG = invert(EMAIL_WAIT_ARGS, REQUEST_WAIT_ARGS, EXPECT_ARGS);

const count = z.number().int().min(0).max(MAX_EXPECTED_COUNT).optional();
const seconds = (d: number) => z.number().int().min(0).max(300).default(d);

const itemSchema = z.object({
  stream: z.enum(['messages', 'requests']),
  id: z.string(),
  received_at: z.string(),
  subject: z.string().nullable().optional(),
  from: z.string().optional(),
  method: z.string().optional(),
  path: z.string().optional(),
});

function itemView(i: ExpectItem) {
  const received_at = i.receivedAt.toISOString();
  return i.stream === 'messages'
    ? { stream: i.stream, id: i.id, received_at, subject: i.subject, from: i.from }
    : { stream: i.stream, id: i.id, received_at, method: i.method, path: i.path };
}

/** The next step after the summary, by what failed. */
function nextStep(r: ExpectOutcome): string {
  switch (r.failure?.problem) {
    case undefined:
      return '';
    case 'too_few':
      return 'If closest holds the item you expected, loosen the filter named in its failed_filters; if closest is empty, check the app sent to this sandbox, or pass since to count items that arrived before the call.';
    case 'too_many':
      return 'The app sent more than expected: read the named item with get_email or get_request.';
    case 'out_of_order':
      return 'The named item came first: check the order the app sends in, or drop in_order.';
    case 'not_quiet':
      return 'Matches kept coming: raise at_most, or shorten quiet_for_seconds if that traffic is expected.';
    case 'interrupted':
      return 'Call expect again.';
  }
}

export const expect = defineTool({
  name: 'expect',
  title: 'Expect emails and requests',
  description:
    'Checks counts of emails and requests matching filters in one window. pass once every count is met ' +
    '(then nothing more matched for quiet_for_seconds); fail at once when one can no longer hold, or at ' +
    'within_seconds. Counts items from the call on unless since. summary says what failed. Marks nothing read unless consume.',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    conditions: z
      .array(
        z.strictObject({
          stream: z.enum(['messages', 'requests']),
          filter: z
            .strictObject({
              subject_contains: z.string().optional(),
              from_contains: z.string().optional(),
              to: z.string().optional(),
              method: z.string().optional(),
              path_contains: z.string().optional(),
            })
            .optional()
            .describe('messages: subject_contains, from_contains, to; requests: method, path_contains.'),
          exactly: count,
          at_least: count,
          at_most: count.describe('None of the three: at least 1.'),
        }),
      )
      .min(1)
      .max(MAX_EXPECTATION_CONDITIONS),
    in_order: z
      .boolean()
      .default(false)
      .describe("Each condition's first match comes after the previous one's."),
    within_seconds: seconds(30).describe('Counts met by then (default 30).'),
    quiet_for_seconds: seconds(0).describe('Then no more matches for this long; each match restarts it.'),
    since: z.string().optional().describe('ISO instant: also count items received from then on.'),
    consume: z.boolean().default(false).describe('On pass, mark matched items read.'),
  }),
  outputSchema: z.object({
    result: z.enum(['pass', 'fail']),
    summary: z.string(),
    since: z.string().describe('Items counted were received from this instant.'),
    failure: z
      .object({
        condition: z.number(),
        problem: z.enum(['too_few', 'too_many', 'out_of_order', 'not_quiet', 'interrupted']),
        item: itemSchema.nullable(),
        after: z.number().optional(),
      })
      .nullable(),
    conditions: z.array(
      z.object({
        stream: z.enum(['messages', 'requests']),
        count: z.number(),
        met: z.boolean(),
        matched: z.array(itemSchema),
        closest: z.array(itemSchema.extend({ failed_filters: z.array(z.string()) })),
      }),
    ),
    hint,
  }),
  annotations: { readOnlyHint: false, openWorldHint: false },
  coreNames: { ...ID_NAMES, ...CORE_TO_ARG },
  async handler(args, ctx) {
    const input = parseInput(
      expectationInput,
      {
        conditions: args.conditions.map((c) => {
          const f = c.filter ?? {};
          const filter =
            c.stream === 'messages'
              ? { subjectContains: f.subject_contains, fromContains: f.from_contains, capturedFor: f.to }
              : { method: f.method, pathContains: f.path_contains };
          // An argument of the other stream is refused by core's schema, under its own name.
          const other =
            c.stream === 'messages'
              ? { method: f.method, pathContains: f.path_contains }
              : { subjectContains: f.subject_contains, fromContains: f.from_contains, capturedFor: f.to };
          const given = Object.fromEntries(
            Object.entries({ ...filter, ...other }).filter(([, v]) => v !== undefined),
          );
          return {
            stream: c.stream,
            filter: given,
            exactly: c.exactly,
            atLeast: c.at_least,
            atMost: c.at_most,
          };
        }),
        inOrder: args.in_order,
        withinSeconds: args.within_seconds,
        quietForSeconds: args.quiet_for_seconds,
        since: args.since,
        consume: args.consume,
      },
      'arguments',
    );
    const total = input.withinSeconds + input.quietForSeconds;
    if (!ctx.outlivesClientTimeout && total > WAIT_CAP_WITHOUT_PROGRESS_SECONDS) {
      // Cutting the window short would change the answer: an honest refusal instead.
      throw new ToolError(
        'INVALID_INPUT',
        `within_seconds + quiet_for_seconds is ${total} s, longer than a call without a progress token may last (${WAIT_CAP_WITHOUT_PROGRESS_SECONDS} s)`,
        `Keep the sum at most ${WAIT_CAP_WITHOUT_PROGRESS_SECONDS}, or call with a progress token or as a task`,
      );
    }
    const r = await withProgress(ctx, total, 'the expectation', () =>
      ctx.backend.expect(args.sandbox_id, input, ctx.signal),
    );
    return {
      result: r.result,
      summary: r.summary,
      since: r.since.toISOString(),
      failure:
        r.failure === undefined
          ? null
          : {
              condition: r.failure.condition,
              problem: r.failure.problem,
              item: r.failure.item === undefined ? null : itemView(r.failure.item),
              ...(r.failure.after === undefined ? {} : { after: r.failure.after }),
            },
      conditions: r.conditions.map((c) => ({
        stream: c.stream,
        count: c.count,
        met: c.met,
        matched: c.matched.map(itemView),
        closest: c.closest.map((m) => ({
          ...itemView(m),
          failed_filters: m.failedFilters.map((f) => CORE_TO_ARG[f] ?? f),
        })),
      })),
      hint: `${r.summary} ${nextStep(r)}`.trim(),
    };
  },
});
