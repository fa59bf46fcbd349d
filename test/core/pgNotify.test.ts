// The LISTEN/NOTIFY transport on the machine's PostgreSQL: events sent together go out together (packed into
// few notifications), in order.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { EventTransport } from '../../src/core/events.ts';
import { createPgNotifyTransport, packPayloads } from '../../src/core/store/pgNotify.ts';

const pgUrl = process.env.TEST_DATABASE_URL;

function collector(prefix: string) {
  const seen: string[] = [];
  let wanted = 0;
  let done: () => void = () => {};
  return {
    seen,
    onPayload(payload: string) {
      if (!payload.startsWith(prefix)) return; // other processes share the channel
      seen.push(payload);
      if (seen.length >= wanted) done();
    },
    until(n: number, ms = 5_000): Promise<void> {
      wanted = n;
      if (seen.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`got ${seen.length} of ${n} notifications`)), ms);
        done = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
  };
}

/** Two started transports on the test database: `a` sends, the receiver collects what reaches the other. */
async function withSenderAndReceiver(
  fn: (a: EventTransport, receiver: ReturnType<typeof collector>, prefix: string) => Promise<void>,
): Promise<void> {
  const url = pgUrl as string;
  const prefix = `t-${randomBytes(4).toString('hex')}-`;
  const receiver = collector(prefix);
  const onError = (err: unknown) => assert.fail(String(err));
  const a = createPgNotifyTransport(url, { onError });
  const b = createPgNotifyTransport(url, { onError });
  try {
    await a.start(
      () => {},
      () => {},
    );
    await b.start(receiver.onPayload, () => {});
    await fn(a, receiver, prefix);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
}

describe('packPayloads', () => {
  it('joins payloads by newlines into notifications under the limit, in order', () => {
    const payloads = Array.from({ length: 500 }, (_, i) =>
      `origin:request:sandbox:${i}`.padEnd(40 + (i % 50), 'x'),
    );
    const packed = packPayloads(payloads, 1_000);
    assert.ok(packed.length > 1 && packed.length < payloads.length, String(packed.length));
    for (const p of packed) assert.ok(Buffer.byteLength(p) <= 1_000, String(Buffer.byteLength(p)));
    assert.deepEqual(packed.join('\n').split('\n'), payloads);
    assert.deepEqual(packPayloads([]), []);
    // One payload over the limit still goes, alone.
    const big = 'y'.repeat(1_200);
    assert.deepEqual(packPayloads(['a', big, 'b'], 1_000), ['a', big, 'b']);
  });
});

describe(
  'PostgreSQL LISTEN/NOTIFY transport',
  { skip: pgUrl ? false : 'TEST_DATABASE_URL is not set' },
  () => {
    it('delivers every event sent in one turn to another process, in the order sent', async () => {
      await withSenderAndReceiver(async (a, receiver, prefix) => {
        const payloads = Array.from({ length: 200 }, (_, i) => `${prefix}${i}`);
        // All sent in one synchronous burst, as a committed batch of captures publishes them.
        await Promise.all(payloads.map((p) => a.send(p)));
        await receiver.until(payloads.length);
        assert.deepEqual(receiver.seen, payloads);

        // Bursts in later turns still arrive, after the first.
        await a.send(`${prefix}late-1`);
        await a.send(`${prefix}late-2`);
        await receiver.until(payloads.length + 2);
        assert.deepEqual(receiver.seen.slice(-2), [`${prefix}late-1`, `${prefix}late-2`]);
      });
    });

    it('more events than one notification holds arrive complete and in order', async () => {
      await withSenderAndReceiver(async (a, receiver, prefix) => {
        const payloads = Array.from({ length: 3_000 }, (_, i) => `${prefix}${'e'.repeat(60)}:${i}`);
        await Promise.all(payloads.map((p) => a.send(p)));
        await receiver.until(payloads.length);
        assert.deepEqual(receiver.seen, payloads);
      });
    });

    it('events sent just before close still go out', async () => {
      await withSenderAndReceiver(async (a, receiver, prefix) => {
        const sent = [a.send(`${prefix}1`), a.send(`${prefix}2`)];
        await a.close();
        await Promise.all(sent);
        await receiver.until(2);
        assert.deepEqual(receiver.seen, [`${prefix}1`, `${prefix}2`]);
      });
    });

    it('a send that cannot reach the database rejects, so the bus can report it', async () => {
      const t = createPgNotifyTransport('postgres://postgres@127.0.0.1:1/none', { onError: () => {} });
      try {
        await assert.rejects(Promise.all([t.send('x'), t.send('y')]));
      } finally {
        await t.close();
      }
    });
  },
);
