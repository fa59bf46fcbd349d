// LISTEN/NOTIFY transport for change events: one dedicated connection per process listens; notifications
// go out through the pool, batched per event-loop turn. A dropped listener reconnects until the database is
// back, and then tells the bus to re-check what it may have missed.
import pg from 'pg';
import type { EventTransport } from '../events.ts';

const CHANNEL = 'sandtrap_events';

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
      if (msg.channel === CHANNEL && msg.payload !== undefined) onPayload(msg.payload);
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

  // Events published in one turn of the event loop (a committed batch of captures, say) go out in one
  // statement instead of one round trip each; unnest keeps their order.
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
        values: [CHANNEL, batch.map((e) => e.payload)],
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
        if (outbox.length === 1) setImmediate(flush);
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
