// Read flags on captured requests and the additive wait options over REST: isRead in request summaries and
// details, the isRead list filter, PATCH /requests/{id} (204, 400, 404 as for messages), `markRead` claims
// (concurrent claiming waits never share an item), `explain` and its Sandtrap-Wait-Misses header on 200 and
// 204, and the spec's wait contract unchanged when neither option is sent. Real SMTP, real capture listener.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import type { SendMailOptions } from 'nodemailer';
import { sandboxTransport } from '../helpers/mail.ts';
import { qs } from '../helpers/query.ts';
import { assertJson, assertNoContent, assertNotFound, validationAssertion } from '../helpers/responses.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { UUID_RE } from '../helpers/shapes.ts';
import { eventually } from '../helpers/poll.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { endWaitsAfterArrival, NEVER_SECONDS } from '../helpers/waitEnd.ts';

const T = { timeout: 20_000 };
const assertValidation = validationAssertion();

interface Report {
  nonMatchingArrivals: number;
  misses: Array<Record<string, unknown> & { id: string; failedFilters: string[] }>;
}

function missesOf(res: Response): Report | null {
  const header = res.headers.get('sandtrap-wait-misses');
  return header === null ? null : (JSON.parse(decodeURIComponent(header)) as Report);
}

describeEachStore('REST read flags and claiming waits', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace();
  });
  after(async () => {
    await server.close();
  });

  async function capture(sb: Record<string, any>, method: string, path: string): Promise<string> {
    const res = await fetch(`http://127.0.0.1:${server.ports.capture}/${sb.id}${path}`, { method });
    await res.arrayBuffer();
    const id = res.headers.get('x-sandtrap-request-id');
    assert.ok(id !== null && UUID_RE.test(id), `recorded, got ${res.status}`);
    server.clock.advance(5);
    return id;
  }

  async function sendMail(sb: Record<string, any>, mail: SendMailOptions): Promise<void> {
    const t = sandboxTransport(server.ports.smtp, sb);
    try {
      await t.sendMail({
        from: 'Sender <sender@alpha.test>',
        to: 'inbox@example.test',
        text: 'hello',
        ...mail,
      });
    } finally {
      t.close();
    }
    server.clock.advance(5);
  }

  const get = (path: string) => ws.api(path);
  const patch = (path: string, body: unknown) =>
    ws.api(path, { method: 'PATCH', body: typeof body === 'string' ? body : JSON.stringify(body) });

  it('requests carry isRead (false when captured); PATCH sets it and the list filters on it', T, async () => {
    const sb = await ws.createSandbox({ name: 'flags' });
    const a = await capture(sb, 'POST', '/a');
    const b = await capture(sb, 'GET', '/b');
    const base = `/sandboxes/${sb.id}/requests`;

    const detail = await assertJson<Record<string, any>>(await get(`${base}/${a}`));
    assert.equal(detail.isRead, false);
    const all = await assertJson<{ items: Array<{ id: string; isRead: boolean }> }>(await get(base));
    assert.deepEqual(
      all.items.map((r) => [r.id, r.isRead]),
      [
        [b, false],
        [a, false],
      ],
    );

    await assertNoContent(await patch(`${base}/${a}`, { isRead: true }));
    assert.equal((await assertJson<Record<string, any>>(await get(`${base}/${a}`))).isRead, true);
    const read = await assertJson<{ items: Array<{ id: string }> }>(
      await get(`${base}${qs({ isRead: 'true' })}`),
    );
    assert.deepEqual(
      read.items.map((r) => r.id),
      [a],
    );
    const unread = await assertJson<{ items: Array<{ id: string }> }>(
      await get(`${base}${qs({ isRead: 'false', q: '/b' })}`),
    );
    assert.deepEqual(
      unread.items.map((r) => r.id),
      [b],
    );

    // Back to unread: it matches isRead=false again, on the list and on the wait.
    await assertNoContent(await patch(`${base}/${a}`, { isRead: false }));
    const again = await assertJson<Record<string, any>>(
      await get(`${base}/wait${qs({ isRead: 'false', method: 'POST', timeoutSeconds: '0' })}`),
    );
    assert.equal(again.id, a);
    assert.equal(again.isRead, false, 'a wait without markRead changes nothing');
  });

  it('PATCH /requests/{id} refuses what PATCH /messages/{id} refuses, and 404s', T, async () => {
    const sb = await ws.createSandbox({ name: 'patch-errors' });
    const id = await capture(sb, 'GET', '/x');
    const path = `/sandboxes/${sb.id}/requests/${id}`;
    await assertValidation(await patch(path, {}), ['isRead']);
    await assertValidation(await patch(path, { isRead: 'yes' }), ['isRead']);
    await assertValidation(await patch(`/sandboxes/${sb.id}/requests/nope`, { isRead: true }), ['requestId']);
    await assertNotFound(
      await patch(`/sandboxes/${sb.id}/requests/${randomUUID()}`, { isRead: true }),
      'request',
    );
    await assertNotFound(
      await patch(`/sandboxes/${randomUUID()}/requests/${id}`, { isRead: true }),
      'sandbox',
    );
    const other = await server.workspace();
    await assertNotFound(
      await other.api(path, { method: 'PATCH', body: JSON.stringify({ isRead: true }) }),
      'another workspace',
    );
    assert.equal((await assertJson<Record<string, any>>(await get(path))).isRead, false, 'nothing changed');
    await assertValidation(await get(`/sandboxes/${sb.id}/requests${qs({ isRead: 'maybe' })}`), ['isRead']);
  });

  it(
    'without markRead the waits keep the spec contract: newest match, nothing marked, no header',
    T,
    async () => {
      const sb = await ws.createSandbox({ name: 'contract' });
      await capture(sb, 'POST', '/hook');
      const newest = await capture(sb, 'POST', '/hook');
      for (let i = 0; i < 2; i++) {
        const res = await get(`/sandboxes/${sb.id}/requests/wait${qs({ timeoutSeconds: '0' })}`);
        assert.equal((await assertJson<Record<string, any>>(res)).id, newest);
        assert.equal(res.headers.get('sandtrap-wait-misses'), null);
      }
      await sendMail(sb, { subject: 'One' });
      const m1 = await assertJson<Record<string, any>>(
        await get(`/sandboxes/${sb.id}/messages/wait${qs({ timeoutSeconds: '0' })}`),
      );
      const m2 = await assertJson<Record<string, any>>(
        await get(`/sandboxes/${sb.id}/messages/wait${qs({ timeoutSeconds: '0' })}`),
      );
      assert.equal(m1.id, m2.id);
      assert.equal(m2.isRead, false);
    },
  );

  it(
    'markRead with isRead=false hands out each item once, newest first, then waits for the next',
    T,
    async () => {
      const sb = await ws.createSandbox({ name: 'claims' });
      const older = await capture(sb, 'POST', '/hook');
      const newer = await capture(sb, 'POST', '/hook');
      const claim = (timeoutSeconds: string) =>
        get(`/sandboxes/${sb.id}/requests/wait${qs({ isRead: 'false', markRead: 'true', timeoutSeconds })}`);
      const first = await assertJson<Record<string, any>>(await claim('0'));
      assert.equal(first.id, newer);
      assert.equal(first.isRead, true, 'returned as it is now: read');
      assert.equal((await assertJson<Record<string, any>>(await claim('0'))).id, older);
      await assertNoContent(await claim('0'));

      const pending = claim('300');
      await waitUntilWaits(1);
      const next = await capture(sb, 'POST', '/hook');
      assert.equal((await assertJson<Record<string, any>>(await pending)).id, next);
      const listed = await assertJson<{ items: Array<{ isRead: boolean }> }>(
        await get(`/sandboxes/${sb.id}/requests`),
      );
      assert.ok(
        listed.items.every((r) => r.isRead),
        'every handed-out request is read',
      );
    },
  );

  it('concurrent claiming waits never return the same item (messages and requests)', T, async () => {
    const sb = await ws.createSandbox({ name: 'race' });
    for (let i = 0; i < 3; i++) await sendMail(sb, { subject: `Code ${i}` });
    for (let i = 0; i < 3; i++) await capture(sb, 'POST', `/r${i}`);
    const claims = (stream: 'messages' | 'requests') =>
      Promise.all(
        Array.from({ length: 8 }, () =>
          get(
            `/sandboxes/${sb.id}/${stream}/wait${qs({ isRead: 'false', markRead: 'true', timeoutSeconds: '0' })}`,
          ),
        ),
      );
    for (const stream of ['messages', 'requests'] as const) {
      const answers = await claims(stream);
      const ids: string[] = [];
      for (const res of answers) {
        if (res.status === 204) await assertNoContent(res);
        else ids.push((await assertJson<Record<string, any>>(res)).id);
      }
      assert.equal(ids.length, 3, `${stream}: three of eight waits got an item`);
      assert.equal(new Set(ids).size, 3, `${stream}: no item twice`);
    }

    // Open waits share one arrival: exactly one gets it, the others stay open and time out (ended as by their
    // timeout once they have seen it, however long the capture took).
    const waits = Array.from({ length: 4 }, () =>
      get(
        `/sandboxes/${sb.id}/requests/wait${qs({ isRead: 'false', markRead: 'true', timeoutSeconds: String(NEVER_SECONDS), explain: 'true' })}`,
      ),
    );
    await waitUntilWaits(4);
    const id = await endWaitsAfterArrival(server, ws, sb.id, 'requests', () => capture(sb, 'PUT', '/once'));
    const answers = await Promise.all(waits);
    assert.deepEqual(answers.map((r) => r.status).sort(), [200, 204, 204, 204]);
    for (const res of answers) {
      if (res.status === 200) assert.equal((await assertJson<Record<string, any>>(res)).id, id);
      else {
        await assertNoContent(res);
        // The losers saw the arrival: another wait marked it read first.
        const report = missesOf(res);
        assert.equal(report?.nonMatchingArrivals, 1);
        assert.deepEqual(
          report?.misses.map((m) => [m.id, m.failedFilters]),
          [[id, ['isRead']]],
        );
      }
    }
  });

  it('explain reports arrivals and unread items that did not match, on 204 and on 200', T, async () => {
    const sb = await ws.createSandbox({ name: 'explain' });
    await sendMail(sb, { subject: 'Weekly newsletter', from: 'News <news@beta.test>' });
    const wait = (query: Record<string, string>) =>
      get(`/sandboxes/${sb.id}/messages/wait${qs({ explain: 'true', ...query })}`);

    const pending = wait({
      subjectContains: 'verify',
      fromContains: 'alpha',
      timeoutSeconds: String(NEVER_SECONDS),
    });
    await waitUntilWaits(1);
    await endWaitsAfterArrival(server, ws, sb.id, 'messages', () =>
      sendMail(sb, { subject: 'Your code', from: 'Acme <noreply@acme.test>' }),
    );
    const res = await pending;
    await assertNoContent(res);
    const report = missesOf(res);
    assert.ok(report !== null, 'the 204 carries the header');
    assert.equal(report.nonMatchingArrivals, 1);
    assert.deepEqual(
      report.misses.map((m) => [m.subject, m.from, m.failedFilters]),
      [
        ['Your code', 'Acme <noreply@acme.test>', ['subjectContains', 'fromContains']],
        ['Weekly newsletter', 'News <news@beta.test>', ['subjectContains', 'fromContains']],
      ],
    );
    for (const m of report.misses) {
      assert.match(m.id, UUID_RE);
      assert.ok(!Number.isNaN(Date.parse(String(m.receivedAt))));
    }

    // A 200 reports the others, never the item it returns.
    const found = await wait({ subjectContains: 'code', timeoutSeconds: '0' });
    const item = await assertJson<Record<string, any>>(found);
    assert.equal(item.subject, 'Your code');
    assert.deepEqual(
      missesOf(found)?.misses.map((m) => [m.subject, m.failedFilters]),
      [['Weekly newsletter', ['subjectContains']]],
    );

    // Unicode survives the percent-encoded header.
    await sendMail(sb, { subject: 'Código de verificação 🔐 認証コード' });
    const uni = await wait({ subjectContains: 'nothing-like-it', timeoutSeconds: '0' });
    await assertNoContent(uni);
    assert.equal(missesOf(uni)?.misses[0]?.subject, 'Código de verificação 🔐 認証コード');
  });

  it('markRead and explain are booleans; anything else is refused naming them', T, async () => {
    const sb = await ws.createSandbox({ name: 'bad-options' });
    await assertValidation(
      await get(
        `/sandboxes/${sb.id}/messages/wait${qs({ markRead: 'yes', explain: '1', timeoutSeconds: '0' })}`,
      ),
      ['explain', 'markRead'],
    );
    await assertValidation(
      await get(`/sandboxes/${sb.id}/requests/wait${qs({ isRead: 'no', timeoutSeconds: '0' })}`),
      ['isRead'],
    );
  });

  async function waitUntilWaits(n: number): Promise<void> {
    await eventually(`${n} open waits`, () => server.core.waits.active() >= n, 20_000, 10);
  }
});
