// Long-poll waits: return the newest already-captured match at once, else the first matching arrival,
// else time out. The waiter subscribes before it checks the store, so no arrival falls in between.
import type { Kysely } from 'kysely';
import type { Clock } from './clock.ts';
import { AppError, isAppError, notFound } from './errors.ts';
import type { ChangeEvent, EventBus } from './events.ts';
import { toMessageDetail, type MessageDetail } from './messages.ts';
import { toRequestDetail, type RequestDetail } from './requests.ts';
import { findMessage, listMessages, type MessageFilter } from './store/repos/messages.ts';
import { findNewestMatchingRequest, type RequestWaitFilter } from './store/repos/requests.ts';
import { ownedSandboxId } from './ownedSandbox.ts';
import { findSandbox } from './store/repos/sandboxes.ts';
import type { Database } from './store/schema.ts';

export const MAX_WAITS_PER_KEY = 50;
/** While the database is unreachable, an open wait looks again this often. */
const STORE_RETRY_MS = 1_000;

export type WaitResult<T> = { status: 'found'; item: T } | { status: 'timeout'; nonMatching: number };

export interface WaitOptions {
  timeoutSeconds: number;
  /** Aborted when the client goes away: the waiter is dropped at once. */
  signal?: AbortSignal | undefined;
  /** Counts against this key's concurrent waits. */
  keyId?: string | undefined;
}

export type MessageWaitFilter = Pick<
  MessageFilter,
  'subjectContains' | 'fromContains' | 'capturedFor' | 'isRead' | 'since'
>;

const contains = (text: string | null, part: string | undefined) =>
  part === undefined || (text ?? '').toLowerCase().includes(part.toLowerCase());

/** The SQL filters of a message wait, applied to one loaded arrival. */
export function messageMatches(m: MessageDetail, f: MessageWaitFilter): boolean {
  return (
    contains(m.subject, f.subjectContains) &&
    contains(m.from, f.fromContains) &&
    (f.capturedFor === undefined ||
      m.capturedFor.some((a) => a.toLowerCase() === f.capturedFor?.toLowerCase())) &&
    (f.isRead === undefined || m.isRead === f.isRead) &&
    (f.since === undefined || m.receivedAt.getTime() >= f.since.getTime())
  );
}

/** The SQL filters of a request wait (method exact, path substring), applied to one loaded arrival. */
export function requestMatches(r: RequestDetail, f: Omit<RequestWaitFilter, 'id'>): boolean {
  return (
    (f.method === undefined || r.method === f.method) &&
    (f.pathContains === undefined || r.path.includes(f.pathContains)) &&
    (f.since === undefined || r.receivedAt.getTime() >= f.since.getTime())
  );
}

/**
 * One store read per arrival, shared by every waiter it wakes: 10,000 waits on a sandbox are released by
 * one query, not 10,000. Entries live a few seconds, long enough for every waiter to look.
 */
function memo<T>(load: (sandboxId: string, id: string) => Promise<T | undefined>) {
  const entries = new Map<string, Promise<T | undefined>>();
  return (sandboxId: string, id: string): Promise<T | undefined> => {
    let hit = entries.get(id);
    if (hit === undefined) {
      hit = load(sandboxId, id);
      entries.set(id, hit);
      setTimeout(() => entries.delete(id), 10_000).unref();
    }
    return hit;
  };
}

