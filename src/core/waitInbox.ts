// What an open wait listens to, as one queue: arrivals and deletions of its sandbox on the bus, the sandbox's
// expiry, and "look again" (a resync after lost announcements, a periodic recheck across processes, a retry
// while the database is away). close() drops every subscription and timer at once.
import type { EventBus, SandboxEvent } from './events.ts';
import type { ExpiryWatch } from './sandboxExpiry.ts';

export type InboxEntry = SandboxEvent | 'recheck' | 'expired';

export interface InboxOptions {
  bus: EventBus;
  expiry: ExpiryWatch;
  sandboxId: string;
  expiresAt: Date | null;
  /** The stream it watches; `both` for an expectation over mail and requests together. */
  kind: 'message' | 'request' | 'both';
  /** Look again about this often (jittered), for announcements lost between processes; undefined: never. */
  recheckMs: number | undefined;
  /** While the database is unreachable, look again after this long. */
  retryMs: number;
}

export interface WaitInbox {
  /** The next entry, or undefined once `signal` aborted (at once if it already had). */
  next(signal: AbortSignal): Promise<InboxEntry | undefined>;
  /** When an arrival entered the queue (performance.now()), for the wake-up metric; undefined for the rest. */
  receivedAt(entry: InboxEntry): number | undefined;
  /** Asks for a look again after `retryMs` (once, however often it is called meanwhile). */
  retryLater(): void;
  close(): void;
}

export function openWaitInbox(o: InboxOptions): WaitInbox {
  const queue: InboxEntry[] = [];
  const arrivals = new WeakMap<SandboxEvent, number>();
  let wake: (() => void) | undefined;
  const push = (entry: InboxEntry) => {
    if (typeof entry === 'object') arrivals.set(entry, performance.now());
    queue.push(entry);
    wake?.();
  };
  const unsubscribe = o.bus.subscribe(o.sandboxId, (event) => {
    const wanted =
      o.kind === 'both' ? event.kind === 'message' || event.kind === 'request' : event.kind === o.kind;
    if (wanted || event.kind === 'sandbox_deleted') push(event);
  });
  // Announcements of other processes may have been lost while the database was away: look again.
  const unsubscribeResync = o.bus.subscribeResync(() => push('recheck'));
  // Every process knows expiresAt: each ends its own waiters at that moment, before any sweep.
  const unwatch = o.expiry.watch(o.sandboxId, o.expiresAt, () => push('expired'));
  let recheck: NodeJS.Timeout | undefined;
  const scheduleRecheck = () => {
    if (o.recheckMs === undefined) return;
    recheck = setTimeout(
      () => {
        push('recheck');
        scheduleRecheck();
      },
      o.recheckMs * (0.8 + Math.random() * 0.4),
    );
  };
  scheduleRecheck();
  let retry: NodeJS.Timeout | undefined;

  return {
    async next(signal) {
      while (queue.length === 0) {
        if (signal.aborted) return undefined;
        await new Promise<void>((resolve) => {
          const done = () => {
            wake = undefined;
            signal.removeEventListener('abort', done);
            resolve();
          };
          wake = done;
          signal.addEventListener('abort', done, { once: true });
        });
      }
      return signal.aborted ? undefined : queue.shift();
    },
    receivedAt: (entry) => (typeof entry === 'object' ? arrivals.get(entry) : undefined),
    retryLater() {
      if (retry !== undefined) return;
      retry = setTimeout(() => {
        retry = undefined;
        push('recheck');
      }, o.retryMs);
    },
    close() {
      clearTimeout(recheck);
      clearTimeout(retry);
      unsubscribe();
      unsubscribeResync();
      unwatch();
      wake?.();
    },
  };
}
