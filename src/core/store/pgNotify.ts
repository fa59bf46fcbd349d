// LISTEN/NOTIFY transport for change events: one dedicated connection per process listens; notifications
// go out through the pool. A dropped listener reconnects; waits re-check the store meanwhile.
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

  return {
    async start(handler) {
      onPayload = handler;
      await connect();
    },
    async send(payload) {
      await pool.query('select pg_notify($1, $2)', [CHANNEL, payload]);
    },
    async close() {
      closed = true;
      await Promise.allSettled([client?.end(), pool.end()]);
    },
  };
}
