// Event ids on live streams reveal nothing of other workspaces: while workspace B is busy (100 arrivals spread
// unevenly between A's own 20), A's stream carries only A's events, with ids of one fixed shape that follow
// neither the order of the events nor any count (as text or as numbers, so the gap between two of A's ids
// cannot be measured), while a resume from any of them replays exactly A's events after it. The same event has
// the same id on A's workspace and sandbox streams, so either id resumes either stream.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sendRecorded } from '../helpers/captureClient.ts';
import { openEvents, type EventReader } from '../helpers/eventStream.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

const T = { timeout: 60_000 };
const OWN = 20;
/** B's arrivals before each of A's: uneven, 100 in all. */
const BETWEEN = [0, 10, 0, 0, 25, 1, 0, 10, 0, 2, 0, 0, 30, 0, 5, 0, 0, 10, 0, 7];
const ID = /^[A-Za-z0-9_-]{22}$/;

describeEachStore('event ids reveal nothing of other workspaces', (getStore) => {
  let server: TestServer;
  const readers: EventReader[] = [];

  before(async () => {
    server = await startTestServer(getStore());
  });
  after(async () => {
    for (const r of readers) r.close();
    await server.close();
  });

  async function open(key: string, options: { sandboxId?: string; lastEventId?: string } = {}) {
    const reader = await openEvents(server.apiUrl, key, options);
    readers.push(reader);
    return reader;
  }

  it(
    "A's ids are opaque and unmoved by B's 100 arrivals; a resume from any of them is exact",
    T,
    async () => {
      assert.equal(
        BETWEEN.reduce((a, b) => a + b, 0),
        100,
      );
      const a = await server.workspace('busy-neighbour-a');
      const b = await server.workspace('busy-neighbour-b');
      const sandboxA = await a.createSandbox({ name: 'a' });
      const sandboxB = await b.createSandbox({ name: 'b' });
      const streamA = await open(a.key);
      const sandboxStreamA = await open(a.key, { sandboxId: sandboxA.id });
      const streamB = await open(b.key);

      const sentA: string[] = [];
      for (let i = 0; i < OWN; i++) {
        for (let j = 0; j < (BETWEEN[i] as number); j++) {
          await sendRecorded(server.ports.capture, sandboxB.id, { method: 'POST', path: `/b/${i}/${j}` });
        }
        sentA.push(
          (await sendRecorded(server.ports.capture, sandboxA.id, { method: 'POST', path: `/a/${i}` }))
            .requestId,
        );
      }

      // A stream opened without an id starts at this process's tail, which may not have read A's own
      // sandbox.created yet when a loaded PostgreSQL delivers it late: then that event leads the stream. It is
      // A's, from before the arrivals; anything else at the head is a failure below.
      let head = await streamA.next();
      if (head.event === 'sandbox.created') {
        assert.equal((head.data as { id: string }).id, sandboxA.id, "only A's own sandbox");
        head = await streamA.next();
      }
      const live = [head, ...(await streamA.take(OWN - 1))];
      assert.deepEqual(
        live.map((e) => (e.data as { id: string }).id),
        sentA,
        "A's stream carries A's arrivals in order, and nothing of B's",
      );
      const ids = live.map((e) => e.id);
      for (const id of ids) assert.match(id, ID);
      assert.equal(new Set(ids).size, OWN, 'one id per event');

      // Nothing to subtract: the ids are in no order of their own, as text or as 128-bit numbers. (A random
      // permutation of 20 comes out sorted once in 20! tries.)
      const asNumber = (id: string) => BigInt(`0x${Buffer.from(id, 'base64url').toString('hex')}`);
      const inTextOrder = [...ids].sort();
      const inNumberOrder = [...ids].sort((x, y) => (asNumber(x) < asNumber(y) ? -1 : 1));
      for (const order of [inTextOrder, inNumberOrder]) {
        assert.notDeepEqual(order, ids);
        assert.notDeepEqual(order, [...ids].reverse());
      }

      // B's stream saw only B's 100, under ids A never saw.
      const seenByB = await streamB.take(100);
      assert.ok(seenByB.every((e) => (e.data as { sandboxId: string }).sandboxId === sandboxB.id));
      const idsOfA = new Set(ids);
      assert.ok(seenByB.every((e) => !idsOfA.has(e.id)));

      // The sandbox stream gives each of A's events the same id as the workspace stream.
      let sandboxHead = await sandboxStreamA.next();
      if (sandboxHead.event === 'sandbox.created') sandboxHead = await sandboxStreamA.next();
      assert.deepEqual(
        [sandboxHead, ...(await sandboxStreamA.take(OWN - 1))].map((e) => e.id),
        ids,
      );

      // A resume from any of A's ids replays exactly A's events after it, on either stream.
      for (const from of [0, 1, 4, 12, OWN - 2]) {
        const resumed = await open(a.key, { lastEventId: ids[from] as string });
        const replayed = await resumed.take(OWN - 1 - from);
        assert.deepEqual(
          replayed.map((e) => e.id),
          ids.slice(from + 1),
          `resume after event ${from}`,
        );
        await resumed.none(100);
        resumed.close();
      }
      const onSandbox = await open(a.key, { sandboxId: sandboxA.id, lastEventId: ids[9] as string });
      assert.deepEqual(
        (await onSandbox.take(OWN - 10)).map((e) => e.id),
        ids.slice(10),
      );
      // The last id resumes with nothing missed, and the next arrival follows it.
      const atEnd = await open(a.key, { lastEventId: ids[OWN - 1] as string });
      const next = await sendRecorded(server.ports.capture, sandboxA.id, { method: 'POST', path: '/a/next' });
      const after = await atEnd.next();
      assert.equal(after.event, 'request.received');
      assert.equal((after.data as { id: string }).id, next.requestId);
    },
  );
});
