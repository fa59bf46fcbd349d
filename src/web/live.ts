// Live events over SSE: one shared EventSource per stream, reconnecting and resuming from the last event id.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { components } from '../../openapi/schema.d.ts';

export type LiveEvent = components['schemas']['LiveEvent'];
export type LiveStatus = 'connecting' | 'open' | 'reconnecting';

const EVENT_NAMES: LiveEvent['event'][] = [
  'message.received',
  'message.updated',
  'message.deleted',
  'messages.cleared',
  'request.received',
  'request.updated',
  'request.deleted',
  'requests.cleared',
  'sandbox.created',
  'sandbox.updated',
  'sandbox.deleted',
  'reset',
];

const MAX_RETRY_MS = 30_000;

/** One stream URL shared by every component listening to it, so a page opens at most one connection per stream. */
class Stream {
  readonly listeners = new Set<(event: LiveEvent) => void>();
  readonly statusListeners = new Set<(status: LiveStatus) => void>();
  status: LiveStatus = 'connecting';
  private source: EventSource | null = null;
  private lastEventId: string | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private failures = 0;
  private closed = false;

  constructor(private readonly url: string) {
    this.open();
  }

  private open(): void {
    // EventSource resumes by itself (Last-Event-ID) while it retries; once it gives up (an error status, or a
    // stream the server ended) a new one resumes through the lastEventId query parameter.
    const url = this.lastEventId
      ? `${this.url}?lastEventId=${encodeURIComponent(this.lastEventId)}`
      : this.url;
    const source = new EventSource(url, { withCredentials: true });
    this.source = source;
    source.onopen = () => {
      this.failures = 0;
      this.setStatus('open');
    };
    source.onerror = () => {
      if (this.closed) return;
      this.setStatus('reconnecting');
      if (source.readyState === EventSource.CLOSED) this.scheduleReopen();
    };
    for (const name of EVENT_NAMES) {
      source.addEventListener(name, (message: MessageEvent<string>) => this.dispatch(name, message));
    }
  }

  private dispatch(name: LiveEvent['event'], message: MessageEvent<string>): void {
    if (message.lastEventId) this.lastEventId = message.lastEventId;
    let data: unknown;
    try {
      data = JSON.parse(message.data);
    } catch {
      return;
    }
    const event = { id: message.lastEventId, event: name, data } as LiveEvent;
    for (const listener of [...this.listeners]) listener(event);
  }

  private scheduleReopen(): void {
    this.source?.close();
    this.source = null;
    this.failures += 1;
    const delay = Math.min(MAX_RETRY_MS, 500 * 2 ** Math.min(this.failures, 6)) * (0.75 + Math.random() / 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.closed) this.open();
    }, delay);
  }

  private setStatus(status: LiveStatus): void {
    if (this.status === status) return;
    this.status = status;
    for (const listener of [...this.statusListeners]) listener(status);
  }

  close(): void {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.source?.close();
  }
}

const streams = new Map<string, { stream: Stream; users: number }>();

function streamUrl(sandboxId: string | null): string {
  return sandboxId ? `/api/v1/sandboxes/${encodeURIComponent(sandboxId)}/events` : '/api/v1/events';
}

function acquire(url: string): Stream {
  let entry = streams.get(url);
  if (!entry) {
    entry = { stream: new Stream(url), users: 0 };
    streams.set(url, entry);
  }
  entry.users += 1;
  return entry.stream;
}

function release(url: string): void {
  const entry = streams.get(url);
  if (!entry) return;
  entry.users -= 1;
  // Kept a moment, so a re-render that unsubscribes and subscribes again does not reconnect.
  if (entry.users === 0) {
    setTimeout(() => {
      if (entry.users > 0 || streams.get(url) !== entry) return;
      entry.stream.close();
      streams.delete(url);
    }, 1000);
  }
}

/**
 * Calls `onEvent` for every live event of the sandbox (or of the whole workspace when `sandboxId` is null).
 * On a `reset` event the caller should reload its lists. Returns the connection's status.
 */
export function useLive(
  sandboxId: string | null,
  onEvent: (event: LiveEvent) => void,
  /** False keeps the stream closed (a listener that only sometimes has something to do). */
  enabled = true,
): LiveStatus {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const [status, setStatus] = useState<LiveStatus>('connecting');
  useEffect(() => {
    if (!enabled) return;
    const url = streamUrl(sandboxId);
    const stream = acquire(url);
    const listener = (event: LiveEvent) => handler.current(event);
    stream.listeners.add(listener);
    stream.statusListeners.add(setStatus);
    setStatus(stream.status);
    return () => {
      stream.listeners.delete(listener);
      stream.statusListeners.delete(setStatus);
      release(url);
    };
  }, [sandboxId, enabled]);
  return status;
}

/** Ends every stream (on sign-out), so no connection outlives the session. */
export function closeAllStreams(): void {
  for (const { stream } of streams.values()) stream.close();
  streams.clear();
}
