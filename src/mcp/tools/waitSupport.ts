// Shared by the wait tools: progress every 5 s while blocked, and `since`/`after` turned into one instant.
import { AppError } from '../../core/errors.ts';
import { instant } from '../../core/schemas.ts';
import type { ToolContext } from '../toolkit.ts';
import { ToolError } from '../toolkit.ts';
import { UUID_PATTERN } from '../../core/random.ts';

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
): Promise<Date | undefined> {
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
          'INVALID_ARGUMENT',
          range === undefined
            ? `after "${after}" is neither an item id nor an ISO instant`
            : `after "${after}" is an instant that ${range}`,
          'Pass the id of an email/request you already handled, or an ISO 8601 instant such as 2026-01-31T12:00:00Z',
        );
      }
      points.push(parsed.data);
    }
  }
  if (points.length === 0) return undefined;
  return new Date(Math.max(...points.map((d) => d.getTime())));
}
