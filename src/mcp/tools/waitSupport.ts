// Shared by the wait tools: progress every 5 s while blocked, and `since`/`after` turned into one instant.
import { AppError } from '../../core/errors.ts';
import type { ToolContext } from '../toolkit.ts';
import { ToolError } from '../toolkit.ts';

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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The later of `since` and `after` (an item id: strictly after it; an instant: from it on). */
export async function startingPoint(
  since: string | undefined,
  after: string | undefined,
  receivedAtOf: (id: string) => Promise<Date>,
): Promise<Date | undefined> {
  const points: Date[] = [];
  if (since !== undefined) points.push(new Date(since));
  if (after !== undefined && after !== '') {
    if (UUID.test(after)) {
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
    } else if (!Number.isNaN(Date.parse(after))) points.push(new Date(after));
    else
      throw new ToolError(
        'INVALID_ARGUMENT',
        `after "${after}" is neither an item id nor an ISO instant`,
        'Pass the id of an email/request you already handled, or an ISO 8601 instant',
      );
  }
  if (points.length === 0) return undefined;
  return new Date(Math.max(...points.map((d) => d.getTime())));
}