export function createWaitService(
  db: Kysely<Database>,
  clock: Clock,
  bus: EventBus,
  options: { recheckMs: number | undefined },
) {
  let active = 0;
  const loadMessage = memo(async (sandboxId, id) => {
    const row = await findMessage(db, sandboxId, id);
    return row === undefined ? undefined : toMessageDetail(row);
  });
  const loadRequest = memo(async (sandboxId, id) => {
    const row = await findNewestMatchingRequest(db, sandboxId, { id });
    return row === undefined ? undefined : toRequestDetail(row);
  });
  const perKey = new Map<string, number>();
  const stops = new Set<() => void>();

  function acquire(keyId: string | undefined): () => void {
    if (keyId === undefined) return () => {};
    const n = perKey.get(keyId) ?? 0;
    if (n >= MAX_WAITS_PER_KEY) {
      throw new AppError(
        'rate_limited',
        `This key already has ${MAX_WAITS_PER_KEY} waits open; let one finish or use another key.`,
        { retryAfterSeconds: 1 },
      );
    }
    perKey.set(keyId, n + 1);
    return () => {
      const left = (perKey.get(keyId) ?? 1) - 1;
      if (left <= 0) perKey.delete(keyId);
      else perKey.set(keyId, left);
    };
  }

  async function wait<T>(
    workspaceId: string,
    sandboxId: string,
    kind: 'message' | 'request',
    find: (id: string | undefined) => Promise<T | undefined>,
    opts: WaitOptions,
  ): Promise<WaitResult<T>> {
    const ownedId = await ownedSandboxId(db, clock, workspaceId, sandboxId);
    const release = acquire(opts.keyId);
    active++;
    const queue: Array<ChangeEvent | 'recheck'> = [];
    let wake: (() => void) | undefined;
    const poke = () => {
      wake?.();
      wake = undefined;
    };
    const unsubscribe = bus.subscribe(ownedId, (event) => {
      if (event.kind === kind || event.kind === 'sandbox_deleted') {
        queue.push(event);
        poke();
      }
    });
    // Announcements of other processes may have been lost while the database was away: look again.
    const unsubscribeResync = bus.subscribeResync(() => {
      queue.push('recheck');
      poke();
    });
    let finished: 'timeout' | 'aborted' | undefined;
    const end = (why: 'timeout' | 'aborted') => {
      finished ??= why;
      poke();
    };
    const timer = setTimeout(() => end('timeout'), opts.timeoutSeconds * 1000);
    const onAbort = () => end('aborted');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const stop = () => end('timeout');
    stops.add(stop);
    // Across processes a notification can be lost while the listening connection reconnects.
    let recheck: NodeJS.Timeout | undefined;
    const scheduleRecheck = () => {
      if (options.recheckMs === undefined) return;
      const jitter = options.recheckMs * (0.8 + Math.random() * 0.4);
      recheck = setTimeout(() => {
        queue.push('recheck');
        poke();
        scheduleRecheck();
      }, jitter);
    };
    scheduleRecheck();
    let retry: NodeJS.Timeout | undefined;
    const retryLater = () => {
      if (retry !== undefined) return;
      retry = setTimeout(() => {
        retry = undefined;
        queue.push('recheck');
        poke();
      }, STORE_RETRY_MS);
    };
    let nonMatching = 0;
    try {
      if (opts.signal?.aborted) return { status: 'timeout', nonMatching };
      const existing = await find(undefined);
      if (existing !== undefined) return { status: 'found', item: existing };
      for (;;) {
        while (queue.length > 0 && finished === undefined) {
          const next = queue.shift() as ChangeEvent | 'recheck';
          if (next !== 'recheck' && next.kind === 'sandbox_deleted') throw notFound('The sandbox');
          let item: T | undefined;
          try {
            // A lost notification may also have been a deletion.
            if (
              next === 'recheck' &&
              (await findSandbox(db, workspaceId, sandboxId, clock.now())) === undefined
            ) {
              throw notFound('The sandbox');
            }
            item = await find(next === 'recheck' ? undefined : next.id);
          } catch (err) {
            if (!isAppError(err) || err.code !== 'unavailable') throw err;
            // The database went away mid-wait: the wait stays open and looks again once it may be back.
            retryLater();
            continue;
          }
          if (item !== undefined) return { status: 'found', item };
          if (next !== 'recheck') nonMatching++;
        }
        if (finished !== undefined) return { status: 'timeout', nonMatching };
        await new Promise<void>((resolve) => {
          wake = resolve;
          if (queue.length > 0 || finished !== undefined) poke();
        });
      }
    } finally {
      clearTimeout(timer);
      clearTimeout(recheck);
      clearTimeout(retry);
      opts.signal?.removeEventListener('abort', onAbort);
      stops.delete(stop);
      unsubscribe();
      unsubscribeResync();
      release();
      active--;
    }
  }

  return {
    forMessage(
      workspaceId: string,
      sandboxId: string,
      filter: MessageWaitFilter,
      opts: WaitOptions,
    ): Promise<WaitResult<MessageDetail>> {
      return wait(
        workspaceId,
        sandboxId,
        'message',
        async (id) => {
          if (id !== undefined) {
            const arrival = await loadMessage(sandboxId, id);
            return arrival !== undefined && messageMatches(arrival, filter) ? arrival : undefined;
          }
          const [row] = await listMessages(db, sandboxId, filter, 1, undefined);
          const detail = row === undefined ? undefined : await findMessage(db, sandboxId, row.id);
          return detail === undefined ? undefined : toMessageDetail(detail);
        },
        opts,
      );
    },

    forRequest(
      workspaceId: string,
      sandboxId: string,
      filter: Omit<RequestWaitFilter, 'id'>,
      opts: WaitOptions,
    ): Promise<WaitResult<RequestDetail>> {
      return wait(
        workspaceId,
        sandboxId,
        'request',
        async (id) => {
          if (id !== undefined) {
            const arrival = await loadRequest(sandboxId, id);
            return arrival !== undefined && requestMatches(arrival, filter) ? arrival : undefined;
          }
          const row = await findNewestMatchingRequest(db, sandboxId, filter);
          return row === undefined ? undefined : toRequestDetail(row);
        },
        opts,
      );
    },

    /** Waits open right now (for tests and metrics). */
    active: () => active,

    /** Shutdown: every open wait answers with its timeout reply now. */
    endAll(): void {
      for (const stop of [...stops]) stop();
    },
  };
}

export type WaitService = ReturnType<typeof createWaitService>;
