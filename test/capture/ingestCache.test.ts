// HTTP capture behind the live-sandbox cache and group commit: no loss, stale rules, deletes, expiry.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { after, before, it } from 'node:test';
import type { components } from '../../openapi/schema.d.ts';
import type { Store } from '../../src/core/store/openStore.ts';
import { sendCapture, type Got } from '../helpers/captureClient.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { UUID_RE } from '../helpers/shapes.ts';
import { describeEachStore } from '../helpers/stores.ts';

type Summary = components['schemas']['RequestSummary'];
type Detail = components['schemas']['RequestDetail'];
type Page = components['schemas']['RequestPage'];
type Sandbox = Record<string, any>;

function capture(
  port: number,
  s: { method?: string; path: string; body?: Buffer | string; agent?: http.Agent },
): Promise<Got> {
  return sendCapture(port, s);
}

/** Writes `data` on a fresh socket and collects every byte the server sends until it closes. */
function exchange(port: number, data: string, timeoutMs = 3000): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.write(Buffer.from(data, 'latin1'));
  });
}

/** A POST with `Expect: 100-continue` whose body is never sent: what the server answers to the headers alone. */
function expectContinueWithoutBody(port: number, sandboxId: string, path: string): Promise<string> {
  return exchange(
    port,
    `POST /${sandboxId}${path} HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n` +
      'Content-Type: text/plain\r\nContent-Length: 10\r\nConnection: close\r\n\r\n',
  );
}

/**
 * A POST sent with `Expect: 100-continue` and held there: resolves once the server admitted it (sent
 * 100 Continue); `sendBody` then sends the body and resolves with everything after the 100 Continue.
 */
async function holdAtContinue(
  port: number,
  path: string,
  body: string,
): Promise<{ sendBody(): Promise<string> }> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  let received = '';
  let wake: (() => void) | undefined;
  let closed = false;
  socket.on('data', (c: Buffer) => {
    received += c.toString('latin1');
    wake?.();
  });
  socket.on('close', () => {
    closed = true;
    wake?.();
  });
  const waitFor = async (cond: () => boolean, what: string) => {
    // A generous bound: it fails only when the reply or the close never comes.
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      wake?.();
    }, 20_000);
    try {
      while (!cond()) {
        if (timedOut) {
          socket.destroy();
          assert.fail(
            `timed out waiting for ${what} on ${path}; got ${JSON.stringify(received.slice(0, 200))}`,
          );
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      clearTimeout(timer);
    }
  };
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: text/plain\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
  );
  const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';
  await waitFor(() => received.startsWith(CONTINUE) || closed, '100 Continue');
  assert.ok(received.startsWith(CONTINUE), `admitted with 100 Continue, got ${JSON.stringify(received)}`);
  return {
    async sendBody() {
      socket.write(body);
      await waitFor(() => closed, 'the reply');
      return received.slice(CONTINUE.length);
    },
  };
}

function assertNotFound(got: Got): void {
  const text = got.body.toString('utf8');
  assert.equal(got.status, 404, text);
  assert.match(String(got.headers['content-type']), /^application\/problem\+json/);
  assert.equal(JSON.parse(text).type, 'urn:sandtrap:problem:not-found');
  assert.equal(got.requestId, undefined, 'nothing recorded, so no X-Sandtrap-Request-Id');
}

async function countRequests(store: Store, sandboxId?: string): Promise<number> {
  let q = store.db.selectFrom('requests').select((eb) => eb.fn.countAll<string>().as('n'));
  if (sandboxId !== undefined) q = q.where('sandbox_id', '=', sandboxId);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

async function okJson<T>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  return JSON.parse(text) as T;
}

/** Every request of the sandbox over REST, following nextCursor. */
async function listAll(ws: TestServerWorkspace, sandboxId: string): Promise<Summary[]> {
  const out: Summary[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const query: string = cursor === null ? '?limit=200' : `?limit=200&cursor=${encodeURIComponent(cursor)}`;
    const page: Page = await okJson<Page>(await ws.api(`/sandboxes/${sandboxId}/requests${query}`));
    out.push(...page.items);
    cursor = page.nextCursor;
    if (cursor === null) return out;
  }
  assert.fail('too many pages');
}

