// A live event stream read in the background by the real client (src/client/events.ts over fetch), with
// helpers to take the next events in order, check that none came, and see whether the server ended it.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventStream, type LiveEvent } from '../../src/client/events.ts';
import { eventually } from './poll.ts';

export interface EventReader {
  stream: EventStream;
  /** Events received and not taken yet. */
  buffered: LiveEvent[];
  /** The next event; fails after `ms` (a generous bound: it only ends a test whose event never came). */
  next(ms?: number): Promise<LiveEvent>;
  /** The next `n` events. */
  take(n: number, ms?: number): Promise<LiveEvent[]>;
  /** Asserts that no event has arrived after `ms` more (a check that only a wrong event can fail). */
  none(ms: number): Promise<void>;
  /** Resolves when the server ended the stream (or it failed: `error`). */
  ended: Promise<void>;
  readonly done: boolean;
  readonly error: unknown;
  close(): void;
}

export interface ReaderOptions {
  sandboxId?: string;
  lastEventId?: string;
  /** The client's fetch, e.g. one that sends a session cookie instead of the key. */
  fetch?: typeof fetch;
}

/** Opens a stream and waits until the server has accepted it. */
export async function openEvents(
  apiUrl: string,
  apiKey: string,
  options: ReaderOptions = {},
): Promise<EventReader> {
  let opened = false;
  const stream = new EventStream({ baseUrl: apiUrl, apiKey, ...options, onOpen: () => (opened = true) });
  const buffered: LiveEvent[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  let error: unknown;
  const ended = (async () => {
    try {
      for await (const event of stream) {
        buffered.push(event);
        wake?.();
      }
    } catch (err) {
      error = err;
    } finally {
      done = true;
      wake?.();
    }
  })();
  const reader: EventReader = {
    stream,
    buffered,
    get error() {
      return error;
    },
    get done() {
      return done;
    },
    ended,
    async next(ms = 20_000) {
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        wake?.();
      }, ms);
      try {
        while (buffered.length === 0) {
          if (done)
            assert.fail(
              `the stream ended (${String(reader.error ?? 'by the server')}) while an event was awaited`,
            );
          if (timedOut) assert.fail(`no event within ${ms} ms`);
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      } finally {
        clearTimeout(timer);
      }
      return buffered.shift() as LiveEvent;
    },
    async take(n, ms = 20_000) {
      const out: LiveEvent[] = [];
      for (let i = 0; i < n; i++) out.push(await reader.next(ms));
      return out;
    },
    async none(ms) {
      await sleep(ms);
      assert.deepEqual(
        buffered.map((e) => e.event),
        [],
        'no event was expected',
      );
    },
    close: () => stream.close(),
  };
  // Once the server has answered, every later commit reaches the stream.
  await eventually('the server to answer the stream', () => opened || done, 20_000, 5);
  if (done && error !== undefined) throw error;
  return reader;
}
