// LISTEN/NOTIFY transport for change events: one dedicated connection per process listens; notifications go
// out through the pool, batched in a 2 ms window (store map: src/core/store/README.md). A dropped listener
// reconnects until the database is back, and then tells the bus to re-check what it may have missed.
import pg from 'pg';
import type { EventTransport } from '../events.ts';

const CHANNEL = 'sandtrap_events';
/**
 * Events published within this window go out in one statement. Flushing each turn of the event loop sent one
 * statement per committed batch: at 10,000 captures a second that was a tenth of the server's and of
 * PostgreSQL's CPU. Across processes the design allows 50 ms from arrival to a woken wait.
 */
const NOTIFY_WINDOW_MS = 2;
/** A notification's payload must stay under 8,000 bytes; events are joined by newlines up to this. */
const MAX_PAYLOAD_BYTES = 7_900;

/** Payloads joined into as few notifications as fit (an event never holds a newline: ids and kinds only). */
export function packPayloads(payloads: string[], maxBytes = MAX_PAYLOAD_BYTES): string[] {
  const packed: string[] = [];
  let current = '';
  for (const p of payloads) {
    if (current !== '' && Buffer.byteLength(current) + 1 + Buffer.byteLength(p) > maxBytes) {
      packed.push(current);
      current = '';
    }
    current = current === '' ? p : `${current}\n${p}`;
  }
  if (current !== '') packed.push(current);
  return packed;
}

/** Reconnect delays of the listening connection while the database is away: 0.5 s doubling up to 5 s. */
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 5_000;

export function createPgNotifyTransport(
  url: string,
  options: { onError: (err: unknown) => void; onReconnected?: () => void },
): EventTransport {
  const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 5_000 });
  // An idle notify connection the server dropped: the pool replaces it; the failed send said so already.
  pool.on('error', () => {});
  let client: pg.Client | undefined;
  let closed = false;
  let onPayload: (payload: string) => void = () => {};
  let onResync: () => void = () => {};

  async function connect(): Promise<void> {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    c.on('notification', (msg) => {
      if (msg.channel !== CHANNEL || msg.payload === undefined) return;
      for (const payload of msg.payload.split('\n')) onPayload(payload);
    });
    c.on('error', (err) => {
      if (client !== c) return;
      client = undefined;
      options.onError(err);
      void c.end().catch(() => {});
      reconnect(FIRST_RETRY_MS);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      void c.end().catch(() => {});
      throw err;
    }
    if (closed) return void c.end().catch(() => {});
    client = c;
  }

  /** Keeps trying until the database answers again, then has every wait re-check what it missed. */
  function reconnect(delayMs: number): void {
    if (closed) return;
    setTimeout(() => {
      if (closed) return;
      connect().then(
        () => {
          options.onReconnected?.();
          onResync();
        },
        () => reconnect(Math.min(delayMs * 2, MAX_RETRY_MS)),
      );
    }, delayMs).unref();
  }

  // Events published within the window (committed batches of captures, say) go out in one statement
  // instead of one round trip each, packed into as few notifications as fit: each costs the server
  // a queue entry and a signal to every listening process, and each listener a message (unnest keeps order).
  let outbox: Array<{ payload: string; resolve(): void; reject(err: unknown): void }> = [];
  const inFlight = new Set<Promise<void>>();
  function flush(): void {
    if (outbox.length === 0) return;
    const batch = outbox;
    outbox = [];
    const sent = pool
      .query({
        // Prepared once per connection: this runs after every committed batch of captures.
        name: 'sandtrap_notify',
        text: 'select pg_notify($1, p) from unnest($2::text[]) as p',
        values: [CHANNEL, packPayloads(batch.map((e) => e.payload))],
      })
      .then(
        () => batch.forEach((e) => e.resolve()),
        (err: unknown) => batch.forEach((e) => e.reject(err)),
      );
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
  }

  return {
    async start(handler, resync) {
      onPayload = handler;
      onResync = resync;
      await connect();
    },
    send(payload) {
      return new Promise<void>((resolve, reject) => {
        outbox.push({ payload, resolve, reject });
        if (outbox.length === 1) setTimeout(flush, NOTIFY_WINDOW_MS);
      });
    },
    async close() {
      closed = true;
      // Events published just before closing (the last commits of a shutdown) still go out.
      flush();
      await Promise.allSettled(inFlight);
      await Promise.allSettled([client?.end(), pool.end()]);
    },
  };
}
