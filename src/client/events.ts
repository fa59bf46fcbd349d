// Live events of a running server as an async iterator of typed events: reads the SSE stream with fetch,
// remembers the last event id, and (with `reconnect`) resumes from it after the connection drops.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { components } from '../../openapi/schema.d.ts';

export type LiveEvent = components['schemas']['LiveEvent'];
type Problem = components['schemas']['Problem'];

export interface EventStreamOptions {
  /** The server's base URL, e.g. http://127.0.0.1:8025 (with or without /api/v1). */
  baseUrl: string;
  apiKey: string;
  /** One sandbox's events; absent: every sandbox of the key's workspace. */
  sandboxId?: string;
  /** Resume after this event id. */
  lastEventId?: string;
  /** Reconnect (resuming from the last id) when the connection drops; refusals (4xx) still end it. */
  reconnect?: boolean;
  signal?: AbortSignal;
  fetch?: typeof fetch;
  /** Called each time the server accepts the stream: events committed from then on will arrive. */
  onOpen?: () => void;
}

/** The server refused the stream (401, 404, 429...): `problem` is its answer. */
export class EventStreamError extends Error {
  override name = 'EventStreamError';
  readonly status: number;
  readonly problem: Problem | undefined;
  constructor(status: number, problem: Problem | undefined) {
    super(problem?.detail ?? `the event stream was refused with HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

/** An `id:` (reported before the event of its block, and alone for an id-only block), or an event. */
type Parsed = { lastEventId: string } | EventSourceMessage;

/**
 * The stream's ids and events in stream order, parsed by eventsource-parser (the WHATWG rules, a `\r\n` split
 * across two chunks included). Collected per chunk and handed out in order rather than acted on in the callbacks,
 * so `lastEventId` never runs ahead of the events the caller has been given.
 */
async function* parseSse(
  body: ReadableStream<Uint8Array>,
  onRetry: (ms: number) => void,
): AsyncGenerator<Parsed> {
  let parsed: Parsed[] = [];
  const parser = createParser({
    onId: (lastEventId) => parsed.push({ lastEventId }),
    onEvent: (event) => parsed.push(event),
    onRetry,
  });
  for await (const chunk of body.pipeThrough(new TextDecoderStream())) {
    parser.feed(chunk);
    const ready = parsed;
    parsed = [];
    yield* ready;
  }
}

/**
 * `for await (const e of stream)` yields every event; `stream.lastEventId` is where a new stream would resume.
 * A sandbox's stream ends after its `sandbox.deleted`.
 */
export class EventStream implements AsyncIterable<LiveEvent> {
  lastEventId: string | undefined;
  private retryMs = 3_000;
  private readonly options: EventStreamOptions;
  private readonly controller = new AbortController();

  constructor(options: EventStreamOptions) {
    this.options = options;
    this.lastEventId = options.lastEventId;
    options.signal?.addEventListener('abort', () => this.close(), { once: true });
  }

  /** Ends the stream; a pending iteration finishes. */
  close(): void {
    this.controller.abort();
  }

  private url(): string {
    const root = this.options.baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
    const path =
      this.options.sandboxId === undefined
        ? '/events'
        : `/sandboxes/${encodeURIComponent(this.options.sandboxId)}/events`;
    return `${root}/api/v1${path}`;
  }

  private async connect(): Promise<Response> {
    const res = await (this.options.fetch ?? fetch)(this.url(), {
      headers: {
        Authorization: `Bearer ${this.options.apiKey}`,
        Accept: 'text/event-stream',
        ...(this.lastEventId === undefined ? {} : { 'Last-Event-ID': this.lastEventId }),
      },
      signal: this.controller.signal,
    });
    if (res.status === 200 && res.body !== null) return res;
    const text = await res.text().catch(() => '');
    let problem: Problem | undefined;
    try {
      problem = JSON.parse(text) as Problem;
    } catch {
      problem = undefined;
    }
    throw new EventStreamError(res.status, problem);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<LiveEvent> {
    for (;;) {
      try {
        const res = await this.connect();
        this.options.onOpen?.();
        for await (const raw of parseSse(
          res.body as ReadableStream<Uint8Array>,
          (ms) => (this.retryMs = ms),
        )) {
          if ('lastEventId' in raw) {
            this.lastEventId = raw.lastEventId;
            continue;
          }
          const event = {
            id: raw.id ?? '',
            event: raw.event ?? 'message',
            data: JSON.parse(raw.data),
          } as LiveEvent;
          yield event;
          if (event.event === 'sandbox.deleted' && this.options.sandboxId !== undefined) return;
        }
      } catch (err) {
        if (this.controller.signal.aborted) return;
        if (err instanceof EventStreamError || this.options.reconnect !== true) throw err;
      }
      if (this.controller.signal.aborted || this.options.reconnect !== true) return;
      await new Promise((resolve) => setTimeout(resolve, this.retryMs));
    }
  }
}

/** A typed live event stream of a workspace (or one sandbox); see EventStream. */
export function streamEvents(options: EventStreamOptions): EventStream {
  return new EventStream(options);
}
