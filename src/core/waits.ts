// Long-poll waits: return the newest already-captured match at once, else the first matching arrival,
// else time out, or end with the sandbox's expiry the moment it comes. The waiter subscribes before it checks
// the store, so no arrival falls in between. A claiming wait marks what it returns read in the statement that
// checks it, and can report what it passed over. A burst of new waits is let in a slice at a time.
import { SpanStatusCode } from '@opentelemetry/api';
import type { Kysely } from 'kysely';
import type { Clock } from './clock.ts';
import { AppError, isAppError } from './errors.ts';
import type { EventBus } from './events.ts';
import { markMessageRead, toMessageDetail, type MessageDetail } from './messages.ts';
import { markRequestRead, toRequestDetail, type RequestDetail } from './requests.ts';
import { findMessage, listMessages, type MessageFilter } from './store/repos/messages.ts';
import { findNewestMatchingRequest, listRequests, type RequestWaitFilter } from './store/repos/requests.ts';
import {
  failedMessageFilters,
  failedRequestFilters,
  MAX_MISSES,
  messageMisses,
  requestMisses,
  type MessageFacts,
  type ItemMark,
  type MessageFilterName,
  type MessageMiss,
  type RequestFacts,
  type RequestFilterName,
  type RequestMiss,
} from './waitMisses.ts';
import { ownedSandbox } from './ownedSandbox.ts';
import { sandboxDeleted, sandboxExpired, type ExpiryWatch } from './sandboxExpiry.ts';
import { advanceWaitMark, findWaitMark, type WaitStream } from './store/repos/waitMarks.ts';
import { findSandbox } from './store/repos/sandboxes.ts';
import { linkToTraceparent, tracer } from './tracing.ts';
import { createAdmission } from './waitAdmission.ts';
import { openWaitInbox, type WaitInbox } from './waitInbox.ts';
import type { Database } from './store/schema.ts';

export const MAX_WAITS_PER_KEY = 50;
/** While the database is unreachable, an open wait looks again this often. */
const STORE_RETRY_MS = 1_000;

export type WaitResult<T, M = unknown> = ({ status: 'found'; item: T } | { status: 'timeout' }) & {
  /** Arrivals during the wait that did not match (every one, not only those in `misses`). */
  nonMatching: number;
  /** With `explain`: up to five items passed over and the filters that turned each away; else empty. */
  misses: M[];
};

export interface WaitOptions {
  timeoutSeconds: number;
  /** Aborted when the client goes away: the waiter is dropped at once. */
  signal?: AbortSignal | undefined;
  /** Counts against this key's concurrent waits. */
  keyId?: string | undefined;
  /**
   * Marks the returned item read atomically: with `isRead: false` in the filter, of two waits only one gets an
   * item, and the other keeps looking.
   */
  claim?: boolean | undefined;
  /** Reports what did not match (arrivals, then unread items already there). */
  explain?: boolean | undefined;
  /**
   * Only items newer than the newest one a claiming wait has handed out for this sandbox and stream (its mark,
   * migration 021): an app that resends rotates its code, so an older unread one is dead. A claiming wait moves
   * the mark whether or not it asked for this.
   */
  onlyNewer?: boolean | undefined;
}

/** What one look at the store found: the item, an item the filters turned away, or nothing. */
type Look<T, F, N> = { found: T } | { missed: F; failed: N[] } | undefined;

/** One wait: the sandbox and stream it watches, how it looks at the store, and the caller's options. */
interface WaitSpec<T, F, N, M> {
  workspaceId: string;
  sandboxId: string;
  kind: 'message' | 'request';
  /** Judges the arrival `id`, or (undefined) finds the newest match already stored. */
  find: (id: string | undefined) => Promise<Look<T, F, N>>;
  /** Unread items, for the report of what the wait did not take. */
  unread: () => Promise<F[]>;
  /** The misses reported from what was passed over and what stays unread (`returned` is the answer's id). */
  report: (arrivals: Array<{ item: F; failed: N[] }>, unread: F[], returned: string | undefined) => M[];
  opts: WaitOptions;
  /** Runs once the sandbox is known to be the caller's, before the first look. */
  onOwned: (sandboxId: string) => Promise<void>;
}

/** Unread items read for a report: enough beyond five that matching ones do not crowd the misses out. */
const UNREAD_FOR_MISSES = 20;

export type MessageWaitFilter = Pick<
  MessageFilter,
  'subjectContains' | 'fromContains' | 'capturedFor' | 'isRead' | 'since'
