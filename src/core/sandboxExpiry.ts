// Expiry as a moment, not a sweep: whatever is open on an ephemeral sandbox (waits, event streams) hears of its
// expiry when the clock reaches expiresAt, in every process (each knows expiresAt from the store), with one
// timer per sandbox however many watch it. The sweep that deletes the row later changes nothing for them.
import { atMoment, type Clock } from './clock.ts';
import { AppError, isAppError } from './errors.ts';

const EXPIRED_PREFIX = 'The sandbox expired at ';

/** The 404 of a sandbox past its expiry: what a new call answers, and what open waits end with. */
export function sandboxExpired(expiresAt: Date): AppError {
  return new AppError(
    'not_found',
    `${EXPIRED_PREFIX}${expiresAt.toISOString()}; it and everything it captured are gone. Create a new sandbox.`,
  );
}

/** Whether `err` says a sandbox expired (also once it came back through the REST API as a problem detail). */
export function isSandboxExpired(err: unknown): boolean {
  return isAppError(err) && err.code === 'not_found' && err.message.startsWith(EXPIRED_PREFIX);
}

const DELETED_PREFIX = 'The sandbox was deleted at ';

/** The 404 of a sandbox deleted within the last day (its tombstone is kept that long). */
export function sandboxDeleted(deletedAt: Date): AppError {
  return new AppError(
    'not_found',
    `${DELETED_PREFIX}${deletedAt.toISOString()}; it and everything it captured are gone. Create a new sandbox.`,
  );
}

export function isSandboxDeleted(err: unknown): boolean {
  return isAppError(err) && err.code === 'not_found' && err.message.startsWith(DELETED_PREFIX);
}

interface Watched {
  listeners: Set<() => void>;
  cancel: () => void;
}

export function createExpiryWatch(clock: Clock) {
  const watched = new Map<string, Watched>();
  return {
    /**
     * Calls `onExpired` once the clock reaches `expiresAt` (never for a permanent sandbox, null). Returns a
     * function that stops watching; the sandbox's timer goes when its last watcher does.
     */
    watch(sandboxId: string, expiresAt: Date | null, onExpired: () => void): () => void {
      if (expiresAt === null) return () => {};
      let entry = watched.get(sandboxId);
      if (entry === undefined) {
        const listeners = new Set<() => void>();
        const cancel = atMoment(clock, expiresAt, () => {
          watched.delete(sandboxId);
          for (const listener of [...listeners]) listener();
        });
        entry = { listeners, cancel };
        watched.set(sandboxId, entry);
      }
      const own = entry;
      // Its own function, so one caller can watch twice and stop each watch alone.
      const listener = () => onExpired();
      own.listeners.add(listener);
      return () => {
        own.listeners.delete(listener);
        if (own.listeners.size === 0 && watched.get(sandboxId) === own) {
          own.cancel();
          watched.delete(sandboxId);
        }
      };
    },

    /** Sandboxes with a timer armed (tests, metrics). */
    timers: (): number => watched.size,
  };
}

export type ExpiryWatch = ReturnType<typeof createExpiryWatch>;
