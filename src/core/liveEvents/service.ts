// Live event streams of a workspace or one sandbox: access and per-key limits, resume points, routing of the
// tail's events to the streams in their scope, keep-alives, sandboxes expiring, streams of revoked keys and of
// dashboard sessions signed out or expired, shutdown.
import type { Kysely } from 'kysely';
import { atMoment, type Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { EventBus } from '../events.ts';
import { ownedSandbox } from '../ownedSandbox.ts';
import type { ExpiryWatch } from '../sandboxExpiry.ts';
import { eventIdKey, pruneChangeEvents, readStreamHead, usableKeyIds } from '../store/repos/liveEvents.ts';
import { liveSessionIds } from '../store/repos/sessions.ts';
import type { Database } from '../store/schema.ts';
import { parseId } from '../validation.ts';
import { eventIds, type EventIds } from './eventIds.ts';
import { comparePositions, type Position } from './position.ts';
import { LiveStream, type LiveSink, type ResumeFrom } from './stream.ts';
import { EventTail } from './tail.ts';
import type { LiveEvent } from './types.ts';
import { WorkspaceExpiries } from './workspaceExpiries.ts';

export const MAX_STREAMS_PER_KEY = 20;
export const KEEP_ALIVE_MS = 15_000;
/**
 * Streams of a key revoked (or expired, or deleted) end within this plus one query; so do a session's, should
 * the announcement of its sign-out not reach this process.
 */
const KEY_CHECK_MS = 30_000;
/** Journaled changes are kept this long: a client away longer resumes with `reset`. */
export const JOURNAL_KEEP_MS = 24 * 3_600_000;

export interface OpenStreamInput {
  workspaceId: string;
  /** Absent: every sandbox of the workspace. */
  sandboxId?: string | undefined;
  /** The client's Last-Event-ID (header or query), as sent. */
  lastEventId?: string | undefined;
  /** Counts against this key's open streams, and ends with it. */
  keyId?: string | undefined;
  /** The dashboard session the stream was opened with: it ends at sign-out, or when the session expires. */
  session?: { id: string; expiresAt: Date } | undefined;
}

export interface OpenedStream {
  /** Writes the replay, then live events, to `sink` until the stream ends. */
  run(sink: LiveSink): Promise<void>;
  /** The client went away. */
  close(): void;
}

export function createLiveEventService(
  db: Kysely<Database>,
  clock: Clock,
  bus: EventBus,
  expiry: ExpiryWatch,
  options: { recheckMs: number | undefined; onError?: (err: unknown) => void },
) {
  const onError = options.onError ?? (() => {});
  /** Read from the store once, before the first stream opens; every event id is written with it. */
  let ids: EventIds | undefined;
  let loadingIds: Promise<EventIds> | undefined;
  const idsReady = async (): Promise<EventIds> => {
    if (ids !== undefined) return ids;
    loadingIds ??= eventIdKey(db)
      .then((key) => (ids = eventIds(key)))
      .finally(() => (loadingIds = undefined));
    return loadingIds;
  };
  const tail = new EventTail(db, bus, {
    recheckMs: options.recheckMs,
    onError,
    ids: () => ids as EventIds,
  });
  const streams = new Set<LiveStream>();
  const bySandbox = new Map<string, Set<LiveStream>>();
  const byWorkspace = new Map<string, Set<LiveStream>>();
  const perKey = new Map<string, Set<LiveStream>>();
  /** Streams by dashboard session, with the timer that ends them when the session expires. */
  const perSession = new Map<string, { streams: Set<LiveStream>; cancel: () => void }>();
  /** The sandboxes whose expiry the open workspace streams wait for. */
  const workspaceExpiries = new WorkspaceExpiries(db, clock, expiry, (workspaceId, sandboxId) => {
    for (const s of [...(byWorkspace.get(workspaceId) ?? [])]) s.sandboxExpired(sandboxId);
  });
  let timers: NodeJS.Timeout[] = [];
  /** The service follows the tail while any stream is open. */
  let membership: { leave(): void } | undefined;
  let joining: Promise<void> | undefined;

  function joinTail(): Promise<void> {
    joining ??= tail
      .join(route)
      .then((m) => {
        membership = m;
      })
      .finally(() => (joining = undefined));
    return joining;
  }

  function idle(): void {
    stopTimers();
    membership?.leave();
    membership = undefined;
  }
  let offDeleted: (() => void) | undefined;

  const add = <K>(map: Map<K, Set<LiveStream>>, key: K, s: LiveStream) => {
    let set = map.get(key);
    if (set === undefined) map.set(key, (set = new Set()));
    set.add(s);
  };
  const remove = <K>(map: Map<K, Set<LiveStream>>, key: K, s: LiveStream) => {
    const set = map.get(key);
    set?.delete(s);
    if (set?.size === 0) map.delete(key);
  };

  function route(event: LiveEvent, position: Position): void {
    for (const s of bySandbox.get(event.sandboxId) ?? []) if (s.wants(event)) s.accept(event, position);
    for (const s of byWorkspace.get(event.workspaceId) ?? []) s.accept(event, position);
    workspaceExpiries.routed(event);
  }

  function endSession(sessionId: string): void {
    for (const s of [...(perSession.get(sessionId)?.streams ?? [])]) s.close();
  }

  /** A sandbox removed by a TTL sweep has no journaled deletion: its open streams are told here. */
  function onSandboxDeleted(sandboxId: string): void {
    if (!bySandbox.has(sandboxId)) return;
    void tail.settled().then(() => {
      for (const s of [...(bySandbox.get(sandboxId) ?? [])]) s.sandboxGone(sandboxId);
    });
  }

  /** Ends the streams of keys that no longer authenticate, and of sessions signed out or expired. */
  async function endStreamsOfUnusableKeys(): Promise<void> {
    const now = clock.now();
    const keyIds = [...perKey.keys()];
    const sessionIds = [...perSession.keys()];
    const [usable, standing] = await Promise.all([
      usableKeyIds(db, keyIds, now),
      liveSessionIds(db, sessionIds, now),
    ]);
    for (const keyId of keyIds) {
      if (usable.has(keyId)) continue;
      for (const s of [...(perKey.get(keyId) ?? [])]) s.close();
    }
    for (const sessionId of sessionIds) if (!standing.has(sessionId)) endSession(sessionId);
  }

  function startTimers(): void {
    const keepAlive = setInterval(() => {
      for (const s of streams) s.keepAlive();
    }, KEEP_ALIVE_MS);
    const keys = setInterval(() => void endStreamsOfUnusableKeys().catch(onError), KEY_CHECK_MS);
    timers = [keepAlive, keys];
    for (const t of timers) t.unref();
    offDeleted = bus.subscribeAll((e) => {
      if (e.kind === 'sandbox_deleted') onSandboxDeleted(e.sandboxId);
      // A sign-out, here or on another process.
      else if (e.kind === 'session_ended') endSession(e.sessionId);
    });
  }

  function stopTimers(): void {
    for (const t of timers) clearInterval(t);
    timers = [];
    offDeleted?.();
    offDeleted = undefined;
  }

  /** Where a client resumes: after its id, or (unknown, too old) from now with a reset. */
  async function resumeFrom(lastEventId: string | undefined, codec: EventIds): Promise<ResumeFrom> {
    if (lastEventId === undefined || lastEventId.trim() === '') return { kind: 'now' };
    const position = codec.parse(lastEventId);
    if (position === undefined) return { kind: 'reset', reason: 'unknown_id' };
    const head = await readStreamHead(db);
    // No transaction this high has been handed out yet: an id of another database, or made up.
    if (position.xid >= BigInt(head.xmax)) return { kind: 'reset', reason: 'unknown_id' };
    const horizon = { xid: BigInt(head.horizon.xid), seq: BigInt(head.horizon.seq) };
    if (comparePositions(position, horizon) < 0) return { kind: 'reset', reason: 'too_old' };
    return { kind: 'after', position };
  }

  function acquireKeySlot(keyId: string | undefined): void {
    if (keyId === undefined) return;
    const open = perKey.get(keyId)?.size ?? 0;
    if (open >= MAX_STREAMS_PER_KEY) {
      throw new AppError(
        'rate_limited',
        `This key already has ${MAX_STREAMS_PER_KEY} event streams open; close one or use another key.`,
        { retryAfterSeconds: 1 },
      );
    }
  }

  return {
    /** Streams open now (metrics). */
    openCount: () => streams.size,

    /**
     * Checks access and limits and joins the tail; nothing is written yet, so a refusal (404, 429) can still be
     * answered as an error. The caller then runs the stream on its connection.
     */
    async open(input: OpenStreamInput): Promise<OpenedStream> {
      const sandbox =
        input.sandboxId === undefined
          ? undefined
          : await ownedSandbox(db, clock, input.workspaceId, parseId(input.sandboxId, 'sandboxId'));
      const sandboxId = sandbox?.id;
      acquireKeySlot(input.keyId);
      const codec = await idsReady();
      const from = await resumeFrom(input.lastEventId, codec);
      // The start is read and the stream registered in one synchronous step: every event the tail hands out
      // later is routed to it, every earlier one is the replay's.
      let start: Position | undefined;
      while ((start = tail.position()) === undefined || membership === undefined) await joinTail();
      try {
        // Other streams of this key may have opened during the awaits.
        acquireKeySlot(input.keyId);
      } catch (err) {
        if (streams.size === 0) idle();
        throw err;
      }
      const scope = { workspaceId: input.workspaceId, sandboxId };
      const { session } = input;
      let unwatch = () => {};
      const s: LiveStream = new LiveStream(scope, start, from, db, codec, () => {
        streams.delete(s);
        unwatch();
        if (sandboxId === undefined) {
          remove(byWorkspace, input.workspaceId, s);
          if (!byWorkspace.has(input.workspaceId)) workspaceExpiries.unwatch(input.workspaceId);
        } else remove(bySandbox, sandboxId, s);
        if (input.keyId !== undefined) remove(perKey, input.keyId, s);
        if (session !== undefined) {
          const entry = perSession.get(session.id);
          entry?.streams.delete(s);
          if (entry?.streams.size === 0) {
            entry.cancel();
            perSession.delete(session.id);
          }
        }
        if (streams.size === 0) idle();
      });
      if (streams.size === 0) startTimers();
      streams.add(s);
      if (sandboxId === undefined) add(byWorkspace, input.workspaceId, s);
      else add(bySandbox, sandboxId, s);
      if (input.keyId !== undefined) add(perKey, input.keyId, s);
      if (session !== undefined) {
        let entry = perSession.get(session.id);
        if (entry === undefined) {
          // The moment the session expires, its streams end (with the cookie, nothing else would end them).
          const cancel = atMoment(clock, session.expiresAt, () => endSession(session.id));
          perSession.set(session.id, (entry = { streams: new Set(), cancel }));
        }
        entry.streams.add(s);
      }
      if (sandbox !== undefined) {
        // Every process ends its own streams of the sandbox when the clock reaches its expiry.
        unwatch = expiry.watch(sandbox.id, sandbox.expiresAt, () => s.sandboxExpired(sandbox.id));
      } else {
        try {
          await workspaceExpiries.watch(input.workspaceId);
        } catch (err) {
          s.close();
          throw err;
        }
      }
      return { run: (sink) => s.run(sink), close: () => s.close() };
    },

    /**
     * Ends the streams of keys revoked, expired or deleted since they opened, and of sessions signed out or
     * expired (the timer's check, now).
     */
    endStreamsOfUnusableKeys,

    /** Streams open right now (tests, metrics). */
    openStreams: (): number => streams.size,

    /** Shutdown: every stream ends now. */
    endAll(): void {
      for (const s of [...streams]) s.close();
    },

    /** Drops journaled changes past their keeping time (run by the sweeps). */
    prune: (): Promise<number> => pruneChangeEvents(db, new Date(clock.now().getTime() - JOURNAL_KEEP_MS)),
  };
}