>;

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
  expiry: ExpiryWatch,
  options: {
    recheckMs: number | undefined;
    /** How each wait ended (metrics): found, timeout, gone (404) or error. */
    onEnded?: (stream: 'messages' | 'requests', outcome: 'found' | 'timeout' | 'gone' | 'error') => void;
    /** From an arrival reaching a wait to the wait answering with it, in seconds (metrics). */
    onWake?: (seconds: number) => void;
  },
) {
  let active = 0;
  const admission = createAdmission();
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

  /**
   * A wait, reported to `onEnded` however it ends, in a span that is a child of the caller's (a REST request, an
   * MCP tool call) and links to the trace the returned item arrived with.
   */
  async function wait<T extends { id: string; traceparent: string | null }, F, N, M>(
    spec: WaitSpec<T, F, N, M>,
  ): Promise<WaitResult<T, M>> {
    const stream = spec.kind === 'message' ? 'messages' : 'requests';
    return tracer.startActiveSpan(
      'wait',
      {
        attributes: { 'sandtrap.wait.kind': spec.kind, 'sandtrap.wait.timeout_s': spec.opts.timeoutSeconds },
      },
      async (span) => {
        try {
          const result = await waitFor(spec);
          options.onEnded?.(stream, result.status);
          span.setAttribute('sandtrap.wait.outcome', result.status);
          if (result.status === 'found') {
            span.setAttribute('sandtrap.wait.item_id', result.item.id);
            if (result.item.traceparent !== null) span.addLink(linkToTraceparent(result.item.traceparent));
          }
          return result;
        } catch (err) {
          const outcome = isAppError(err) && err.code === 'not_found' ? 'gone' : 'error';
          options.onEnded?.(stream, outcome);
          span.setAttribute('sandtrap.wait.outcome', outcome);
          if (outcome === 'error') {
            span.setStatus({ code: SpanStatusCode.ERROR });
            span.setAttribute('error.type', isAppError(err) ? err.code : 'internal');
          }
          throw err;
        } finally {
          span.end();
        }
      },
    );
  }

  /** Reads the store for the answer once the sandbox is known to be the caller's, then listens. */
  async function waitFor<T extends { id: string }, F, N, M>(
    spec: WaitSpec<T, F, N, M>,
  ): Promise<WaitResult<T, M>> {
    const { opts } = spec;
    const leave = await admission.enter(opts.signal);
    // Aborted, or shut down, while queued to come in: it never began.
    if (leave === undefined) return { status: 'timeout', nonMatching: 0, misses: [] };
    let owned: Awaited<ReturnType<typeof ownedSandbox>>;
    let release: () => void;
    try {
      owned = await ownedSandbox(db, clock, spec.workspaceId, spec.sandboxId);
      await spec.onOwned(owned.id);
      release = acquire(opts.keyId);
    } catch (err) {
      leave();
      throw err;
    }
    active++;
    // The wait ends on its timeout, on shutdown (endAll) or when the client goes away: one signal for the three.
    const stopped = new AbortController();
    const timer = setTimeout(() => stopped.abort(), opts.timeoutSeconds * 1000);
    const stop = () => stopped.abort();
    stops.add(stop);
    const ended = opts.signal === undefined ? stopped.signal : AbortSignal.any([stopped.signal, opts.signal]);
    const inbox = openWaitInbox({
      bus,
      expiry,
      sandboxId: owned.id,
      expiresAt: owned.expiresAt,
      kind: spec.kind,
      recheckMs: options.recheckMs,
      retryMs: STORE_RETRY_MS,
    });
    try {
      if (ended.aborted) return { status: 'timeout', nonMatching: 0, misses: [] };
      // The first look is what a burst of new waits queues for; from here on the wait only listens.
      const existing = await spec.find(undefined).finally(leave);
      if (existing !== undefined && 'found' in existing) return await answer(spec, existing.found, [], 0);
      return await listen(spec, owned, inbox, ended);
    } finally {
      clearTimeout(timer);
      stops.delete(stop);
      inbox.close();
      leave();
      release();
      active--;
    }
  }

  /** The wait's reply: with `explain`, what it passed over and the unread items it did not take. */
  async function answer<T extends { id: string }, F, N, M>(
    spec: WaitSpec<T, F, N, M>,
    item: T | undefined,
    passedOver: Array<{ item: F; failed: N[] }>,
    nonMatching: number,
  ): Promise<WaitResult<T, M>> {
    let misses: M[] = [];
    if (spec.opts.explain === true) {
      let already: F[] = [];
      try {
        already = await spec.unread();
      } catch (err) {
        // The database went away: the arrivals seen are still worth reporting.
        if (!isAppError(err) || err.code !== 'unavailable') throw err;
      }
      misses = spec.report(passedOver, already, item?.id);
    }
    return item === undefined
      ? { status: 'timeout', nonMatching, misses }
      : { status: 'found', item, nonMatching, misses };
  }

  /** Judges each arrival (or looks again) until one matches, the sandbox goes away, or `ended` aborts. */
  async function listen<T extends { id: string }, F, N, M>(
    spec: WaitSpec<T, F, N, M>,
    owned: { id: string; expiresAt: Date | null },
    inbox: WaitInbox,
    ended: AbortSignal,
  ): Promise<WaitResult<T, M>> {
    /** The 404 for a sandbox that went away: it expired, or it was deleted (now, as far as this wait knows). */
    const gone = () =>
      owned.expiresAt !== null && clock.now() >= owned.expiresAt
        ? sandboxExpired(owned.expiresAt)
        : sandboxDeleted(clock.now());
    let nonMatching = 0;
    // Only the newest few are kept: a report shows at most five.
    const passedOver: Array<{ item: F; failed: N[] }> = [];
    for (let next = await inbox.next(ended); next !== undefined; next = await inbox.next(ended)) {
      if (next === 'expired') throw sandboxExpired(owned.expiresAt as Date);
      if (next !== 'recheck' && next.kind === 'sandbox_deleted') throw gone();
      let look: Look<T, F, N>;
      try {
        // A lost notification may also have been a deletion.
        if (
          next === 'recheck' &&
          (await findSandbox(db, spec.workspaceId, spec.sandboxId, clock.now())) === undefined
        )
          throw gone();
        look = await spec.find(next === 'recheck' ? undefined : next.id);
      } catch (err) {
        if (!isAppError(err) || err.code !== 'unavailable') throw err;
        // The database went away mid-wait: the wait stays open and looks again once it may be back.
        inbox.retryLater();
        continue;
      }
      if (look === undefined) continue;
      if ('found' in look) {
        const arrivedAt = inbox.receivedAt(next);
        if (arrivedAt !== undefined) options.onWake?.((performance.now() - arrivedAt) / 1000);
        return answer(spec, look.found, passedOver, nonMatching);
      }
      nonMatching++;
      passedOver.push({ item: look.missed, failed: look.failed });
      if (passedOver.length > MAX_MISSES) passedOver.shift();
    }
    return answer(spec, undefined, passedOver, nonMatching);
  }

  /**
   * Hands out `id` for a claiming wait: only while still unread when the wait asks for unread items, so a
   * lost race reads as "already read" (the flag another wait set).
   */
  const claimed = async (
    mark: typeof markMessageRead,
    sandboxId: string,
    id: string,
    isRead: boolean | undefined,
  ): Promise<'won' | 'lost' | 'gone'> => {
    const onlyIfUnread = isRead === false ? false : undefined;
    if (await mark(db, bus, sandboxId, id, true, onlyIfUnread)) return 'won';
    return onlyIfUnread === undefined ? 'gone' : 'lost';
  };

  /**
   * Runs a wait with the stream's mark: read once the sandbox is known to be the caller's (`narrow` adds it to
   * the filter) when the wait asks for only newer items, and moved to the item a claiming wait returns.
   */
  async function marked<T extends { id: string; receivedAt: Date }, M>(
    stream: WaitStream,
    opts: WaitOptions,
    narrow: (mark: ItemMark) => void,
    run: (onOwned: (sandboxId: string) => Promise<void>) => Promise<WaitResult<T, M>>,
  ): Promise<WaitResult<T, M>> {
    let owned: string | undefined;
    const result = await run(async (sandboxId) => {
      owned = sandboxId;
      if (opts.onlyNewer !== true) return;
      const mark = await findWaitMark(db, sandboxId, stream);
      if (mark !== undefined) narrow(mark);
    });
    if (result.status === 'found' && opts.claim === true && owned !== undefined) {
      await advanceWaitMark(db, owned, stream, { at: result.item.receivedAt, id: result.item.id });
    }
    return result;
  }

  return {
    /** Counts one more wait of another kind (a callback wait) against the key's cap; returns its release. */
    acquireSlot: acquire,

    forMessage(
      workspaceId: string,
      sandboxId: string,
      given: MessageWaitFilter,
      opts: WaitOptions,
    ): Promise<WaitResult<MessageDetail, MessageMiss>> {
      const claim = opts.claim === true;
      let filter: MessageWaitFilter & { newerThan?: ItemMark } = given;
      return marked(
        'message',
        opts,
        (mark) => (filter = { ...filter, newerThan: mark }),
        (onOwned) =>
          wait<MessageDetail, MessageFacts, MessageFilterName, MessageMiss>({
            workspaceId,
            sandboxId,
            kind: 'message',
            find: async (id) => {
              if (id !== undefined) {
                const arrival = await loadMessage(sandboxId, id);
                if (arrival === undefined) return undefined;
                const failed = failedMessageFilters(arrival, filter);
                if (failed.length > 0) return { missed: arrival, failed };
                if (!claim) return { found: arrival };
                const outcome = await claimed(markMessageRead, sandboxId, id, filter.isRead);
                if (outcome === 'won') return { found: { ...arrival, isRead: true } };
                return outcome === 'lost'
                  ? { missed: { ...arrival, isRead: true }, failed: ['isRead'] }
                  : undefined;
              }
              // A claim lost to another wait leaves that message read, so the next look skips it.
              for (;;) {
                const [row] = await listMessages(db, sandboxId, filter, 1, undefined);
                if (row === undefined) return undefined;
                if (claim && (await claimed(markMessageRead, sandboxId, row.id, filter.isRead)) !== 'won')
                  continue;
                const detail = await findMessage(db, sandboxId, row.id);
                if (detail !== undefined) return { found: toMessageDetail(detail) };
              }
            },
            unread: async () =>
              (await listMessages(db, sandboxId, { isRead: false }, UNREAD_FOR_MISSES, undefined)).map(
                (r) => ({
                  id: r.id,
                  subject: r.subject,
                  from: r.from_header,
                  capturedFor: r.captured_for,
                  isRead: r.is_read,
                  receivedAt: r.received_at,
                }),
              ),
            report: (arrivals, unread, returned) => messageMisses(filter, arrivals, unread, returned),
            opts,
            onOwned,
          }),
      );
    },

    forRequest(
      workspaceId: string,
      sandboxId: string,
      given: Omit<RequestWaitFilter, 'id'>,
      opts: WaitOptions,
    ): Promise<WaitResult<RequestDetail, RequestMiss>> {
      const claim = opts.claim === true;
      let filter: Omit<RequestWaitFilter, 'id'> = given;
      return marked(
        'request',
        opts,
        (mark) => (filter = { ...filter, newerThan: mark }),
        (onOwned) =>
          wait<RequestDetail, RequestFacts, RequestFilterName, RequestMiss>({
            workspaceId,
            sandboxId,
            kind: 'request',
            find: async (id) => {
              if (id !== undefined) {
                const arrival = await loadRequest(sandboxId, id);
                if (arrival === undefined) return undefined;
                const failed = failedRequestFilters(arrival, filter);
                if (failed.length > 0) return { missed: arrival, failed };
                if (!claim) return { found: arrival };
                const outcome = await claimed(markRequestRead, sandboxId, id, filter.isRead);
                if (outcome === 'won') return { found: { ...arrival, isRead: true } };
                return outcome === 'lost'
                  ? { missed: { ...arrival, isRead: true }, failed: ['isRead'] }
                  : undefined;
              }
              for (;;) {
                const row = await findNewestMatchingRequest(db, sandboxId, filter);
                if (row === undefined) return undefined;
                if (claim && (await claimed(markRequestRead, sandboxId, row.id, filter.isRead)) !== 'won')
                  continue;
                return { found: await toRequestDetail(claim ? { ...row, is_read: true } : row) };
              }
            },
            unread: async () =>
              (await listRequests(db, sandboxId, { isRead: false }, UNREAD_FOR_MISSES, undefined)).map(
                (r) => ({
                  id: r.id,
                  method: r.method,
                  path: r.path,
                  isRead: r.is_read,
                  receivedAt: r.received_at,
                }),
              ),
            report: (arrivals, unread, returned) => requestMisses(filter, arrivals, unread, returned),
            opts,
            onOwned,
          }),
      );
    },

    /**
     * Holds a long poll other than a wait (an expectation) under the waits' limits: admitted like a new wait
     * for its first reads, counted against the key's cap of open waits, and ended by `endAll` at shutdown.
     * Undefined when the client went away, or shutdown began, before it was let in.
     */
    async hold(
      keyId: string | undefined,
      signal: AbortSignal | undefined,
    ): Promise<LongPollHold | undefined> {
      const leave = await admission.enter(signal);
      if (leave === undefined) return undefined;
      let release: () => void;
      try {
        release = acquire(keyId);
      } catch (err) {
        leave();
        throw err;
      }
      active++;
      const stopped = new AbortController();
      const stop = () => stopped.abort();
      stops.add(stop);
      let done = false;
      return {
        firstReadsDone: leave,
        shutdown: stopped.signal,
        release() {
          if (done) return;
          done = true;
          leave();
          release();
          stops.delete(stop);
          active--;
        },
      };
    },

    /** Waits open right now (for tests and metrics). */
    active: () => active,

    /** Shutdown: every open wait answers with its timeout reply now. */
    endAll(): void {
      admission.endAll();
      for (const stop of [...stops]) stop();
    },
  };
}

export type WaitService = ReturnType<typeof createWaitService>;

/** A long poll let in under the waits' limits (WaitService.hold). */
export interface LongPollHold {
  /** Call once its first reads are done: the next new wait or long poll may read. */
  firstReadsDone(): void;
  /** Aborted at shutdown: the long poll answers now. */
  shutdown: AbortSignal;
  /** Frees its place (more than once is harmless). */
  release(): void;
}
