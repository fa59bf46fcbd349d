// Live event streams over SSE, read by the real client over fetch: every event kind in order on the sandbox and
// workspace streams; resume with Last-Event-ID (header and query) replays exactly the missed arrivals; unknown
// and too-old ids get `reset`; 401, 404 and 429 past 20 streams; the raw frames (retry once, id-only start);
// revoked keys and shutdown end streams.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Transporter } from 'nodemailer';
import { MAX_STREAMS_PER_KEY } from '../../src/core/liveEvents/service.ts';
import type { LiveEvent } from '../../src/client/events.ts';
import { openEvents, type EventReader } from '../helpers/eventStream.ts';
import { sandboxTransport } from '../helpers/mail.ts';
import { sendRecorded } from '../helpers/captureClient.ts';
import { eventually } from '../helpers/poll.ts';
import { assertProblem } from '../helpers/responses.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

const T = { timeout: 30_000 };

describeEachStore('REST live events', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  const transports: Transporter[] = [];
  const readers: EventReader[] = [];

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace();
  });
  after(async () => {
    for (const r of readers) r.close();
    for (const t of transports) t.close();
    await server.close();
  });

  async function open(options: { sandboxId?: string; lastEventId?: string } = {}, key = ws.key) {
    const reader = await openEvents(server.apiUrl, key, options);
    readers.push(reader);
    return reader;
  }

  async function mail(sandbox: Record<string, any>, subject: string): Promise<void> {
    const t = sandboxTransport(server.ports.smtp, sandbox);
    transports.push(t);
    await t.sendMail({
      from: 'app@example.com',
      to: 'user@example.com',
      subject,
      text: `body of ${subject}`,
    });
  }

  const capture = (sandboxId: string, path: string) =>
    sendRecorded(server.ports.capture, sandboxId, { method: 'POST', path, body: 'x' });

  const names = (events: LiveEvent[]) => events.map((e) => e.event);

  it('answers 401 without a key and with a bad one, before any stream byte', T, async () => {
    const none = await fetch(`${server.apiUrl}/api/v1/events`);
    await assertProblem(none, 401, 'unauthorized');
    const bad = await fetch(`${server.apiUrl}/api/v1/events`, {
      headers: { authorization: 'Bearer stk_nope' },
    });
    await assertProblem(bad, 401, 'unauthorized');
  });

  it("answers 404 for another workspace's sandbox and for one that does not exist", T, async () => {
    const other = await server.workspace();
    const theirs = await other.createSandbox();
    await assertProblem(await ws.api(`/sandboxes/${theirs.id}/events`), 404, 'not-found');
    await assertProblem(
      await ws.api('/sandboxes/00000000-0000-4000-8000-000000000000/events'),
      404,
      'not-found',
    );
    await assertProblem(await ws.api('/sandboxes/not-a-uuid/events'), 400, 'validation-error');
  });

  it('starts with retry: once and an id-only frame, as text/event-stream', T, async () => {
    const controller = new AbortController();
    const res = await ws.api('/events', { signal: controller.signal });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.ok(res.headers.get('x-request-id'));
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!/\n\nid: [^\n]+\n\n/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    // Ids are opaque (they reveal nothing of other workspaces' activity): 22 base64url characters.
    assert.match(text, /^retry: \d+\n\nid: [A-Za-z0-9_-]{22}\n\n$/);
    controller.abort();
  });

  it('streams every event kind of a sandbox in commit order, then ends with the sandbox', T, async () => {
    const whole = await open();
    const sandbox = await ws.createSandbox({ name: 'kinds' });
    const created = await whole.next();
    assert.equal(created.event, 'sandbox.created');
    assert.equal((created.data as any).id, sandbox.id);
    assert.equal((created.data as any).sandboxId, sandbox.id);
    assert.equal('smtpPassword' in created.data, false, 'the SMTP password is never streamed');

    const one = await open({ sandboxId: sandbox.id });
    await mail(sandbox, 'first');
    const received = await one.next();
    assert.equal(received.event, 'message.received');
    const message = received.data as any;
    assert.equal(message.subject, 'first');
    assert.equal(message.sandboxId, sandbox.id);
    assert.equal(message.isRead, false);
    assert.match(message.receivedAt, /^\d{4}-\d\d-\d\dT.*Z$/);
    const request = (await capture(sandbox.id, '/hook')).requestId;

    for (const path of [`messages/${message.id}`, `requests/${request}`]) {
      const res = await ws.api(`/sandboxes/${sandbox.id}/${path}`, {
        method: 'PATCH',
        body: '{"isRead":true}',
      });
      assert.ok(res.ok, `PATCH ${path}: ${res.status}`);
    }
    assert.equal(
      (await ws.api(`/sandboxes/${sandbox.id}/messages/${message.id}`, { method: 'DELETE' })).status,
      204,
    );
    assert.equal(
      (await ws.api(`/sandboxes/${sandbox.id}/requests/${request}`, { method: 'DELETE' })).status,
      204,
    );
    await mail(sandbox, 'second');
    await capture(sandbox.id, '/again');
    assert.equal((await ws.api(`/sandboxes/${sandbox.id}/messages`, { method: 'DELETE' })).status, 204);
    assert.equal((await ws.api(`/sandboxes/${sandbox.id}/requests`, { method: 'DELETE' })).status, 204);
    assert.equal(
      (await ws.api(`/sandboxes/${sandbox.id}`, { method: 'PUT', body: JSON.stringify({ name: 'renamed' }) }))
        .status,
      200,
    );
    assert.equal((await ws.api(`/sandboxes/${sandbox.id}`, { method: 'DELETE' })).status, 204);

    const expected = [
      'request.received',
      'message.updated',
      'request.updated',
      'message.deleted',
      'request.deleted',
      'message.received',
      'request.received',
      'messages.cleared',
      'requests.cleared',
      'sandbox.updated',
      'sandbox.deleted',
    ];
    const rest = await one.take(expected.length);
    assert.deepEqual(names(rest), expected);
    const byName = Object.fromEntries(rest.map((e) => [e.event, e.data as any]));
    assert.deepEqual(byName['message.updated'], { id: message.id, sandboxId: sandbox.id, isRead: true });
    assert.deepEqual(byName['request.updated'], { id: request, sandboxId: sandbox.id, isRead: true });
    assert.deepEqual(byName['message.deleted'], { id: message.id, sandboxId: sandbox.id });
    assert.deepEqual(byName['messages.cleared'], { sandboxId: sandbox.id });
    assert.equal(byName['sandbox.updated'].name, 'renamed');
    assert.equal('smtpPassword' in byName['sandbox.updated'], false);
    assert.deepEqual(byName['sandbox.deleted'], { id: sandbox.id, sandboxId: sandbox.id });
    await one.ended;
    assert.equal(one.error, undefined, 'the sandbox stream ends cleanly after sandbox.deleted');

    // The workspace stream saw the same events, in the same order, with the same ids.
    const wholeRest = await whole.take(1 + expected.length);
    assert.deepEqual(names(wholeRest), ['message.received', ...expected]);
    assert.deepEqual(
      wholeRest.slice(1).map((e) => e.id),
      rest.map((e) => e.id),
    );
    const ids = wholeRest.map((e) => e.id);
    assert.equal(new Set(ids).size, ids.length, 'every event has its own id');
    assert.equal(whole.done, false, 'the workspace stream stays open');
  });

  it('resumes with Last-Event-ID: exactly the missed arrivals, none twice, none lost', T, async () => {
    const sandbox = await ws.createSandbox({ name: 'resume' });
    const first = await open({ sandboxId: sandbox.id });
    for (const p of ['/a', '/b', '/c']) await capture(sandbox.id, p);
    const seen = await first.take(3);
    assert.deepEqual(
      seen.map((e) => (e.data as any).path),
      ['/a', '/b', '/c'],
    );
    first.close();
    await first.ended;
    const lastSeen = first.stream.lastEventId as string;
    assert.equal(lastSeen, seen[2]?.id);

    const missed: string[] = [];
    for (const p of ['/d', '/e', '/f', '/g']) missed.push((await capture(sandbox.id, p)).requestId);
    // Header and query parameter both resume.
    const resumed = await open({ sandboxId: sandbox.id, lastEventId: lastSeen });
    const replay = await resumed.take(4);
    assert.deepEqual(
      replay.map((e) => (e.data as any).id),
      missed,
    );
    await resumed.none(200);
    const viaQuery = await ws.api(
      `/sandboxes/${sandbox.id}/events?lastEventId=${encodeURIComponent(lastSeen)}`,
    );
    const text = await readUntil(viaQuery, (t) => (t.match(/event: request\.received/g) ?? []).length === 4);
    assert.deepEqual(
      [...text.matchAll(/"id":"([^"]+)"/g)].map((m) => m[1]),
      missed,
    );

    // Live arrivals follow the replay.
    await capture(sandbox.id, '/h');
    assert.equal(((await resumed.next()).data as any).path, '/h');
  });

  it('answers an unknown or foreign id with reset, then streams on', T, async () => {
    const sandbox = await ws.createSandbox({ name: 'reset' });
    // An id of the earlier "<xid>.<seq>" form, and one of the right shape nobody handed out.
    for (const bad of ['garbage', '99999999999.1', 'AAAAAAAAAAAAAAAAAAAAAA']) {
      const r = await open({ sandboxId: sandbox.id, lastEventId: bad });
      const reset = await r.next();
      assert.equal(reset.event, 'reset');
      assert.equal((reset.data as any).reason, 'unknown_id');
      assert.match((reset.data as any).message, /Reload your lists/);
      assert.match(reset.id, /^[A-Za-z0-9_-]{22}$/);
      await capture(sandbox.id, `/after-${bad}`);
      assert.equal((await r.next()).event, 'request.received');
      r.close();
    }
  });

  it('tells the workspace and the sandbox stream when a sandbox expires, also on resume', T, async () => {
    const sandbox = await ws.createSandbox({ name: 'short-lived', ephemeral: true, ttlMinutes: 1 });
    const all = await open();
    const one = await open({ sandboxId: sandbox.id });
    await capture(sandbox.id, '/before-expiry');
    // On PostgreSQL the sandbox's creation may still reach a stream opened right after it: skip to the arrival.
    let arrival = await all.next();
    while (arrival.event === 'sandbox.created') arrival = await all.next();
    assert.equal(arrival.event, 'request.received');
    server.clock.advance(2 * 60_000);
    try {
      // At the moment of expiry, before any sweep: both streams are told, and the sandbox's own ends.
      const expired = await all.next();
      assert.equal(expired.event, 'sandbox.deleted');
      assert.deepEqual(expired.data, { id: sandbox.id, sandboxId: sandbox.id, reason: 'expired' });
      let last = await one.next();
      while (last.event !== 'sandbox.deleted') last = await one.next();
      assert.deepEqual(last.data, { id: sandbox.id, sandboxId: sandbox.id, reason: 'expired' });
      await one.ended;
      assert.ok((await server.core.sweep()).expiredSandboxes >= 1);
      // The sweep's journaled deletion is not sent a second time on the same connection...
      const marker = await ws.createSandbox({ name: 'marker' });
      const next = await all.next();
      assert.equal(next.event, 'sandbox.created', 'no second sandbox.deleted');
      assert.equal((next.data as any).id, marker.id);
    } finally {
      server.clock.advance(-2 * 60_000);
    }
    // ...but a resume from the arrival replays it: it is journaled, not only announced.
    const again = await open({ lastEventId: arrival.id });
    const replayed = await again.next();
    assert.equal(replayed.event, 'sandbox.deleted');
    assert.deepEqual(replayed.data, { id: sandbox.id, sandboxId: sandbox.id });
  });

  it('answers an id older than the kept changes with reset (too_old)', T, async () => {
    const sandbox = await ws.createSandbox({ name: 'old' });
    const r = await open({ sandboxId: sandbox.id });
    for (const name of ['x', 'y']) {
      const res = await ws.api(`/sandboxes/${sandbox.id}`, { method: 'PUT', body: JSON.stringify({ name }) });
      assert.equal(res.status, 200);
    }
    // The first of two pruned changes: a resume from it would miss the second.
    const [old, newest] = (await r.take(2)).map((e) => e.id);
    r.close();
    server.clock.advance(25 * 3_600_000);
    assert.equal((await server.core.sweep()).ran, true);
    server.clock.advance(-25 * 3_600_000);
    const again = await open({ sandboxId: sandbox.id, lastEventId: old });
    const reset = await again.next();
    assert.equal(reset.event, 'reset');
    assert.equal((reset.data as any).reason, 'too_old');
    // The newest pruned change is still a good resume point: nothing after it is gone.
    const fine = await open({ sandboxId: sandbox.id, lastEventId: newest });
    await fine.none(200);
    await capture(sandbox.id, '/still-fine');
    assert.equal((await fine.next()).event, 'request.received');
  });

  it(
    `refuses a key's stream past ${MAX_STREAMS_PER_KEY} with 429, and takes one again once a stream closes`,
    T,
    async () => {
      const own = await server.workspace();
      const open20: EventReader[] = [];
      for (let i = 0; i < MAX_STREAMS_PER_KEY; i++) open20.push(await open({}, own.key));
      const refused = await own.api('/events');
      const problem = await assertProblem(refused, 429, 'rate-limited');
      assert.match(problem.detail as string, /20 event streams/);
      assert.ok(refused.headers.get('retry-after'));
      open20[0]?.close();
      await open20[0]?.ended;
      // The server sees the close a moment after the client: until then it may still say 429.
      await eventually('a slot to free up when a stream closes', async () => {
        const res = await own.api('/events', { signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
        await res?.body?.cancel();
        return res?.status === 200;
      });
    },
  );

  it("ends a revoked key's streams at the next key check", T, async () => {
    const own = await server.workspace();
    const created = (await (
      await own.api('/keys', { method: 'POST', body: JSON.stringify({ label: 'stream' }) })
    ).json()) as Record<string, any>;
    const r = await open({}, created.key as string);
    assert.equal((await own.api(`/keys/${created.id}`, { method: 'DELETE' })).status, 204);
    await server.core.liveEvents.endStreamsOfUnusableKeys();
    await r.ended;
    assert.equal(r.done, true);
  });
});

/** Reads a raw SSE response until `done(text)`; then cancels it. */
async function readUntil(res: Response, done: (text: string) => boolean): Promise<string> {
  assert.equal(res.status, 200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  // A stream that never says what is awaited is cut after a generous bound, and the caller's assertion on
  // the text so far fails.
  const timer = setTimeout(() => void reader.cancel(), 20_000);
  try {
    while (!done(text)) {
      const { value, done: end } = await reader.read();
      if (end) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    clearTimeout(timer);
  }
  await reader.cancel();
  return text;
}
