// Event streams opened with a dashboard session cookie end with the session: signing out ends every stream of
// that session at once (and only those: another session of the same key, and a stream opened with the key
// itself, go on), and the session reaching its expiry ends them at that moment (the server's clock moved, no
// request made). Across two processes on PostgreSQL, a sign-out on one ends the session's stream on the other
// (announced over LISTEN/NOTIFY, long before the periodic check would).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SESSION_TTL_MS } from '../../src/core/sessions.ts';
import { deleteSessionByHash } from '../../src/core/store/repos/sessions.ts';
import { openEvents, type EventReader } from '../helpers/eventStream.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { needsPostgres, useTwoServers } from '../helpers/twoServers.ts';

const T = { timeout: 30_000 };

/** Signs in at `apiUrl` with `apiKey`: the Cookie header value of the new session. */
async function signIn(apiUrl: string, apiKey: string): Promise<string> {
  const res = await fetch(`${apiUrl}/api/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: apiUrl },
    body: JSON.stringify({ apiKey }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  const line = res.headers.getSetCookie().find((c) => c.startsWith('sandtrap_session='));
  assert.ok(line !== undefined, 'a session cookie is set');
  return line.split(';')[0] as string;
}

async function signOut(apiUrl: string, cookie: string): Promise<void> {
  const res = await fetch(`${apiUrl}/api/v1/session`, {
    method: 'DELETE',
    headers: { cookie, origin: apiUrl },
  });
  assert.equal(res.status, 204);
}

/** The stream client sends the cookie and no key, as the dashboard's EventSource does. */
function withCookie(cookie: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.delete('authorization');
    headers.set('cookie', cookie);
    return fetch(input, { ...init, headers });
  };
}

const streamOf = (apiUrl: string, cookie: string, sandboxId?: string) =>
  openEvents(apiUrl, 'unused', {
    fetch: withCookie(cookie),
    ...(sandboxId === undefined ? {} : { sandboxId }),
  });

describeEachStore('event streams of dashboard sessions', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  const readers: EventReader[] = [];

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace();
  });
  after(async () => {
    for (const r of readers) r.close();
    await server.close();
  });

  async function open(cookie: string | undefined, sandboxId?: string): Promise<EventReader> {
    const reader =
      cookie === undefined
        ? await openEvents(server.apiUrl, ws.key, sandboxId === undefined ? {} : { sandboxId })
        : await streamOf(server.apiUrl, cookie, sandboxId);
    readers.push(reader);
    return reader;
  }

  it("signing out ends that session's streams, not another session's nor the key's", T, async () => {
    const sandbox = await ws.createSandbox({ name: 'watched' });
    const mine = await signIn(server.apiUrl, ws.key);
    const theirs = await signIn(server.apiUrl, ws.key);
    const myWorkspace = await open(mine);
    const mySandbox = await open(mine, sandbox.id);
    const theirStream = await open(theirs);
    const keyStream = await open(undefined);

    await signOut(server.apiUrl, mine);
    // The sign-out's answer came after its streams were ended: they end without another request or a check.
    await myWorkspace.ended;
    await mySandbox.ended;
    assert.equal(myWorkspace.error, undefined, 'ended by the server, cleanly');
    assert.equal(mySandbox.error, undefined);

    const next = await ws.createSandbox({ name: 'after sign-out' });
    for (const other of [theirStream, keyStream]) {
      const event = await other.next();
      assert.equal(event.event, 'sandbox.created');
      assert.equal((event.data as { id: string }).id, next.id);
      assert.equal(other.done, false);
    }
    assert.deepEqual(
      myWorkspace.buffered.map((e) => e.event),
      [],
      'nothing reached the ended stream',
    );
    // The signed-out cookie opens nothing any more.
    const refused = await fetch(`${server.apiUrl}/api/v1/events`, { headers: { cookie: mine } });
    assert.equal(refused.status, 401);
    await refused.body?.cancel();
  });

  it('a session reaching its expiry ends its streams at that moment', T, async () => {
    const cookie = await signIn(server.apiUrl, ws.key);
    const expiring = await open(cookie);
    const keyStream = await open(undefined);
    server.clock.advance(SESSION_TTL_MS + 1_000);
    try {
      await expiring.ended;
      assert.equal(expiring.error, undefined);
      const next = await ws.createSandbox({ name: 'after expiry' });
      const event = await keyStream.next();
      assert.equal((event.data as { id: string }).id, next.id, 'a stream opened with the key goes on');
    } finally {
      server.clock.advance(-(SESSION_TTL_MS + 1_000));
    }
  });

  it('the periodic check also ends the streams of a session that is gone', T, async () => {
    const cookie = await signIn(server.apiUrl, ws.key);
    const stream = await open(cookie);
    // As if the sign-out's announcement had been lost: the row goes, nothing is announced.
    const token = cookie.slice(cookie.indexOf('=') + 1);
    await deleteSessionByHash(getStore().db, createHash('sha256').update(token).digest('hex'));
    assert.equal(stream.done, false);
    await server.core.liveEvents.endStreamsOfUnusableKeys();
    await stream.ended;
  });
});

describe('a sign-out on one process ends the stream on another', { skip: needsPostgres }, () => {
  const servers = useTwoServers('sandtrap_sess');

  it(
    'sign in and out on B; the stream opened on A with that cookie ends, another session on A goes on',
    T,
    async () => {
      const A = servers.a();
      const B = servers.b();
      const mine = await signIn(B.apiUrl, servers.key());
      const theirs = await signIn(A.apiUrl, servers.key());
      const onA = await streamOf(A.apiUrl, mine);
      const otherOnA = await streamOf(A.apiUrl, theirs);
      try {
        await signOut(B.apiUrl, mine);
        // Ended by the announcement: the fallback check runs only every 30 s, past this test's timeout.
        await onA.ended;
        assert.equal(onA.error, undefined);
        const created = await fetch(`${B.apiUrl}/api/v1/sandboxes`, {
          method: 'POST',
          headers: { authorization: `Bearer ${servers.key()}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'after' }),
        });
        assert.equal(created.status, 201);
        const sandbox = (await created.json()) as { id: string };
        const event = await otherOnA.next(10_000);
        assert.equal(event.event, 'sandbox.created');
        assert.equal((event.data as { id: string }).id, sandbox.id);
      } finally {
        onA.close();
        otherOnA.close();
      }
    },
  );
});
