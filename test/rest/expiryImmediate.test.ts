// Expiry is a moment, not a sweep: when the server's clock passes an ephemeral sandbox's expiresAt, the waits
// open on it answer 404 saying it expired, its own event stream sends sandbox.deleted (reason "expired") and
// ends, and the workspace stream says so and stays open; all without the sweep (whose interval here is a day,
// and which afterwards still finds the expired row). A permanent sandbox's wait, open beside them, stays open.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sendRecorded } from '../helpers/captureClient.ts';
import { openEvents, type EventReader } from '../helpers/eventStream.ts';
import { eventually } from '../helpers/poll.ts';
import { assertProblem } from '../helpers/responses.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

const T = { timeout: 30_000 };
const TTL_MS = 60_000;
const EXPIRED = /^The sandbox expired at \d{4}-\d\d-\d\dT[\d:.]+Z; .*Create a new sandbox\.$/;

describeEachStore('expiry ends waits and streams at once', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  const readers: EventReader[] = [];

  before(async () => {
    // No sweep runs on its own during these tests: whatever ends at expiry, the sweep did not end it.
    server = await startTestServer(getStore(), { SWEEP_INTERVAL_SECONDS: '86400' });
    ws = await server.workspace();
  });
  after(async () => {
    for (const r of readers) r.close();
    await server.close();
  });

  const until = (cond: () => boolean, what: string) => eventually(what, cond);

  const ephemeral = (in_ = ws) => in_.createSandbox({ name: 'short-lived', ephemeral: true, ttlMinutes: 1 });

  /** Moves the clock past the TTL for the rest of `fn`, then back, so the next test starts unmoved. */
  async function pastExpiry(fn: () => Promise<void>): Promise<void> {
    server.clock.advance(TTL_MS + 1_000);
    try {
      await fn();
    } finally {
      server.clock.advance(-(TTL_MS + 1_000));
    }
  }

  it(
    'open REST waits answer 404 saying the sandbox expired; a permanent sandbox wait stays open',
    T,
    async () => {
      const box = await ephemeral();
      const permanent = await ws.createSandbox({ name: 'permanent' });
      const control = new AbortController();
      const messages = ws.api(`/sandboxes/${box.id}/messages/wait?timeoutSeconds=120`);
      const requests = ws.api(`/sandboxes/${box.id}/requests/wait?timeoutSeconds=120`);
      const stays = ws
        .api(`/sandboxes/${permanent.id}/requests/wait?timeoutSeconds=120`, { signal: control.signal })
        .catch(() => undefined);
      await until(() => server.core.waits.active() === 3, 'three open waits');

      await pastExpiry(async () => {
        const m = await assertProblem(await messages, 404, 'not-found');
        assert.match(m.detail ?? '', EXPIRED);
        assert.ok((m.detail ?? '').includes(box.expiresAt), `names the moment: ${m.detail}`);
        const r = await assertProblem(await requests, 404, 'not-found');
        assert.equal(r.detail, m.detail);
        assert.equal(server.core.waits.active(), 1, "the permanent sandbox's wait is still open");

        // What a new call answers now is the same.
        const fresh = await assertProblem(
          await ws.api(`/sandboxes/${box.id}/messages/wait?timeoutSeconds=5`),
          404,
          'not-found',
        );
        assert.equal(fresh.detail, m.detail);
        const list = await assertProblem(await ws.api(`/sandboxes/${box.id}/requests`), 404, 'not-found');
        assert.equal(list.detail, m.detail);

        // The sweep had not run: it still finds the expired row and removes it.
        assert.ok((await server.core.sweep()).expiredSandboxes >= 1);
      });
      control.abort();
      await stays;
      await until(() => server.core.waits.active() === 0, 'no open waits');
    },
  );

  it('an arrival committed before the expiry is the answer, not the expiry', T, async () => {
    const box = await ephemeral();
    const wait = ws.api(`/sandboxes/${box.id}/requests/wait?pathContains=/just-in-time&timeoutSeconds=120`);
    await until(() => server.core.waits.active() === 1, 'one open wait');
    const sent = await sendRecorded(server.ports.capture, box.id, { method: 'POST', path: '/just-in-time' });
    await pastExpiry(async () => {
      const res = await wait;
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { id: string }).id, sent.requestId);
    });
  });

  it(
    'an event stream of the sandbox sends sandbox.deleted (expired) and ends; the workspace stream goes on',
    T,
    async () => {
      // A workspace of its own: its stream is told of every sandbox of it that expires.
      const own = await server.workspace();
      const box = await ephemeral(own);
      const all = await openEvents(server.apiUrl, own.key);
      const one = await openEvents(server.apiUrl, own.key, { sandboxId: box.id });
      readers.push(all, one);
      const sent = await sendRecorded(server.ports.capture, box.id, { method: 'POST', path: '/before' });
      const arrival = await one.next();
      assert.equal(arrival.event, 'request.received');
      assert.equal((arrival.data as { id: string }).id, sent.requestId);
      let seen = await all.next();
      while (seen.event !== 'request.received') seen = await all.next();

      await pastExpiry(async () => {
        const last = await one.next();
        assert.equal(last.event, 'sandbox.deleted');
        assert.deepEqual(last.data, { id: box.id, sandboxId: box.id, reason: 'expired' });
        await one.ended;
        assert.equal(one.error, undefined, 'the server ended the stream cleanly');

        const told = await all.next();
        assert.equal(told.event, 'sandbox.deleted');
        assert.deepEqual(told.data, { id: box.id, sandboxId: box.id, reason: 'expired' });
        assert.equal(all.done, false, 'the workspace stream stays open');
        const next = await own.createSandbox({ name: 'after' });
        const created = await all.next();
        assert.equal(created.event, 'sandbox.created');
        assert.equal((created.data as { id: string }).id, next.id);

        // A new stream on it is refused like any other call.
        const refused = await assertProblem(await own.api(`/sandboxes/${box.id}/events`), 404, 'not-found');
        assert.match(refused.detail ?? '', EXPIRED);
        assert.ok((await server.core.sweep()).expiredSandboxes >= 1, 'the sweep had not run');
      });
    },
  );

  it('a sandbox created while the workspace stream is open is watched too', T, async () => {
    const own = await server.workspace();
    const all = await openEvents(server.apiUrl, own.key);
    readers.push(all);
    const box = await ephemeral(own);
    const created = await all.next();
    assert.equal(created.event, 'sandbox.created');
    await pastExpiry(async () => {
      const told = await all.next();
      assert.equal(told.event, 'sandbox.deleted');
      assert.deepEqual(told.data, { id: box.id, sandboxId: box.id, reason: 'expired' });
    });
    all.close();
  });
});
