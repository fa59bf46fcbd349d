// LISTEN/NOTIFY transport for change events: one dedicated connection per process listens; notifications
// go out through the pool, batched per event-loop turn. A dropped listener reconnects; waits re-check the store
// meanwhile.
import pg from 'pg';
import type { EventTransport } from '../events.ts';

const CHANNEL = 'sandtrap_events';

export function createPgNotifyTransport(
  url: string,
  options: { onError: (err: unknown) => void },
): EventTransport {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  let client: pg.Client | undefined;
  let closed = false;
  let onPayload: (payload: string) => void = () => {};

  async function connect(): Promise<void> {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (msg) => {
      if (msg.channel === CHANNEL && msg.payload !== undefined) onPayload(msg.payload);
    });
    c.on('error', (err) => {
      options.onError(err);
      void c.end().catch(() => {});
      if (client === c) client = undefined;
      if (!closed) setTimeout(() => void connect().catch(options.onError), 1000).unref();
    });
    await c.connect();
    await c.query(`LISTEN ${CHANNEL}`);
    client = c;
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
    async start(handler) {
      onPayload = handler;
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
