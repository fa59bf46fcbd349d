// Shared by the wait tools: progress every 5 s while blocked, the cap for clients that end calls at 60 s, the
// sandbox's end as a status, `since`/`after` turned into one instant, and core's report of what did not match in the
// tools' argument names, with the corrected call as the hint.
import { z } from 'zod';
import { AppError } from '../../core/errors.ts';
import { isSandboxDeleted, isSandboxExpired } from '../../core/sandboxExpiry.ts';
import { instant } from '../../core/schemas.ts';
import type { ToolContext } from '../toolkit.ts';
import { ToolError } from '../toolkit.ts';
import { UUID_PATTERN } from '../../core/random.ts';
import type { MessageMiss, RequestMiss } from '../../core/waitMisses.ts';
import { EMAIL_WAIT_ARGS, invert, REQUEST_WAIT_ARGS, WAIT_FLAG_ARGS } from './coreArgs.ts';

const PROGRESS_EVERY_MS = 5_000;

/**
 * Hosted clients (claude.ai connectors) and several IDE clients end a call at 60 s and send no progress token,
 * so nothing resets their clock: a wait without one answers by this many seconds, with the call that goes on.
 */
export const WAIT_CAP_WITHOUT_PROGRESS_SECONDS = 50;

/** How one wait call runs: its starting point, whether the mark rule applies, and its (maybe capped) length. */
export interface WaitPlan {
  from: StartingPoint | undefined;
  /** The stream's mark applies: no since/after and no include_older. */
  onlyNewer: boolean;
  /** Seconds this call waits: the asked timeout, or the cap when the client cannot outlast 60 s. */
  seconds: number;
  /** Seconds the agent asked for beyond this call (0 unless capped). */
  remaining: number;
  /** When the call began: `after` of the call that continues it. */
  began: Date;
}

/** Seconds one call may wait: the asked timeout, or the cap when the client cannot outlast 60 s. */
export function callSeconds(ctx: ToolContext, timeoutSeconds: number): number {
  return !ctx.outlivesClientTimeout && timeoutSeconds > WAIT_CAP_WITHOUT_PROGRESS_SECONDS
    ? WAIT_CAP_WITHOUT_PROGRESS_SECONDS
    : timeoutSeconds;
}

export async function planWait(
  ctx: ToolContext,
  args: {
    since?: Date | undefined;
    after?: string | undefined;
    include_older: boolean;
    unread_only: boolean;
    timeout_seconds: number;
  },
  receivedAtOf: (id: string) => Promise<Date>,
): Promise<WaitPlan> {
  const began = new Date();
  const from = await startingPoint(args.since, args.after, receivedAtOf);
  const seconds = callSeconds(ctx, args.timeout_seconds);
  return {
    from,
    // unread_only: false asks for items a wait already returned, so it lifts the rule too.
    onlyNewer: from === undefined && !args.include_older && args.unread_only,
    seconds,
    remaining: args.timeout_seconds - seconds,
    began,
  };
}

type ContinueValue = string | number | boolean | string[];

/** The arguments of the call that continues a capped wait: the same filters, from the instant it began. */
export function continuation(
  args: Record<string, unknown>,
  plan: WaitPlan,
): { arguments: Record<string, ContinueValue> } {
  const { since: _since, after: _after, include_older: _older, timeout_seconds: _t, ...rest } = args;
  const at = plan.from !== undefined && plan.from.at > plan.began ? plan.from.at : plan.began;
  const given = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as Record<
    string,
    ContinueValue
  >;
  return { arguments: { ...given, after: at.toISOString(), timeout_seconds: plan.remaining } };
}

/** A wait's end that is no miss: the sandbox expired or was deleted, before or during the wait. */
export function sandboxEnded(
  err: unknown,
): { status: 'sandbox_expired' | 'sandbox_deleted'; hint: string } | undefined {
  const status = isSandboxExpired(err)
    ? 'sandbox_expired'
    : isSandboxDeleted(err)
      ? 'sandbox_deleted'
      : undefined;
  if (status === undefined) return undefined;
  return {
    status,
    hint:
      `${(err as Error).message.replace(/ Create a new sandbox\.$/, '')} ` +
      'Create a new sandbox with create_sandbox (a longer ttl_minutes, or null to keep it), point the app at it, then wait again.',
  };
}

