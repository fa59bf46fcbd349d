// Injectable time source, so TTL, expiry and sweeps can be tested without sleeping.

export interface Clock {
  now(): Date;
  /**
   * Clocks that can jump (tests) call `listener` after each jump, so a moment armed with `atMoment` is checked
   * again at once; the system clock never jumps and has no such hook.
   */
  onJump?(listener: () => void): () => void;
}

export const systemClock: Clock = { now: () => new Date() };

/** setTimeout's longest delay; a later moment is reached in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `fn` once, as soon as `clock` reads `at` or later (never synchronously), whether real time passes or the
 * clock jumps. Returns a cancel. The timer does not keep the process alive.
 */
export function atMoment(clock: Clock, at: Date, fn: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  const cancel = () => {
    done = true;
    clearTimeout(timer);
    offJump?.();
  };
  const arm = () => {
    if (done) return;
    clearTimeout(timer);
    const left = at.getTime() - clock.now().getTime();
    timer = setTimeout(left <= 0 ? fire : arm, Math.min(Math.max(left, 0), MAX_TIMER_MS));
    timer.unref();
  };
  const fire = () => {
    if (done) return;
    cancel();
    fn();
  };
  const offJump = clock.onJump?.(arm);
  arm();
  return cancel;
}
