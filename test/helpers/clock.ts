// A clock tests can move forward, for expiry and TTL without sleeping.
import type { Clock } from '../../src/core/clock.ts';

export interface TestClock extends Clock {
  advance(ms: number): void;
}

export function testClock(start = new Date()): TestClock {
  let offset = 0;
  const jumps = new Set<() => void>();
  return {
    now: () => new Date(start.getTime() + offset + (Date.now() - start.getTime())),
    advance(ms) {
      offset += ms;
      // Moments armed with atMoment look at the new time (they fire on their own turn, never inside advance).
      for (const listener of [...jumps]) listener();
    },
    onJump(listener) {
      jumps.add(listener);
      return () => void jumps.delete(listener);
    },
  };
}
