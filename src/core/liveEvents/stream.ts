// One open stream: replays what the client missed from the store, then passes on the tail's events in its
// scope. Its client's unread bytes are bounded: a client that falls behind is sent `reset` and closed.
import type { Kysely } from 'kysely';
import { readEventsAfter } from '../store/repos/liveEvents.ts';
import type { Database } from '../store/schema.ts';
import type { EventIds } from './eventIds.ts';
import { comparePositions, type Position } from './position.ts';
import { rowPosition, toLiveEvent } from './storedEvents.ts';
import { positionText } from './tail.ts';
import type { LiveEvent, ResetReason, StreamEvent } from './types.ts';

/** Where a stream's events go: the adapter's connection. */
export interface LiveSink {
  /** Writes one event (with its `id:`). */
  send(event: StreamEvent): void;
  /** Sets the client's resume point without an event (an SSE frame with only `id:`). */
  mark(id: string): void;
  keepAlive(): void;
  /** Bytes written that the client has not taken yet. */
  backlog(): number;
  /** Resolves when the backlog has been taken (or the connection is gone). */
  drained(): Promise<void>;
  /** Ends the stream. */
  close(): void;
}

/** Unread bytes a client may leave behind before it is reset. */
export const MAX_BACKLOG_BYTES = 256 * 1024;
/** Live events held while a replay is still being written. */
const MAX_PENDING_EVENTS = 5_000;
/** A longer replay is answered with `reset`: reloading the lists is cheaper for both sides. */
export const MAX_REPLAY_EVENTS = 10_000;
const REPLAY_PAGE = 500;

const RESET_MESSAGES: Record<ResetReason, string> = {
  unknown_id:
    'The Last-Event-ID is not one this server handed out. Reload your lists, then continue from this event.',
  too_old:
    'The Last-Event-ID is older than the changes this server keeps. Reload your lists, then continue from this event.',
  too_many_missed:
    'More events were missed than a resume replays. Reload your lists, then continue from this event.',
  slow_consumer:
    'The client fell behind and the stream was closed. Reload your lists, then reconnect with this event id.',
};

export interface StreamScope {
  workspaceId: string;
  /** Absent: the whole workspace. */
  sandboxId?: string | undefined;
}

export type ResumeFrom =
  { kind: 'now' } | { kind: 'after'; position: Position } | { kind: 'reset'; reason: ResetReason };

export class LiveStream {
  private state: 'new' | 'replaying' | 'live' | 'closed' = 'new';
  private last: Position;
  private pending: Array<{ event: LiveEvent; position: Position }> = [];
  /** Sandboxes that expired while the replay was still being written: told once the stream is live. */
  private expiredMeanwhile: string[] = [];
  /** Sandboxes this stream announced expired: the sweep's journaled deletion is not sent a second time. */
  private readonly announcedExpired = new Set<string>();
  private sink: LiveSink | undefined;
  readonly scope: StreamScope;
  /** The tail's position when this stream joined: later events come live, earlier ones from a replay. */
  private readonly start: Position;
  private readonly from: ResumeFrom;
  private readonly db: Kysely<Database>;
  private readonly ids: EventIds;
  private readonly onClosed: () => void;

  constructor(
    scope: StreamScope,
    start: Position,
    from: ResumeFrom,
    db: Kysely<Database>,
    ids: EventIds,
    onClosed: () => void,
  ) {
    this.scope = scope;
    this.start = start;
    this.from = from;
    this.db = db;
    this.ids = ids;
    this.last = start;
    this.onClosed = onClosed;
  }

  /** A method, not a field read: the state changes across awaits (and in callbacks) behind the compiler's back. */
  isClosed(): boolean {
    return this.state === 'closed';
  }

  /** Whether `event` belongs on this stream. */
  wants(event: LiveEvent): boolean {
    if (event.workspaceId !== this.scope.workspaceId) return false;
    if (this.scope.sandboxId === undefined) return true;
    return event.sandboxId === this.scope.sandboxId && event.type !== 'sandbox.created';
  }

  /** An event from the tail (in position order). */
  accept(event: LiveEvent, position: Position): void {
    if (this.state === 'closed') return;
    if (this.state !== 'live') {
      if (this.pending.length >= MAX_PENDING_EVENTS) return this.fellBehind();
      this.pending.push({ event, position });
      return;
    }
    this.deliver(event, position);
    const sink = this.sink as LiveSink;
    if (sink.backlog() > MAX_BACKLOG_BYTES && this.state === 'live') this.fellBehind();
  }