async function detailOf(ws: TestServerWorkspace, sandboxId: string, id: string | undefined): Promise<Detail> {
  assert.ok(id !== undefined && UUID_RE.test(id), `a request id, got ${id}`);
  return okJson<Detail>(await ws.api(`/sandboxes/${sandboxId}/requests/${id}`));
}

async function setMocks(ws: TestServerWorkspace, sandboxId: string, mocks: Array<Record<string, unknown>>) {
  return okJson<Sandbox>(
    await ws.api(`/sandboxes/${sandboxId}/mocks`, { method: 'PUT', body: JSON.stringify({ mocks }) }),
  );
}

/** Runs `fn` over `items` with at most `limit` at a time. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i] as T);
      }
    }),
  );
  return out;
}

describeEachStore('HTTP capture: live-sandbox cache and group commit', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let port: number;

  before(async () => {
    // describeEachStore closes its store; the server must not close it a second time. Rate limits are not
    // under test here, and the sweep must not delete expired sandboxes behind the test's back.
    server = await startTestServer(
      { ...getStore(), close: async () => {} },
      { RATE_LIMITS: 'off', SWEEP_INTERVAL_SECONDS: '86400' },
    );
    ws = await server.workspace();
    port = server.ports.capture;
  });
  after(async () => {
    await server.close();
  });

  /** Another process's change: straight to the store, so this process's cache and bus hear nothing. */
  async function deleteBehindTheCache(sandboxId: string): Promise<void> {
    const res = await getStore().db.deleteFrom('sandboxes').where('id', '=', sandboxId).executeTakeFirst();
    assert.equal(res.numDeletedRows, 1n);
  }

  it('200 concurrent POSTs over 16 keep-alive connections: all 2xx, all listed once with their exact bodies', async () => {
    const sb = await ws.createSandbox({ name: 'burst' });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    try {
      // Even: UTF-8 text; odd: bytes that are not UTF-8 (0xff never is), so they come back as base64.
      const bodies = Array.from({ length: 200 }, (_, i) =>
        i % 2 === 0
          ? Buffer.from(`{"n":${i},"pad":"${randomBytes(8 + (i % 50)).toString('hex')}"}`)
          : Buffer.concat([Buffer.from([0xff, i]), randomBytes(16 + (i % 40))]),
      );
      const got = await Promise.all(
        bodies.map((body, i) => capture(port, { method: 'POST', path: `/${sb.id}/burst/${i}`, body, agent })),
      );
      for (const [i, g] of got.entries()) {
        assert.ok(g.status >= 200 && g.status < 300, `request ${i}: ${g.status} ${g.body.toString()}`);
        assert.ok(g.requestId !== undefined && UUID_RE.test(g.requestId), `request ${i} has a request id`);
      }
      const sockets = new Set(got.map((g) => g.socket));
      assert.ok(sockets.size <= 16, `at most 16 connections, used ${sockets.size}`);
      assert.ok(sockets.size > 1, 'several connections were in use at once');
      assert.equal(new Set(got.map((g) => g.requestId)).size, 200, 'every reply names its own request');

      const listed = await listAll(ws, sb.id);
      assert.equal(listed.length, 200);
      const ids = new Set(listed.map((r) => r.id));
      assert.equal(ids.size, 200, 'distinct ids');
      assert.deepEqual(
        ids,
        new Set(got.map((g) => g.requestId)),
        'the listed ids are the ids the replies gave',
      );
      assert.equal(await countRequests(getStore(), sb.id), 200);

      // Each reply's request id leads to the request that sender made: its path and its exact body.
      await mapLimit([...got.entries()], 16, async ([i, g]) => {
        const d = await detailOf(ws, sb.id, g.requestId);
        const sent = bodies[i] as Buffer;
        assert.equal(d.path, `/burst/${i}`);
        assert.equal(d.sizeBytes, sent.byteLength);
        if (i % 2 === 0) {
          assert.equal(d.bodyEncoding, 'utf8');
          assert.equal(d.body, sent.toString('utf8'));
        } else {
          assert.equal(d.bodyEncoding, 'base64');
          assert.equal(d.body, sent.toString('base64'));
        }
        assert.equal(d.bodyTruncated, false);
      });
    } finally {
      agent.destroy();
    }
  });

  it('rules changed in the store behind the cache (version bumped, no event): the next capture is answered and recorded by the new rule', async () => {
    const sb = await ws.createSandbox({ name: 'rules' });
    await setMocks(ws, sb.id, [{ name: 'old', pattern: '/hook', statusCode: 201, body: 'old rule' }]);
    // The first capture puts the sandbox, with its old rules, in the cache.
    const before = await capture(port, { method: 'POST', path: `/${sb.id}/hook`, body: 'one' });
    assert.equal(before.status, 201);
    assert.equal(before.body.toString(), 'old rule');

    // The new rules as the store keeps them: taken from a second sandbox created over REST.
    const donor = await ws.createSandbox({ name: 'donor' });
    await setMocks(ws, donor.id, [
      { name: 'new', pattern: '/hook', statusCode: 202, body: 'new rule {{method}}' },
      { name: 'new fallback', isFallback: true, statusCode: 404, body: 'new fallback' },
    ]);
    const db = getStore().db;
    const stored = await db
      .selectFrom('sandboxes')
      .select('mocks')
      .where('id', '=', donor.id)
      .executeTakeFirstOrThrow();
    const res = await db
      .updateTable('sandboxes')
      .set((eb) => ({ mocks: JSON.stringify(stored.mocks), version: eb('version', '+', 1) }))
      .where('id', '=', sb.id)
      .executeTakeFirst();
    assert.equal(res.numUpdatedRows, 1n);

    const afterChange = await capture(port, { method: 'POST', path: `/${sb.id}/hook`, body: 'two' });
    assert.equal(afterChange.status, 202, afterChange.body.toString());
    assert.equal(afterChange.body.toString(), 'new rule POST');
    const d = await detailOf(ws, sb.id, afterChange.requestId);
    assert.equal(d.mockStatusCode, 202);
    assert.equal(d.mockName, 'new');
    assert.equal(d.body, 'two');
    // Stored once, not once per attempt.
    assert.equal(await countRequests(getStore(), sb.id), 2);

    // The cache now holds the new rules: the new fallback answers a path the old rules never knew.
    const other = await capture(port, { path: `/${sb.id}/elsewhere` });
    assert.equal(other.status, 404);
    assert.equal(other.body.toString(), 'new fallback');
    const o = await detailOf(ws, sb.id, other.requestId);
    assert.equal(o.mockStatusCode, 404);
    assert.equal(o.mockName, 'new fallback');
    const listed = await listAll(ws, sb.id);
    assert.deepEqual(
      listed.map((r) => [r.mockStatusCode, r.mockName]).sort(),
      [
        [201, 'old'],
        [202, 'new'],
        [404, 'new fallback'],
      ].sort(),
    );
  });

  it('a sandbox deleted in the store behind the cache (no event): a capture gets 404 and nothing is stored', async () => {
    const sb = await ws.createSandbox({ name: 'doomed' });
    assert.equal((await capture(port, { path: `/${sb.id}/warm` })).status, 200, 'cached as live');
    await deleteBehindTheCache(sb.id);
    const total = await countRequests(getStore());

    assertNotFound(await capture(port, { method: 'POST', path: `/${sb.id}/after`, body: 'not kept' }));
    assertNotFound(await capture(port, { path: `/${sb.id}/again` }));
    assert.equal(await countRequests(getStore()), total, 'no request stored anywhere');
    assert.equal(await countRequests(getStore(), sb.id), 0);
    // The REST API agrees the sandbox is gone.
    assert.equal((await ws.api(`/sandboxes/${sb.id}/requests`)).status, 404);
  });

  it('one batch holding captures for a live sandbox and for one deleted behind the cache: the live ones are stored, the others get 404', async () => {
    const live = await ws.createSandbox({ name: 'live' });
    const gone = await ws.createSandbox({ name: 'gone' });
    assert.equal((await capture(port, { path: `/${gone.id}/warm` })).status, 200, 'cached as live');
    await deleteBehindTheCache(gone.id);
    // Every request is admitted first (each gets its 100 Continue, the deleted sandbox from the cache);
    // only then are all bodies sent at once, so the captures reach the store together.
    const held = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        holdAtContinue(port, `/${i % 2 === 0 ? live.id : gone.id}/mixed/${i}`, `body ${i}`),
      ),
    );
    const replies = await Promise.all(held.map((h) => h.sendBody()));
    for (const [i, r] of replies.entries()) {
      if (i % 2 === 0) assert.match(r, /^HTTP\/1\.1 200 /, `live request ${i}: ${r.slice(0, 200)}`);
      else assert.match(r, /^HTTP\/1\.1 404 /, `request ${i} to the deleted sandbox: ${r.slice(0, 200)}`);
    }
    const listed = await listAll(ws, live.id);
    assert.equal(listed.length, 20);
    assert.deepEqual(
      new Set(listed.map((r) => r.path)),
      new Set(Array.from({ length: 20 }, (_, k) => `/mixed/${k * 2}`)),
    );
    for (const r of listed) {
      const d = await detailOf(ws, live.id, r.id);
      assert.equal(d.body, `body ${r.path.replace('/mixed/', '')}`);
    }
    assert.equal(await countRequests(getStore(), gone.id), 0);
  });

  it('deleting through the REST API makes the very next capture 404, refused before any 100 Continue', async () => {
    const sb = await ws.createSandbox({ name: 'deleted over rest' });
    assert.equal((await capture(port, { path: `/${sb.id}/warm` })).status, 200, 'cached as live');
    assert.equal((await ws.api(`/sandboxes/${sb.id}`, { method: 'DELETE' })).status, 204);
    // The client waits for 100 Continue and never sends its body: the 404 must be the first answer.
    const raw = await expectContinueWithoutBody(port, sb.id, '/after-delete');
    assert.match(
      raw,
      /^HTTP\/1\.1 404 /,
      `the first status line is the 404, got ${JSON.stringify(raw.slice(0, 80))}`,
    );
    assert.doesNotMatch(raw, /100 Continue/);
    assertNotFound(await capture(port, { method: 'POST', path: `/${sb.id}/plain`, body: 'x' }));
    assert.equal(await countRequests(getStore(), sb.id), 0);
  });

  it('an ephemeral sandbox past its expiry is 404 while still cached, refused before any 100 Continue', async () => {
    const sb = await ws.createSandbox({ name: 'short', ephemeral: true, ttlMinutes: 1 });
    assert.equal((await capture(port, { path: `/${sb.id}/alive` })).status, 200, 'cached as live');
    // Still in the store (no sweep runs), but past expires_at by the server's clock.
    server.clock.advance(61_000);
    const raw = await expectContinueWithoutBody(port, sb.id, '/expired');
    assert.match(
      raw,
      /^HTTP\/1\.1 404 /,
      `the first status line is the 404, got ${JSON.stringify(raw.slice(0, 80))}`,
    );
    assert.doesNotMatch(raw, /100 Continue/);
    assertNotFound(await capture(port, { method: 'POST', path: `/${sb.id}/expired`, body: 'x' }));
    const row = await getStore()
      .db.selectFrom('sandboxes')
      .select('id')
      .where('id', '=', sb.id)
      .executeTakeFirst();
    assert.ok(row !== undefined, 'the row is still in the store: the 404 comes from the expiry, not a sweep');
    assert.equal(await countRequests(getStore(), sb.id), 1, 'only the capture made before expiry');
  });
});