export async function withProgress<T>(
  ctx: ToolContext,
  timeoutSeconds: number,
  what: string,
  work: () => Promise<T>,
) {
  const started = Date.now();
  const timer = setInterval(() => {
    const elapsed = Math.round((Date.now() - started) / 1000);
    void ctx
      .progress(elapsed, timeoutSeconds, `Waiting for ${what}: ${elapsed} s of ${timeoutSeconds} s`)
      .catch(() => {});
  }, PROGRESS_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/**
 * The later of `since` and `after` (an item id: strictly after it; an instant: from it on). An instant is
 * read with core's `instant`, so `after` takes exactly the instants `since` takes.
 */
export async function startingPoint(
  since: Date | undefined,
  after: string | undefined,
  receivedAtOf: (id: string) => Promise<Date>,
): Promise<StartingPoint | undefined> {
  const points: Date[] = [];
  if (since !== undefined) points.push(since);
  if (after !== undefined && after !== '') {
    if (UUID_PATTERN.test(after)) {
      try {
        points.push(new Date((await receivedAtOf(after)).getTime() + 1));
      } catch (err) {
        if (err instanceof AppError && err.code === 'not_found') {
          throw new ToolError(
            'NOT_FOUND',
            `No item ${after} in this sandbox`,
            'Pass an id from this sandbox, or an ISO instant, as after',
          );
        }
        throw err;
      }
    } else {
      const parsed = instant.safeParse(after);
      if (!parsed.success) {
        const range = parsed.error.issues.find((i) => i.code === 'custom')?.message;
        throw new ToolError(
          'INVALID_INPUT',
          range === undefined
            ? `after "${after}" is neither an item id nor an ISO instant`
            : `after "${after}" is an instant that ${range}`,
          'Pass the id of an email/request you already handled, or an ISO 8601 instant such as 2026-01-31T12:00:00Z',
        );
      }
      points.push(parsed.data);
    }
  }
  const [first, second] = points;
  if (first === undefined) return undefined;
  // The argument that set the instant is the one a report names when an item came before it.
  if (second !== undefined)
    return second > first ? { at: second, arg: 'after' } : { at: first, arg: 'since' };
  return { at: first, arg: since !== undefined ? 'since' : 'after' };
}

export interface StartingPoint {
  at: Date;
  arg: 'since' | 'after';
}

/** Core filter name -> the wait tools' argument (coreArgs.ts). */
const CORE_TO_ARG = invert(EMAIL_WAIT_ARGS, REQUEST_WAIT_ARGS, WAIT_FLAG_ARGS);

/** Core filter names as the agent passed them; `since` is whichever of since/after set the instant. */
export function filterArgs(failed: readonly string[], from: StartingPoint | undefined): string[] {
  return failed.map((f) => (f === 'since' ? (from?.arg ?? 'since') : (CORE_TO_ARG[f] ?? f)));
}

const failedFilters = z.array(z.string()).describe('The arguments that turned it away.');

export const emailMissSchema = z.object({
  id: z.string(),
  subject: z.string().nullable(),
  from: z.string(),
  received_at: z.string(),
  failed_filters: failedFilters,
});

export const requestMissSchema = z.object({
  id: z.string(),
  method: z.string(),
  path: z.string(),
  received_at: z.string(),
  failed_filters: failedFilters,
});

export function emailMissView(m: MessageMiss, from: StartingPoint | undefined) {
  return {
    id: m.id,
    subject: m.subject,
    from: m.from,
    received_at: m.receivedAt.toISOString(),
    failed_filters: filterArgs(m.failedFilters, from),
  };
}

export function requestMissView(m: RequestMiss, from: StartingPoint | undefined) {
  return {
    id: m.id,
    method: m.method,
    path: m.path,
    received_at: m.receivedAt.toISOString(),
    failed_filters: filterArgs(m.failedFilters, from),
  };
}

/** The longest word of a subject (the later one on a tie), a substring likely to stay in a resend. */
function keyWord(subject: string | null): string | undefined {
  let best: string | undefined;
  for (const word of (subject ?? '').match(/[\p{L}\p{N}]{3,}/gu) ?? []) {
    if (best === undefined || word.length >= best.length) best = word;
  }
  return best;
}

/** The bare address of a From header (`Acme <no-reply@acme.test>` -> `no-reply@acme.test`). */
function address(from: string): string {
  return (/<([^<>]+)>/.exec(from)?.[1] ?? from).trim();
}

const q = (v: unknown) => JSON.stringify(v);

/** How to change one failed argument so that `item` would match. */
function fix(
  arg: string,
  args: Record<string, unknown>,
  item: { subject?: string | null; from?: string; method?: string; path?: string },
): string {
  switch (arg) {
    case 'subject_contains': {
      const word = keyWord(item.subject ?? null);
      return word === undefined
        ? 'without subject_contains'
        : `with subject_contains ${q(word)} or without it`;
    }
    case 'from_contains':
      return `with from_contains ${q(address(item.from ?? ''))} or without it`;
    case 'to':
      return 'without to (it was sent to another address of the sandbox; list_emails shows captured_for)';
    case 'unread_only':
      return 'with unread_only: false (an earlier wait already returned it)';
    case 'include_older':
      return 'with include_older: true only if you want it (an earlier wait returned a newer one; this one is likely stale)';
    case 'method':
      return `with method ${q(item.method)} or without it`;
    case 'path_contains':
      return `with path_contains ${q(item.path)} or without it`;
    default:
      // since/after: the item is older than the point the agent asked for, most likely one already handled.
      return `without ${arg} only if you want items from before it (this one is likely one you already handled)`;
  }
}

/** "An email "Your code" from x did not match subject_contains "verify": call wait_for_email again with ...". */
export function missHint(
  tool: 'wait_for_email' | 'wait_for_request',
  args: Record<string, unknown>,
  miss: { failed_filters: string[]; subject?: string | null; from?: string; method?: string; path?: string },
): string {
  const what =
    tool === 'wait_for_email'
      ? `An email ${q(miss.subject ?? '(no subject)')} from ${miss.from}`
      : `A request ${miss.method} ${miss.path}`;
  const failed = miss.failed_filters
    .map((arg) => (arg === 'unread_only' || arg === 'include_older' ? arg : `${arg} ${q(args[arg])}`))
    .join(' and ');
  const fixes = miss.failed_filters.map((arg) => fix(arg, args, miss)).join(', and ');
  return `${what} did not match ${failed}: call ${tool} again ${fixes}.`;
}

/** The statuses of both wait tools. */
export const waitStatus = z
  .enum(['received', 'timeout', 'still_waiting', 'sandbox_expired', 'sandbox_deleted'])
  .describe('still_waiting: call again with continue_with.arguments.');

export const continueWith = z
  .object({
    arguments: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])),
  })
  .optional()
  .describe('With still_waiting: the arguments of the call that goes on waiting.');

export const includeOlder = z.boolean().default(false).describe('Also items older than one a wait returned.');

/** What to do with a received email: its code, else its primary link, else read it. */
export function emailHint(email: {
  id: string;
  otp: { code: string | null };
  primary_link?: { url: string; kind: string } | null;
}): string {
  const next = `To wait for the next email, pass after: "${email.id}".`;
  if (email.otp.code !== null) return `Use the code ${email.otp.code}. ${next}`;
  const link = email.primary_link;
  if (link !== undefined && link !== null)
    return `Open the ${link.kind} link primary_link.url (${link.url}). ${next}`;
  return `No code or action link: read the text, or call extract_from_body with email_id "${email.id}". ${next}`;
}
