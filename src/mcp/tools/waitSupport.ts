// Shared by the wait tools: progress every 5 s while blocked, the sandbox's expiry as a refusal that says to
// create a new one, `since`/`after` turned into one instant, and core's report of what did not match in the
// tools' argument names, with the corrected call as the hint.
import { z } from 'zod';
import { AppError } from '../../core/errors.ts';
import { isSandboxExpired } from '../../core/sandboxExpiry.ts';
import { instant } from '../../core/schemas.ts';
import type { ToolContext } from '../toolkit.ts';
import { ToolError } from '../toolkit.ts';
import { UUID_PATTERN } from '../../core/random.ts';
import type { MessageMiss, RequestMiss } from '../../core/waitMisses.ts';

const PROGRESS_EVERY_MS = 5_000;

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
  } catch (err) {
    // An ephemeral sandbox that expired (before or during the wait) will never receive anything again.
    if (isSandboxExpired(err)) {
      throw new ToolError(
        'NOT_FOUND',
        (err as Error).message.replace(/ Create a new sandbox\.$/, ''),
        'Create a new sandbox with create_sandbox (a longer ttl_minutes, or null to keep it), point the app at it, then wait again',
      );
    }
    throw err;
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

const CORE_TO_ARG: Record<string, string> = {
  subjectContains: 'subject_contains',
  fromContains: 'from_contains',
  capturedFor: 'to',
  isRead: 'unread_only',
  method: 'method',
  pathContains: 'path_contains',
};

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
    .map((arg) => (arg === 'unread_only' ? 'unread_only' : `${arg} ${q(args[arg])}`))
    .join(' and ');
  const fixes = miss.failed_filters.map((arg) => fix(arg, args, miss)).join(', and ');
  return `${what} did not match ${failed}: call ${tool} again ${fixes}.`;
}