  /** Starts writing to `sink`: the replay first, if any, then live events. */
  async run(sink: LiveSink): Promise<void> {
    this.sink = sink;
    this.state = 'replaying';
    try {
      if (this.from.kind === 'now') sink.mark(this.ids.format(this.start));
      else if (this.from.kind === 'reset') this.reset(this.from.reason, this.start);
      else {
        await this.replay(this.from.position);
        // Everything up to the start has been replayed: the client may resume from there.
        if (!this.isClosed() && comparePositions(this.last, this.start) === 0)
          sink.mark(this.ids.format(this.start));
      }
    } catch (err) {
      this.close();
      throw err;
    }
    if (this.isClosed()) return;
    this.state = 'live';
    const held = this.pending;
    this.pending = [];
    for (const { event, position } of held) this.deliver(event, position);
    for (const sandboxId of this.expiredMeanwhile.splice(0)) this.sandboxExpired(sandboxId);
    if (sink.backlog() > MAX_BACKLOG_BYTES && this.state === 'live') this.fellBehind();
  }

  keepAlive(): void {
    if (this.state !== 'closed' && this.sink !== undefined) this.sink.keepAlive();
  }

  /** Ends the stream (shutdown, revoked key, client gone). */
  close(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.pending = [];
    this.sink?.close();
    this.onClosed();
  }

  /** The sandbox went away without a journaled deletion reaching us (a TTL sweep): say so, then end. */
  sandboxGone(sandboxId: string): void {
    if (this.state !== 'live' || this.sink === undefined) return;
    this.sink.send({
      type: 'sandbox.deleted',
      id: this.ids.format(this.last),
      workspaceId: this.scope.workspaceId,
      sandboxId,
      data: { id: sandboxId, sandboxId },
    });
    this.close();
  }

  /**
   * The clock reached the sandbox's expiry: `sandbox.deleted` with `reason: "expired"` now, not when a sweep
   * removes the row. A sandbox's own stream then ends; a workspace stream skips the sweep's deletion of it later.
   * The event carries the id of the last position sent: a resume from it replays the sweep's deletion, if any.
   */
  sandboxExpired(sandboxId: string): void {
    if (this.state === 'closed' || this.announcedExpired.has(sandboxId)) return;
    if (this.state !== 'live' || this.sink === undefined) {
      this.expiredMeanwhile.push(sandboxId);
      return;
    }
    this.announcedExpired.add(sandboxId);
    this.sink.send({
      type: 'sandbox.deleted',
      id: this.ids.format(this.last),
      workspaceId: this.scope.workspaceId,
      sandboxId,
      data: { id: sandboxId, sandboxId, reason: 'expired' },
    });
    if (this.scope.sandboxId !== undefined) this.close();
  }

  private async replay(after: Position): Promise<void> {
    const sink = this.sink as LiveSink;
    // A client ahead of this process's tail (it was reading from another process) skips what it has seen.
    if (comparePositions(after, this.start) >= 0) {
      this.last = after;
      return;
    }
    this.last = after;
    let cursor = after;
    let replayed = 0;
    for (;;) {
      const { rows } = await readEventsAfter(this.db, positionText(cursor), {
        limit: REPLAY_PAGE,
        upTo: positionText(this.start),
        scope: this.scope,
      });
      if (this.isClosed()) return;
      replayed += rows.length;
      if (replayed > MAX_REPLAY_EVENTS) return this.reset('too_many_missed', this.start);
      for (const row of rows) {
        const event = toLiveEvent(row, this.ids);
        if (event !== undefined && this.wants(event)) this.deliver(event, rowPosition(row));
        if (this.isClosed()) return;
      }
      if (rows.length < REPLAY_PAGE) break;
      cursor = rowPosition(rows[rows.length - 1] as (typeof rows)[number]);
      // A replay waits for the client instead of piling up: it reads the store at the client's pace.
      if (sink.backlog() > MAX_BACKLOG_BYTES / 2) await sink.drained();
      if (this.isClosed()) return;
    }
    this.last = this.start;
  }

  private deliver(event: LiveEvent, position: Position): void {
    if (comparePositions(position, this.last) <= 0) return;
    this.last = position;
    if (event.type === 'sandbox.deleted' && this.announcedExpired.delete(event.sandboxId)) {
      // Told at its expiry already: only the resume point moves on.
      (this.sink as LiveSink).mark(event.id);
      return;
    }
    (this.sink as LiveSink).send(event);
    // The sandbox stream ends with its sandbox.
    if (event.type === 'sandbox.deleted' && this.scope.sandboxId !== undefined) this.close();
  }

  private reset(reason: ResetReason, at: Position): void {
    this.last = at;
    this.sink?.send({
      type: 'reset',
      id: this.ids.format(at),
      data: { reason, message: RESET_MESSAGES[reason] },
    });
  }

  private fellBehind(): void {
    this.reset('slow_consumer', this.last);
    this.close();
  }
}
