// REST for the dashboard's daily use: sandbox activity counts, the read flag on requests, mark all read,
// bulk delete, a clear up to what was seen (later arrivals kept), and replay of a request to a URL under the
// webhooks' target rules. Mail goes in over SMTP, requests through the capture listener; read back over HTTP.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { components } from '../../openapi/schema.d.ts';
import { openEvents } from '../helpers/eventStream.ts';
import { sandboxTransport } from '../helpers/mail.ts';
import { assertJson, assertNotFound, validationAssertion } from '../helpers/responses.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { UUID_RE } from '../helpers/shapes.ts';
import { describeEachStore } from '../helpers/stores.ts';

type Activity = components['schemas']['SandboxActivityList'];
type MessagePage = components['schemas']['MessagePage'];
type RequestPage = components['schemas']['RequestPage'];
type Replay = components['schemas']['ReplayResult'];

const assertValidation = validationAssertion({ messages: true });

describeEachStore('REST daily use', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;

  before(async () => {
    server = await startTestServer({ ...getStore(), close: async () => {} }, { RATE_LIMITS: 'off' });
    ws = await server.workspace();
  });
  after(async () => {
    await server.close();
  });

  async function sendMail(sb: Record<string, any>, subjects: string[]): Promise<void> {
    const t = sandboxTransport(server.ports.smtp, sb);
    try {
      for (const subject of subjects) {
        await t.sendMail({ from: 'Acme <a@acme.example>', to: 'b@example.com', subject, text: subject });
        server.clock.advance(1000);
      }
    } finally {
      t.close();
    }
  }

  async function capture(sb: Record<string, any>, path: string, init: RequestInit = {}): Promise<string> {
    const res = await fetch(`http://127.0.0.1:${server.ports.capture}/${sb.id}${path}`, init);
    await res.arrayBuffer();
    const id = res.headers.get('x-sandtrap-request-id');
    assert.ok(id !== null && UUID_RE.test(id), `recorded, got ${res.status}`);
    server.clock.advance(1000);
    return id;
  }

  const messages = async (sb: Record<string, any>) =>
    (await assertJson<MessagePage>(await ws.api(`/sandboxes/${sb.id}/messages`))).items;
  const requests = async (sb: Record<string, any>) =>
    (await assertJson<RequestPage>(await ws.api(`/sandboxes/${sb.id}/requests`))).items;
  const post = (path: string, body: unknown) => ws.api(path, { method: 'POST', body: JSON.stringify(body) });

  describe('GET /sandboxes/activity', () => {
    it('counts both streams, their unread items and the last arrival, per sandbox named', async () => {
      const busy = await ws.createSandbox({ name: 'busy' });
      const quiet = await ws.createSandbox({ name: 'quiet' });
      await sendMail(busy, ['one', 'two', 'three']);
      const r1 = await capture(busy, '/hook?a=1', { method: 'POST', body: '{}' });
      await capture(busy, '/hook');
      const first = (await messages(busy)).at(-1);
      assert.ok(first !== undefined);
      assert.equal(
        (
          await ws.api(`/sandboxes/${busy.id}/messages/${first.id}`, {
            method: 'PATCH',
            body: JSON.stringify({ isRead: true }),
          })
        ).status,
        204,
      );
      assert.equal(
        (
          await ws.api(`/sandboxes/${busy.id}/requests/${r1}`, {
            method: 'PATCH',
            body: JSON.stringify({ isRead: true }),
          })
        ).status,
        204,
      );
      const other = await (await server.workspace()).createSandbox({ name: 'not mine' });
      const got = await assertJson<Activity>(
        await ws.api(`/sandboxes/activity?ids=${busy.id},${quiet.id},${other.id}`),
      );
      const byId = new Map(got.items.map((a) => [a.sandboxId, a]));
      assert.deepEqual([...byId.keys()].sort(), [busy.id, quiet.id].sort(), 'another workspace is left out');
      const b = byId.get(busy.id);
      assert.ok(b !== undefined);
      assert.deepEqual([b.messages.total, b.messages.unread], [3, 2]);
      assert.deepEqual([b.requests.total, b.requests.unread], [2, 1]);
      const newestMail = (await messages(busy))[0];
      const newestRequest = (await requests(busy))[0];
      assert.equal(b.messages.lastReceivedAt, newestMail?.receivedAt);
      assert.equal(b.requests.lastReceivedAt, newestRequest?.receivedAt);
      assert.deepEqual(byId.get(quiet.id), {
        sandboxId: quiet.id,
        messages: { total: 0, unread: 0, lastReceivedAt: null },
        requests: { total: 0, unread: 0, lastReceivedAt: null },
      });
    });

    it('400 names ids when they are missing or not UUIDs', async () => {
      await assertValidation(await ws.api('/sandboxes/activity'), ['ids']);
      await assertValidation(await ws.api('/sandboxes/activity?ids=nope'), ['ids[0]']);
    });
  });

  describe('requests carry isRead', () => {
    it('a new request is unread; PATCH and the bulk read mark it, and the isRead filter follows', async () => {
      const sb = await ws.createSandbox({ name: 'read flags' });
      const a = await capture(sb, '/a');
      const b = await capture(sb, '/b');
      assert.deepEqual(
        (await requests(sb)).map((r) => [r.id, r.isRead]),
        [
          [b, false],
          [a, false],
        ],
      );
      const changed = await assertJson<{ changed: number }>(
        await post(`/sandboxes/${sb.id}/requests/read`, { ids: [a] }),
      );
      assert.equal(changed.changed, 1);
      const unread = await assertJson<RequestPage>(await ws.api(`/sandboxes/${sb.id}/requests?isRead=false`));
      assert.deepEqual(
        unread.items.map((r) => r.id),
        [b],
      );
    });
  });

  describe('POST /messages/read (mark all read)', () => {
    it('marks every message read, counts only those that changed, and can mark them unread again', async () => {
      const sb = await ws.createSandbox({ name: 'mark all' });
      await sendMail(sb, ['a', 'b', 'c']);
      const [newest] = await messages(sb);
      assert.ok(newest !== undefined);
      await ws.api(`/sandboxes/${sb.id}/messages/${newest.id}`, {
        method: 'PATCH',
        body: JSON.stringify({ isRead: true }),
      });
      const all = await assertJson<{ changed: number }>(await post(`/sandboxes/${sb.id}/messages/read`, {}));
      assert.equal(all.changed, 2, 'the one already read is not counted');
      assert.ok((await messages(sb)).every((m) => m.isRead));
      const back = await assertJson<{ changed: number }>(
        await post(`/sandboxes/${sb.id}/messages/read`, { ids: [newest.id], isRead: false }),
      );
      assert.equal(back.changed, 1);
      assert.deepEqual(
        (await messages(sb)).map((m) => m.isRead),
        [false, true, true],
      );
    });

    it('400 names a bad id; 404 for a sandbox of another workspace', async () => {
      const sb = await ws.createSandbox({ name: 'bad read' });
      await assertValidation(await post(`/sandboxes/${sb.id}/messages/read`, { ids: ['x'] }), ['ids[0]']);
      await assertValidation(await post(`/sandboxes/${sb.id}/messages/read`, { ids: [] }), ['ids']);
      const theirs = await (await server.workspace()).createSandbox({ name: 'theirs' });
      await assertNotFound(
        await post(`/sandboxes/${theirs.id}/messages/read`, {}),
        'sandbox of another workspace',
      );
    });
  });

  describe('POST /{stream}/delete', () => {
    it('deletes the messages named and nothing else', async () => {
      const sb = await ws.createSandbox({ name: 'bulk delete' });
      await sendMail(sb, ['keep', 'drop 1', 'drop 2']);
      const items = await messages(sb);
      const drop = items.filter((m) => m.subject?.startsWith('drop')).map((m) => m.id);
      const res = await assertJson<{ deleted: number }>(
        await post(`/sandboxes/${sb.id}/messages/delete`, { ids: drop }),
      );
      assert.equal(res.deleted, 2);
      assert.deepEqual(
        (await messages(sb)).map((m) => m.subject),
        ['keep'],
      );
    });

    it('a clear up to the newest item seen keeps what arrived after it (the undo window of the dashboard)', async () => {
      const sb = await ws.createSandbox({ name: 'clear up to' });
      await sendMail(sb, ['old 1', 'old 2']);
      const r1 = await capture(sb, '/old');
      const [seenMail] = await messages(sb);
      assert.ok(seenMail !== undefined);
      // Arrivals while the dashboard's undo window is open: the clear must not take them.
      await sendMail(sb, ['new']);
      const r2 = await capture(sb, '/new');
      const mailRes = await assertJson<{ deleted: number }>(
        await post(`/sandboxes/${sb.id}/messages/delete`, { upTo: seenMail.id }),
      );
      assert.equal(mailRes.deleted, 2);
      assert.deepEqual(
        (await messages(sb)).map((m) => m.subject),
        ['new'],
      );
      const reqRes = await assertJson<{ deleted: number }>(
        await post(`/sandboxes/${sb.id}/requests/delete`, { upTo: r1 }),
      );
      assert.equal(reqRes.deleted, 1);
      assert.deepEqual(
        (await requests(sb)).map((r) => r.id),
        [r2],
      );
    });

    it('an undone clear (never sent) loses nothing; an upTo no longer stored is a 404 that deletes nothing', async () => {
      const sb = await ws.createSandbox({ name: 'undo' });
      await sendMail(sb, ['a', 'b']);
      const before = await messages(sb);
      const [newest, older] = before;
      assert.ok(newest !== undefined && older !== undefined);
      assert.equal(
        (await ws.api(`/sandboxes/${sb.id}/messages/${newest.id}`, { method: 'DELETE' })).status,
        204,
      );
      await assertNotFound(
        await post(`/sandboxes/${sb.id}/messages/delete`, { upTo: newest.id }),
        'upTo gone',
      );
      assert.deepEqual(
        (await messages(sb)).map((m) => m.id),
        [older.id],
      );
    });

    it('400 when neither ids nor upTo is sent (DELETE on the stream is the clear-all)', async () => {
      const sb = await ws.createSandbox({ name: 'bad delete' });
      await assertValidation(await post(`/sandboxes/${sb.id}/requests/delete`, {}), ['ids']);
      await assertValidation(await post(`/sandboxes/${sb.id}/messages/delete`, { upTo: 'x' }), ['upTo']);
    });
  });

  describe('unknown paths', () => {
    it('a browser gets the dashboard (its not-found page) with 404; API paths and non-browsers keep problem+json', async () => {
      const html = { accept: 'text/html,application/xhtml+xml' };
      const page = await fetch(`${server.apiUrl}/no/such/page`, { headers: html });
      assert.equal(page.status, 404);
      assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
      assert.match(await page.text(), /<script[^>]+src="\/assets\//);
      for (const path of ['/api/v1/nope', '/mcp/nope', '/no/such/page']) {
        const headers = path === '/no/such/page' ? { accept: 'application/json' } : html;
        const res = await fetch(`${server.apiUrl}${path}`, { headers });
        assert.equal(res.status, 404, path);
        assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/, path);
        await res.body?.cancel();
      }
    });
  });

  describe('live events of bulk actions', () => {
    it('a bulk read sends one updated event per item changed; a clear that empties the stream sends one clear', async () => {
      const sb = await ws.createSandbox({ name: 'events' });
      const a = await capture(sb, '/a');
      const b = await capture(sb, '/b');
      const events = await openEvents(server.apiUrl, ws.key, { sandboxId: sb.id });
      try {
        await assertJson(await post(`/sandboxes/${sb.id}/requests/read`, {}));
        const updated = await events.take(2);
        assert.deepEqual(
          updated.map((e) => [e.event, (e.data as { id: string }).id]).sort(),
          [
            ['request.updated', a],
            ['request.updated', b],
          ].sort(),
        );
        await assertJson(await post(`/sandboxes/${sb.id}/requests/delete`, { ids: [a] }));
        const deleted = await events.next();
        assert.deepEqual([deleted.event, (deleted.data as { id: string }).id], ['request.deleted', a]);
        await assertJson(await post(`/sandboxes/${sb.id}/requests/delete`, { upTo: b }));
        assert.equal((await events.next()).event, 'requests.cleared');
      } finally {
        events.close();
      }
    });
  });

  describe('POST /requests/{id}/replay', () => {
    let target: http.Server;
    const seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> = [];
    let targetUrl = '';

    before(async () => {
      target = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          seen.push({
            method: req.method ?? '',
            url: req.url ?? '',
            headers: req.headers,
            body: Buffer.concat(chunks).toString(),
          });
          res.writeHead(201, { 'x-target': 'yes', 'content-type': 'application/json' });
          res.end('{"replayed":true}');
        });
      });
      await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
      targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    });
    after(async () => {
      target.closeAllConnections();
      await new Promise((resolve) => target.close(resolve));
    });

    it('sends the method, headers and body to the URL typed and returns the answer', async () => {
      const sb = await ws.createSandbox({ name: 'replay' });
      const id = await capture(sb, '/orders?x=1', {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-signature': 'sig-123' },
        body: '{"order":42}',
      });
      const got = await assertJson<Replay>(
        await post(`/sandboxes/${sb.id}/requests/${id}/replay`, { url: `${targetUrl}/local/orders?x=1` }),
      );
      assert.equal(got.statusCode, 201);
      assert.equal(got.error, null);
      assert.equal(got.body, '{"replayed":true}');
      assert.equal(got.method, 'PUT');
      assert.ok(got.headers.some((h) => h.name.toLowerCase() === 'x-target' && h.value === 'yes'));
      const last = seen.at(-1);
      assert.ok(last !== undefined);
      assert.equal(last.method, 'PUT');
      assert.equal(last.url, '/local/orders?x=1');
      assert.equal(last.headers['x-signature'], 'sig-123');
      assert.equal(last.headers.host, new URL(targetUrl).host, 'Host is the target, not the capture host');
      assert.equal(last.body, '{"order":42}');
    });

    it('a target that does not answer is a 200 with the reason', async () => {
      const sb = await ws.createSandbox({ name: 'replay down' });
      const id = await capture(sb, '/x');
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      const got = await assertJson<Replay>(
        await post(`/sandboxes/${sb.id}/requests/${id}/replay`, { url: `http://127.0.0.1:${port}/` }),
      );
      assert.equal(got.statusCode, null);
      assert.match(String(got.error), /refused the connection/);
    });

    it('400 names the rule for a target outside the policy, and nothing is sent', async () => {
      const sb = await ws.createSandbox({ name: 'replay refused' });
      const id = await capture(sb, '/x');
      const count = seen.length;
      const res = await post(`/sandboxes/${sb.id}/requests/${id}/replay`, { url: 'http://10.1.2.3/hook' });
      const body = await assertValidation(res, ['url']);
      assert.match(String(body.detail), /10\.1\.2\.3 is refused: .*private.*set WEBHOOK_TARGETS/);
      await assertValidation(await post(`/sandboxes/${sb.id}/requests/${id}/replay`, { url: 'ftp://x/' }), [
        'url',
      ]);
      assert.equal(seen.length, count);
    });

    it('404 for a request that is not stored', async () => {
      const sb = await ws.createSandbox({ name: 'replay 404' });
      await assertNotFound(
        await post(`/sandboxes/${sb.id}/requests/${crypto.randomUUID()}/replay`, { url: targetUrl }),
        'no such request',
      );
    });
  });
});
