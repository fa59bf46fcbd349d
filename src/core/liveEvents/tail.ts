// One reader per process follows the store in position order while any stream is open, and hands each event
// to every stream at once: an arrival fanned out to 1,000 streams costs one query. Change events on the bus
// (this process, or others through LISTEN/NOTIFY) only say "read on"; what is read is always the store, so a
// stream on any process sees the same events in the same order, and a resume replays them exactly.
import type { Kysely } from 'kysely';
import type { EventBus } from '../events.ts';
import type { EventIds } from './eventIds.ts';
import { readEventsAfter, readStreamHead } from '../store/repos/liveEvents.ts';
import type { Database } from '../store/schema.ts';
import { comparePositions, type Position } from './position.ts';
import { rowPosition, toLiveEvent } from './storedEvents.ts';
import type { LiveEvent } from './types.ts';

export type TailListener = (event: LiveEvent, position: Position) => void;

const BATCH = 500;
/** Committed rows held back behind an older transaction still running are looked at again after this... */
const FIRST_HELD_RETRY_MS = 5;
/** ...doubling up to this (a transaction outside sandtrap can hold them back too, and says nothing). */
const MAX_HELD_RETRY_MS = 500;
/** After a failed read (the database is away). */
const ERROR_RETRY_MS = 1_000;

export const positionText = (p: Position) => ({ xid: p.xid.toString(), seq: p.seq.toString() });

export interface TailOptions {
  /** Reads on this often even without a notification (PostgreSQL: one may be lost); undefined: never. */
  recheckMs: number | undefined;
  onError: (err: unknown) => void;
  /** How positions are written as ids; known once the first stream opens (read from the store). */
  ids: () => EventIds;
}

export class EventTail {
  /** Everything up to here has been handed out; undefined while no stream is open. */
  private cursor: Position | undefined;
  private readonly listeners = new Set<TailListener>();
  /** Bumped whenever the tail goes idle: a read that started before must not move the cursor. */
  private generation = 0;
  private starting: Promise<void> | undefined;
  private reading = false;
  private again = false;
  private scheduled = false;
  private heldRetryMs = FIRST_HELD_RETRY_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private periodic: NodeJS.Timeout | undefined;
  private unsubscribe: Array<() => void> = [];
  private readonly settledWaiters: Array<() => void> = [];

  private readonly db: Kysely<Database>;
  private readonly bus: EventBus;
  private readonly options: TailOptions;

  constructor(db: Kysely<Database>, bus: EventBus, options: TailOptions) {
    this.db = db;
    this.bus = bus;
    this.options = options;
  }

  /** Starts following (if idle) and adds `listener`; `start` is the position it receives events after. */
  async join(listener: TailListener): Promise<{ start: Position; leave(): void }> {
    while (this.cursor === undefined) {
      this.starting ??= this.begin().finally(() => (this.starting = undefined));
      await this.starting;
    }
    this.listeners.add(listener);
    return {
      start: this.cursor,
      leave: () => {
        if (this.listeners.delete(listener) && this.listeners.size === 0) this.stop();
      },
    };
  }

  /** The position everything has been handed out up to (undefined while idle). */
  position(): Position | undefined {
    return this.cursor;
  }

  /** Resolves once no read is running or due: whatever was committed before the call has been handed out. */
  settled(): Promise<void> {
    if (!this.reading && !this.scheduled) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  private async begin(): Promise<void> {
    const head = await readStreamHead(this.db);
    // Every transaction below xmin has ended; anything at or above it is still to come.
    this.cursor = { xid: BigInt(head.xmin), seq: 0n };
    this.unsubscribe = [
      this.bus.subscribeAll(() => this.wake()),
      this.bus.subscribeResync(() => this.wake()),
    ];
    if (this.options.recheckMs !== undefined) {
      this.periodic = setInterval(() => this.wake(), this.options.recheckMs);
      this.periodic.unref();
    }
    // A commit may have landed between the head read and the subscription.
    this.wake();
  }

  private stop(): void {
    this.generation++;
    this.cursor = undefined;
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    clearInterval(this.periodic);
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  /** Coalesces the wake-ups of one turn (a committed batch publishes one event per item) into one read. */
  wake(): void {
    if (this.cursor === undefined) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      void this.read();
    });
  }

  private retryIn(ms: number): void {
    if (this.retryTimer !== undefined) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.wake();
    }, ms);
    this.retryTimer.unref();
  }

  private async read(): Promise<void> {
    if (this.cursor === undefined || this.reading) return;
    this.reading = true;
    const generation = this.generation;
    try {
      for (;;) {
        this.again = false;
        const from = this.cursor;
        if (from === undefined) return;
        const batch = await readEventsAfter(this.db, positionText(from), { limit: BATCH });
        if (generation !== this.generation) return;
        const xmin = BigInt(batch.xmin);
        const stable = batch.rows.filter((r) => r.stable);
        const held = stable.length < batch.rows.length;
        const full = batch.rows.length === BATCH;
        // All rows after `from` below xmin are in `stable` unless the batch was cut by the limit first.
        let next: Position =
          full && !held
            ? rowPosition(batch.rows[BATCH - 1] as (typeof batch.rows)[number])
            : { xid: xmin, seq: 0n };
        if (comparePositions(next, from) < 0) next = from;
        this.cursor = next;
        for (const row of stable) {
          const event = toLiveEvent(row, this.options.ids());
          if (event === undefined) continue;
          const position = rowPosition(row);
          for (const listener of [...this.listeners]) listener(event, position);
        }
        if (held) {
          this.retryIn(this.heldRetryMs);
          this.heldRetryMs = Math.min(this.heldRetryMs * 2, MAX_HELD_RETRY_MS);
        } else {
          this.heldRetryMs = FIRST_HELD_RETRY_MS;
        }
        if (!(full && !held) && !this.again) return;
      }
    } catch (err) {
      this.options.onError(err);
      // Read again once the database may be back, not at once.
      this.again = false;
      if (generation === this.generation) this.retryIn(ERROR_RETRY_MS);
    } finally {
      this.reading = false;
      // A wake-up during a read of a previous generation (the tail went idle and started again) reads now.
      if (this.again && this.cursor !== undefined) this.wake();
      if (!this.scheduled && !this.reading) for (const done of this.settledWaiters.splice(0)) done();
    }
  }
}
