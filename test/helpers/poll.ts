// The one place tests poll for something to happen: a generous deadline that only ends a test whose event
// never came, never a judgement on how fast it came (test/meta/noWallClock.test.ts allows this one helper).
import { setTimeout as sleep } from 'node:timers/promises';

/** Below this a poll bound starts failing on a busy 2-core machine; the event itself is what a test asserts. */
export const MIN_POLL_MS = 10_000;

/**
 * Calls `check` every `everyMs` until it returns a value other than undefined/false, and returns that value;
 * fails naming `what` (and the last error `check` threw, if any) once `timeoutMs` has passed without it.
 */
export async function eventually<T>(
  what: string | (() => string),
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
  everyMs = 50,
): Promise<T> {
  if (timeoutMs < MIN_POLL_MS) {
    throw new Error(
      `eventually(): a ${timeoutMs} ms bound is too tight for a busy machine; use >= ${MIN_POLL_MS}`,
    );
  }
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const label = typeof what === 'string' ? what : what();
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${label}${last ? `: ${String(last)}` : ''}`,
      );
    }
    await sleep(everyMs);
  }
}
