// Lets new waits in a slice at a time. A wait's first reads (its sandbox, then what is already captured) are the
// work of a burst: 2,000 waits opened at once would queue 2,000 sets of reads, and on the embedded store each
// read starts from the previous one's promise, so the queue drains in one event-loop turn that holds up every
// other request. A few waits read at once; the next ones are let in on a later turn (setImmediate), after the
// process has looked at its sockets. A wait that is only listening holds no slot.

/** New waits reading at once: enough to keep a PostgreSQL pool busy, few enough to keep a turn short. */
export const ADMISSION_SLOTS = 8;

export interface Admission {
  /**
   * Resolves once the caller may read; call the function it gives when the reads are done (more than once is
   * harmless). Resolves with undefined instead when `signal` aborts, or `endAll` runs, before its turn.
   */
  enter(signal?: AbortSignal): Promise<(() => void) | undefined>;
  /** Shutdown: every queued caller is turned away. */
  endAll(): void;
  /** Callers queued (tests, metrics). */
  queued(): number;
}

export function createAdmission(slots = ADMISSION_SLOTS): Admission {
  let inside = 0;
  const queue: Array<(admitted: boolean) => void> = [];
  let scheduled = false;

  const letIn = (): void => {
    scheduled = false;
    while (inside < slots && queue.length > 0) {
      inside++;
      (queue.shift() as (admitted: boolean) => void)(true);
    }
  };

  const ticket = (): (() => void) => {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      inside--;
      if (queue.length > 0 && !scheduled) {
        scheduled = true;
        setImmediate(letIn);
      }
    };
  };

  return {
    async enter(signal) {
      if (signal?.aborted) return undefined;
      if (inside < slots && queue.length === 0) {
        inside++;
        return ticket();
      }
      const admitted = await new Promise<boolean>((resolve) => {
        const onAbort = () => {
          const at = queue.indexOf(settle);
          if (at >= 0) queue.splice(at, 1);
          resolve(false);
        };
        const settle = (yes: boolean) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(yes);
        };
        queue.push(settle);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
      return admitted ? ticket() : undefined;
    },
    endAll() {
      for (const settle of queue.splice(0)) settle(false);
    },
    queued: () => queue.length,
  };
}
