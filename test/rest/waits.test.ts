// REST long-poll waits: messages/wait and requests/wait return the newest existing match at once, else the
// first matching arrival, else 204 on timeout; validation, 404 (missing, other workspace, deleted or swept
// while waiting), fan-out of one arrival to hundreds of waiters, release on client abort, the per-key cap
// on concurrent waits, and shutdown. Mail goes in through real SMTP (nodemailer), requests through the
// real capture listener, and waits are real HTTP long polls.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { SendMailOptions, Transporter } from 'nodemailer';
import type { components } from '../../openapi/schema.d.ts';
import { sandboxTransport } from '../helpers/mail.ts';
import { assertNoContent, assertProblem, validationAssertion } from '../helpers/responses.ts';
import { qs } from '../helpers/query.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { MESSAGE_DETAIL_KEYS, REQUEST_DETAIL_KEYS, UUID_RE } from '../helpers/shapes.ts';
import { eventually } from '../helpers/poll.ts';
import { describeEachStore, storeBackends } from '../helpers/stores.ts';

type MessageDetail = components['schemas']['MessageDetail'];
type RequestDetail = components['schemas']['RequestDetail'];

/**
 * A hung wait fails the test instead of the run. "At once" is asserted by this too: those waits are given
 * timeoutSeconds=300 (or 0 with nothing to find, whose default would be 30 s), so one that sat out its
 * timeout cannot finish inside it. No test measures how long an answer took (timings are in bench/waits.ts).
 */
const T = { timeout: 25_000 };
/** For waits that must answer on an event, not on their timeout: longer than any test may run. */
const NEVER = '300';

// ---- small utilities ----

/** Polls `cond` until it holds (a generous bound: it fails only when the state never comes). */
async function waitUntil(cond: () => boolean, what: string): Promise<void> {
  await eventually(what, cond, 20_000, 10);
}

/** Tracks whether `p` has settled, so a test can ask right after an event it caused. */
function track<X>(p: Promise<X>): { promise: Promise<X>; readonly settled: boolean } {
  let settled = false;
  const promise = p.finally(() => (settled = true));
  promise.catch(() => undefined);
  return {
    promise,
    get settled() {
      return settled;
    },
  };
}

/** A 400 validation problem whose `errors` name exactly `paths`. */
const assertValidation = validationAssertion();

async function json<X>(res: Response, status = 200): Promise<X> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  return JSON.parse(text) as X;
}

/** A fetch that has been aborted on purpose: its rejection is expected. */
function quietly(p: Promise<Response>): Promise<Response | undefined> {
  return p.then(
    async (res) => {
      await res.arrayBuffer().catch(() => undefined);
      return res;
    },
    () => undefined,
  );
}

describeEachStore('REST waits', (getStore) => {
  let server: TestServer;
  const transports = new Map<string, Transporter>();

  before(async () => {
    // The suite's store is closed by describeEachStore after the server.
    server = await startTestServer(getStore());
  });
  after(async () => {
    for (const t of transports.values()) t.close();
    // After an aborted fetch, undici opens a spare connection that never carries a request; Node's
    // server.close() does not count such a socket as idle and would wait for the client to drop it.
    server.api.server.closeAllConnections();
    await server.close();
  });

  interface Box {
    ws: TestServerWorkspace;
    sb: Record<string, any>;
  }

  async function newBox(ws?: TestServerWorkspace, body?: Record<string, unknown>): Promise<Box> {
    const w = ws ?? (await server.workspace());
    return { ws: w, sb: await w.createSandbox(body ?? { name: 'waits' }) };
  }

  /** Sends one mail to the sandbox over SMTP; the clock then moves 5 ms so arrivals are strictly ordered. */
  async function sendMail(box: Box, mail: SendMailOptions): Promise<void> {
    let t = transports.get(box.sb.id);
    if (t === undefined) {
      t = sandboxTransport(server.ports.smtp, box.sb, { pool: true, maxConnections: 1 });
      transports.set(box.sb.id, t);
    }
    await t.sendMail({ from: 'sender@alpha.test', to: 'inbox@example.test', text: 'hello', ...mail });
    server.clock.advance(5);
  }

  /** Sends one request to the sandbox's capture host; returns the id it was recorded under. */
  async function capture(box: Box, method: string, path: string, body?: string): Promise<string> {
    const res = await fetch(`http://127.0.0.1:${server.ports.capture}/${box.sb.id}${path}`, {
      method,
      ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
    });
    await res.arrayBuffer();
    const id = res.headers.get('x-sandtrap-request-id');
    assert.ok(id !== null && UUID_RE.test(id), `recorded, got ${res.status}`);
    server.clock.advance(5);
    return id;
  }

  function messageWait(
    box: Box,
    query: Record<string, string>,
    init: RequestInit = {},
    ws = box.ws,
  ): Promise<Response> {
    return ws.api(`/sandboxes/${box.sb.id}/messages/wait${qs(query)}`, init);
  }

  function requestWait(
    box: Box,
    query: Record<string, string>,
    init: RequestInit = {},
    ws = box.ws,
  ): Promise<Response> {
    return ws.api(`/sandboxes/${box.sb.id}/requests/wait${qs(query)}`, init);
  }

  /** Waits until `n` waits are open on the server (each has subscribed to arrivals by then). */
  function activeWaits(n: number): Promise<void> {
    return waitUntil(() => server.core.waits.active() === n, `${n} open waits`);
  }

  /** A 200 message detail: the full shape, identical to GET /messages/{id}. */
  async function assertMessage(res: Response, box: Box): Promise<MessageDetail> {
    const body = await json<MessageDetail>(res);
    assert.deepEqual(Object.keys(body).sort(), MESSAGE_DETAIL_KEYS);
    assert.match(body.id, UUID_RE);
    const read = await json<MessageDetail>(await box.ws.api(`/sandboxes/${box.sb.id}/messages/${body.id}`));
    assert.deepEqual(body, read);
    return body;
  }

  /** A 200 request detail: the full shape, identical to GET /requests/{id}. */
  async function assertRequest(res: Response, box: Box): Promise<RequestDetail> {
    const body = await json<RequestDetail>(res);
    assert.deepEqual(Object.keys(body).sort(), REQUEST_DETAIL_KEYS);
    assert.match(body.id, UUID_RE);
    const read = await json<RequestDetail>(await box.ws.api(`/sandboxes/${box.sb.id}/requests/${body.id}`));
    assert.deepEqual(body, read);
    return body;
  }

  interface AgreeCase {
    name: string;
    query: Record<string, string>;
    send(box: Box): Promise<unknown>;
    /** The answer both ways; undefined: only that both ways agree. */
    expected: 200 | 204 | undefined;
  }

  /**
   * The same filter must give the same answer whether the item was already captured (a store query) or
   * arrives while the wait is open (checked on the arrival). Each case gets its own sandbox; all run at once.
   */
  async function assertPathsAgree(
    cases: AgreeCase[],
    wait: (box: Box, query: Record<string, string>) => Promise<Response>,
  ): Promise<void> {
    const boxes = await Promise.all(cases.map(() => newBox()));
    const status = async (p: Promise<Response>) => {
      const res = await p;
      await res.arrayBuffer();
      return res.status;
    };
    const arrivals = cases.map((c, i) =>
      status(wait(boxes[i] as Box, { ...c.query, timeoutSeconds: NEVER })),
    );
    // An unfiltered wait beside each: it returns on the item, and the filtered wait judged the same arrival in
    // the same turn (one shared store read), so once these are back every filtered wait has decided.
    const judged = cases.map((_, i) => status(wait(boxes[i] as Box, { timeoutSeconds: NEVER })));
    await activeWaits(cases.length * 2);
    await Promise.all(cases.map((c, i) => c.send(boxes[i] as Box)));
    assert.deepEqual(
      await Promise.all(judged),
      cases.map(() => 200),
    );
    // What did not match is still open: end it the way its timeout would (204), without waiting for one.
    server.core.waits.endAll();
    const onArrival = await Promise.all(arrivals);
    const existing = await Promise.all(
      cases.map((c, i) => status(wait(boxes[i] as Box, { ...c.query, timeoutSeconds: '0' }))),
    );
    const got = cases.map((c, i) => `${c.name}: on arrival ${onArrival[i]}, existing ${existing[i]}`);
    const want = cases.map((c, i) => {
      const x = c.expected ?? onArrival[i];
      return `${c.name}: on arrival ${x}, existing ${x}`;
    });
    assert.deepEqual(got, want);
  }

  describe('messages/wait', () => {
    describe('200: an existing match', () => {
      it(
        'returns the newest of several existing matches at once, as the full Message detail',
        T,
        async () => {
          const box = await newBox();
          await sendMail(box, { subject: 'Code 1 for you' });
          await sendMail(box, { subject: 'Code 2 for you' });
          await sendMail(box, { subject: 'Code 3 for you' });
          await sendMail(box, { subject: 'unrelated newest' });
          // A 300 s wait that finishes inside the test's timeout answered at once.
          const res = await messageWait(box, { subjectContains: 'for you', timeoutSeconds: NEVER });
          const m = await assertMessage(res, box);
          assert.equal(m.subject, 'Code 3 for you');
          assert.equal(m.textBody?.trim(), 'hello');
          assert.equal(server.core.waits.active(), 0);
        },
      );

      it('timeoutSeconds=0 answers at once with an existing match', T, async () => {
        const box = await newBox();
        await sendMail(box, { subject: 'zero timeout' });
        const m = await assertMessage(await messageWait(box, { timeoutSeconds: '0' }), box);
        assert.equal(m.subject, 'zero timeout');
      });
    });

    describe('200: the first matching arrival', () => {
      it('a wait started before the arrival returns on it', T, async () => {
        const box = await newBox();
        // Open for 300 s: a 200 inside the test's timeout is the arrival waking it (a timeout is 204).
        const pending = messageWait(box, { timeoutSeconds: NEVER });
        await activeWaits(1);
        const subject = `arrives later ${randomUUID()}`;
        await sendMail(box, { subject });
        const m = await assertMessage(await pending, box);
        assert.equal(m.subject, subject);
        assert.equal(server.core.waits.active(), 0);
      });

      it('ignores non-matching arrivals that come first', T, async () => {
        const box = await newBox();
        const pending = messageWait(box, { subjectContains: 'wanted', timeoutSeconds: NEVER });
        await activeWaits(1);
        await sendMail(box, { subject: 'something else' });
        await sendMail(box, { subject: 'another one' });
        await sendMail(box, { subject: 'the WANTED one' });
        // Had an earlier arrival answered, this would be its subject (or a 204).
        const m = await assertMessage(await pending, box);
        assert.equal(m.subject, 'the WANTED one');
      });
    });

    describe('filters', () => {
      it('subjectContains is a case-insensitive substring', T, async () => {
        const box = await newBox();
        await sendMail(box, { subject: 'Your Verification Code is 123456' });
        const m = await assertMessage(
          await messageWait(box, { subjectContains: 'verification CODE', timeoutSeconds: '0' }),
          box,
        );
        assert.equal(m.subject, 'Your Verification Code is 123456');
        await assertNoContent(await messageWait(box, { subjectContains: 'password', timeoutSeconds: '0' }));
        // A waiter on a subject is woken only by that subject.
        const pending = messageWait(box, { subjectContains: 'reset', timeoutSeconds: NEVER });
        await activeWaits(1);
        await sendMail(box, { subject: 'Welcome' });
        await sendMail(box, { subject: 'Password RESET link' });
        assert.equal((await assertMessage(await pending, box)).subject, 'Password RESET link');
      });

      it('fromContains is a substring of the From header', T, async () => {
        const box = await newBox();
        await sendMail(box, {
          subject: 'from alice',
          from: { name: 'Alice Sender', address: 'alice@alpha.test' },
        });
        await sendMail(box, { subject: 'from bob', from: 'bob@beta.test' });
        const m = await assertMessage(
          await messageWait(box, { fromContains: 'alice@alpha', timeoutSeconds: '0' }),
          box,
        );
        assert.equal(m.subject, 'from alice');
        assert.equal(
          (await assertMessage(await messageWait(box, { fromContains: 'Sender', timeoutSeconds: '0' }), box))
            .subject,
          'from alice',
        );
        await assertNoContent(await messageWait(box, { fromContains: 'carol@', timeoutSeconds: '0' }));
        const pending = messageWait(box, { fromContains: 'carol@gamma', timeoutSeconds: NEVER });
        await activeWaits(1);
        await sendMail(box, { subject: 'from bob again', from: 'bob@beta.test' });
        await sendMail(box, { subject: 'from carol', from: 'Carol <carol@gamma.test>' });
        assert.equal((await assertMessage(await pending, box)).subject, 'from carol');
      });

      it('capturedFor is an exact, case-insensitive envelope address (a Bcc matches)', T, async () => {
        const box = await newBox();
        await sendMail(box, {
          subject: 'with bcc',
          to: 'visible@x.test',
          envelope: { from: 'sender@alpha.test', to: ['visible@x.test', 'hidden@bcc.test'] },
        });
        const m = await assertMessage(
          await messageWait(box, { capturedFor: 'HIDDEN@Bcc.Test', timeoutSeconds: '0' }),
          box,
        );
        assert.equal(m.subject, 'with bcc');
        assert.deepEqual(m.to, ['visible@x.test']);
        assert.ok(m.capturedFor.includes('hidden@bcc.test'), JSON.stringify(m.capturedFor));
        // Not a substring match.
        await assertNoContent(await messageWait(box, { capturedFor: 'hidden@bcc', timeoutSeconds: '0' }));
        await assertNoContent(await messageWait(box, { capturedFor: 'idden@bcc.test', timeoutSeconds: '0' }));
        const pending = messageWait(box, { capturedFor: 'late@bcc.test', timeoutSeconds: NEVER });
        await activeWaits(1);
        await sendMail(box, { subject: 'to someone else', to: 'other@x.test' });
        await sendMail(box, {
          subject: 'late bcc',
          to: 'visible@x.test',
          envelope: { from: 'sender@alpha.test', to: ['visible@x.test', 'Late@BCC.test'] },
        });
        assert.equal((await assertMessage(await pending, box)).subject, 'late bcc');
      });

      it('isRead follows PATCH of the read flag', T, async () => {
        const box = await newBox();
        await sendMail(box, { subject: 'read me' });
        await assertNoContent(await messageWait(box, { isRead: 'true', timeoutSeconds: '0' }));
        const unread = await assertMessage(
          await messageWait(box, { isRead: 'false', timeoutSeconds: '0' }),
          box,
        );
        assert.equal(unread.isRead, false);
        const patch = await box.ws.api(`/sandboxes/${box.sb.id}/messages/${unread.id}`, {
          method: 'PATCH',
          body: JSON.stringify({ isRead: true }),
        });
        assert.equal(patch.status, 204, await patch.text());
        const read = await assertMessage(
          await messageWait(box, { isRead: 'true', timeoutSeconds: '0' }),
          box,
        );
        assert.equal(read.id, unread.id);
        assert.equal(read.isRead, true);
        await assertNoContent(await messageWait(box, { isRead: 'false', timeoutSeconds: '0' }));
        // A new unread arrival wakes an isRead=false waiter; the read message does not satisfy it.
        const pending = messageWait(box, { isRead: 'false', timeoutSeconds: NEVER });
        await activeWaits(1);
        await sendMail(box, { subject: 'second, unread' });
        const next = await assertMessage(await pending, box);
        assert.equal(next.subject, 'second, unread');
        assert.equal(next.isRead, false);
      });

      it('since: an older match is not returned; the wait returns the new one', T, async () => {
        const box = await newBox();
        await sendMail(box, { subject: 'otp old' });
        server.clock.advance(50);
        const since = server.clock.now().toISOString();
        await assertNoContent(await messageWait(box, { subjectContains: 'otp', since, timeoutSeconds: '0' }));
        const pending = messageWait(box, { subjectContains: 'otp', since, timeoutSeconds: NEVER });
        await activeWaits(1);
        // Had the old match answered, it would be the subject below.
        await sendMail(box, { subject: 'otp new' });
        assert.equal((await assertMessage(await pending, box)).subject, 'otp new');
        // Inclusive: `since` equal to the old message's receivedAt returns it.
        const old = await json<{ items: Array<{ id: string; receivedAt: string; subject: string }> }>(
          await box.ws.api(`/sandboxes/${box.sb.id}/messages?q=otp+old`),
        );
        const oldAt = old.items[0]?.receivedAt;
        assert.ok(oldAt !== undefined);
        const again = await messageWait(box, {
          subjectContains: 'otp old',
          since: oldAt,
          timeoutSeconds: '0',
        });
        assert.equal((await assertMessage(again, box)).subject, 'otp old');
      });

      it('filters combine with AND', T, async () => {
        const box = await newBox();
        await sendMail(box, { subject: 'combo hit', from: 'x@one.test' });
        await sendMail(box, { subject: 'combo miss', from: 'y@two.test' });
        const m = await assertMessage(
          await messageWait(box, { subjectContains: 'combo', fromContains: 'one.test', timeoutSeconds: '0' }),
          box,
        );
        assert.equal(m.subject, 'combo hit');
        await assertNoContent(
          await messageWait(box, { subjectContains: 'hit', fromContains: 'two.test', timeoutSeconds: '0' }),
        );
      });
    });

    describe('an existing match and an arrival are judged alike', () => {
      const subject = (text: string) => (box: Box) => sendMail(box, { subject: text });
      it('substring filters: LIKE wildcards are literal and case is ignored', T, async () => {
        await assertPathsAgree(
          [
            {
              name: '% literal, no match',
              query: { subjectContains: '50%' },
              send: subject('500 off'),
              expected: 204,
            },
            {
              name: '% literal, match',
              query: { subjectContains: '50%' },
              send: subject('Save 50% now'),
              expected: 200,
            },
            {
              name: '_ literal, no match',
              query: { subjectContains: 'a_b' },
              send: subject('axb'),
              expected: 204,
            },
            {
              name: '_ literal, match',
              query: { subjectContains: 'a_b' },
              send: subject('code a_b'),
              expected: 200,
            },
            {
              name: 'backslash',
              query: { subjectContains: 'x\\y' },
              send: subject('a x\\y b'),
              expected: 200,
            },
            {
              name: 'ASCII case',
              query: { subjectContains: 'WELCOME' },
              send: subject('welcome aboard'),
              expected: 200,
            },
            {
              name: 'non-ASCII case',
              query: { subjectContains: 'ÉTÉ' },
              send: subject('Bel été'),
              expected: 200,
            },
            {
              name: 'from, case',
              query: { fromContains: 'ALICE@ALPHA' },
              send: (box) => sendMail(box, { subject: 'f', from: 'alice@alpha.test' }),
              expected: 200,
            },
            {
              name: 'capturedFor, case',
              query: { capturedFor: 'Bob@X.Test' },
              send: (box) =>
                sendMail(box, { subject: 'c', envelope: { from: 'a@alpha.test', to: ['bob@x.test'] } }),
              expected: 200,
            },
          ],
          messageWait,
        );
      });

      it('an empty subjectContains and a mail without a Subject', T, async () => {
        // Whatever the answer (an empty filter is no filter, or a missing subject contains nothing), it may
        // not depend on whether the mail came before or during the wait.
        const noSubject = (box: Box) =>
          sendMail(box, {
            envelope: { from: 'a@alpha.test', to: ['b@x.test'] },
            raw: 'From: a@alpha.test\r\nTo: b@x.test\r\n\r\nno subject here\r\n',
          });
        await assertPathsAgree(
          [
            {
              name: 'empty filter, no Subject',
              query: { subjectContains: '' },
              send: noSubject,
              expected: undefined,
            },
          ],
          messageWait,
        );
      });
    });

    describe('204: timeout', () => {
      it(
        'timeoutSeconds=1 stays open, then answers 204 on its own timer; a longer wait stays open',
        T,
        async () => {
          const box = await newBox();
          const controller = new AbortController();
          const long = track(messageWait(box, { timeoutSeconds: NEVER }, { signal: controller.signal }));
          await activeWaits(1);
          const short = track(messageWait(box, { timeoutSeconds: '1' }));
          // Seen open (the poll's timer is due before the wait's 1 s one), so it did not answer at once.
          await activeWaits(2);
          await assertNoContent(await short.promise);
          assert.equal(long.settled, false, 'the 300 s wait ended with the 1 s one');
          await activeWaits(1);
          controller.abort();
          await quietly(long.promise);
          await activeWaits(0);
        },
      );

      it('timeoutSeconds=1 with only non-matching arrivals answers 204', T, async () => {
        const box = await newBox();
        const pending = messageWait(box, { subjectContains: 'never', timeoutSeconds: '1' });
        await activeWaits(1);
        await sendMail(box, { subject: 'nope' });
        await assertNoContent(await pending);
      });

      it('timeoutSeconds=0 answers 204 at once when nothing matches', T, async () => {
        const box = await newBox();
        // At once: the default of 30 s would outlast the test's timeout.
        await assertNoContent(await messageWait(box, { timeoutSeconds: '0' }));
        assert.equal(server.core.waits.active(), 0);
      });

      it('without timeoutSeconds the wait outlasts a 1 s one (default 30 s)', T, async () => {
        const box = await newBox();
        const controller = new AbortController();
        const pending = track(messageWait(box, {}, { signal: controller.signal }));
        await activeWaits(1);
        await assertNoContent(await messageWait(box, { timeoutSeconds: '1' }));
        assert.equal(pending.settled, false, 'the wait without timeoutSeconds ended with the 1 s one');
        controller.abort();
        await assert.rejects(pending.promise, { name: 'AbortError' });
        await activeWaits(0);
      });
    });

    describe('400: invalid query', () => {
      for (const [name, query, paths] of [
        ['timeoutSeconds -1', { timeoutSeconds: '-1' }, ['timeoutSeconds']],
        ['timeoutSeconds 301', { timeoutSeconds: '301' }, ['timeoutSeconds']],
        ['timeoutSeconds abc', { timeoutSeconds: 'abc' }, ['timeoutSeconds']],
        ['timeoutSeconds 1.5', { timeoutSeconds: '1.5' }, ['timeoutSeconds']],
        ['a bad since', { since: 'yesterday' }, ['since']],
        ['a bad isRead', { isRead: 'maybe' }, ['isRead']],
      ] as Array<[string, Record<string, string>, string[]]>) {
        it(`refuses ${name}`, T, async () => {
          const box = await newBox();
          await assertValidation(await messageWait(box, query), paths);
          assert.equal(server.core.waits.active(), 0);
        });
      }

      it('accepts the bounds 0 and 300', T, async () => {
        const box = await newBox();
        await assertNoContent(await messageWait(box, { timeoutSeconds: '0' }));
        const controller = new AbortController();
        const pending = messageWait(box, { timeoutSeconds: '300' }, { signal: controller.signal });
        await activeWaits(1);
        controller.abort();
        await quietly(pending);
        await activeWaits(0);
      });

      it('refuses a sandbox id that is not a UUID', T, async () => {
        const ws = await server.workspace();
        await assertValidation(await ws.api('/sandboxes/not-a-uuid/messages/wait?timeoutSeconds=0'), [
          'sandboxId',
        ]);
      });
    });

    describe('401', () => {
      it('refuses a wait without a key', T, async () => {
        const box = await newBox();
        const res = await fetch(
          `${server.apiUrl}/api/v1/sandboxes/${box.sb.id}/messages/wait?timeoutSeconds=0`,
        );
        await assertProblem(res, 401, 'unauthorized');
        assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
      });
    });

    describe('404', () => {
      it('a missing sandbox', T, async () => {
        const ws = await server.workspace();
        await assertProblem(
          await ws.api(`/sandboxes/${randomUUID()}/messages/wait?timeoutSeconds=1`),
          404,
          'not-found',
        );
      });

      it("another workspace's sandbox", T, async () => {
        const box = await newBox();
        await sendMail(box, { subject: 'private' });
        const other = await server.workspace();
        await assertProblem(await messageWait(box, { timeoutSeconds: '1' }, {}, other), 404, 'not-found');
      });

      it('a sandbox deleted while the wait is open answers 404 on the deletion', T, async () => {
        const box = await newBox();
        // A 404 for a 300 s wait inside the test's timeout: the deletion ended it, not its timer (204).
        const pending = messageWait(box, { timeoutSeconds: NEVER });
        await activeWaits(1);
        const del = await box.ws.api(`/sandboxes/${box.sb.id}`, { method: 'DELETE' });
        assert.equal(del.status, 204, await del.text());
        await assertProblem(await pending, 404, 'not-found');
        assert.equal(server.core.waits.active(), 0);
      });
    });
  });

  describe('requests/wait', () => {
    describe('200: an existing match', () => {
      it(
        'returns the newest of several existing matches at once, as the full Request detail',
        T,
        async () => {
          const box = await newBox();
          await capture(box, 'POST', '/hooks/a?n=1', '{"n":1}');
          await capture(box, 'POST', '/hooks/b?n=2', '{"n":2}');
          const newest = await capture(box, 'POST', '/hooks/c?n=3', '{"n":3}');
          await capture(box, 'GET', '/hooks/d');
          const res = await requestWait(box, {
            method: 'POST',
            pathContains: '/hooks/',
            timeoutSeconds: NEVER,
          });
          const r = await assertRequest(res, box);
          assert.equal(r.id, newest);
          assert.equal(r.method, 'POST');
          assert.equal(r.path, '/hooks/c');
          assert.equal(r.query, 'n=3');
          assert.equal(r.body, '{"n":3}');
        },
      );

      it('timeoutSeconds=0 answers at once with an existing match, else 204', T, async () => {
        const box = await newBox();
        await assertNoContent(await requestWait(box, { timeoutSeconds: '0' }));
        const id = await capture(box, 'PUT', '/x');
        assert.equal((await assertRequest(await requestWait(box, { timeoutSeconds: '0' }), box)).id, id);
      });
    });

    describe('200: the first matching arrival', () => {
      it('a wait started before the arrival returns on it', T, async () => {
        const box = await newBox();
        const pending = requestWait(box, { timeoutSeconds: NEVER });
        await activeWaits(1);
        const id = await capture(box, 'POST', '/webhook', '{"event":"paid"}');
        const r = await assertRequest(await pending, box);
        assert.equal(r.id, id);
        assert.equal(r.path, '/webhook');
      });

      it('ignores non-matching methods and paths that come first', T, async () => {
        const box = await newBox();
        const pending = requestWait(box, { method: 'POST', pathContains: '/signup', timeoutSeconds: NEVER });
        await activeWaits(1);
        await capture(box, 'GET', '/api/signup');
        await capture(box, 'PUT', '/api/signup');
        await capture(box, 'POST', '/api/login');
        // Had an earlier arrival answered, the id below would be another (or the status 204).
        const id = await capture(box, 'POST', '/api/signup/confirm', '{"ok":true}');
        const r = await assertRequest(await pending, box);
        assert.equal(r.id, id);
        assert.equal(r.method, 'POST');
        assert.equal(r.path, '/api/signup/confirm');
      });
    });

    describe('filters', () => {
      it('method is an exact match, not a prefix', T, async () => {
        const box = await newBox();
        const post = await capture(box, 'POST', '/m');
        await capture(box, 'PATCH', '/m');
        assert.equal(
          (await assertRequest(await requestWait(box, { method: 'POST', timeoutSeconds: '0' }), box)).id,
          post,
        );
        await assertNoContent(await requestWait(box, { method: 'POS', timeoutSeconds: '0' }));
        await assertNoContent(await requestWait(box, { method: 'DELETE', timeoutSeconds: '0' }));
      });

      it('pathContains is a substring of the path, never of the query', T, async () => {
        const box = await newBox();
        const id = await capture(box, 'GET', '/orders/42/items?status=shipped');
        assert.equal(
          (
            await assertRequest(
              await requestWait(box, { pathContains: 'ders/42/it', timeoutSeconds: '0' }),
              box,
            )
          ).id,
          id,
        );
        await assertNoContent(await requestWait(box, { pathContains: 'shipped', timeoutSeconds: '0' }));
        await assertNoContent(await requestWait(box, { pathContains: '/orders/43', timeoutSeconds: '0' }));
      });

      it('since: an older match is not returned; the wait returns the new one', T, async () => {
        const box = await newBox();
        await capture(box, 'POST', '/cb');
        server.clock.advance(50);
        const since = server.clock.now().toISOString();
        await assertNoContent(await requestWait(box, { pathContains: '/cb', since, timeoutSeconds: '0' }));
        const pending = requestWait(box, { pathContains: '/cb', since, timeoutSeconds: NEVER });
        await activeWaits(1);
        const id = await capture(box, 'POST', '/cb');
        assert.equal((await assertRequest(await pending, box)).id, id);
      });
    });

    describe('an existing match and an arrival are judged alike', () => {
      it('method and pathContains', T, async () => {
        const to = (method: string, path: string) => (box: Box) => capture(box, method, path);
        await assertPathsAgree(
          [
            { name: 'method exact', query: { method: 'POST' }, send: to('POST', '/x'), expected: 200 },
            { name: 'method prefix', query: { method: 'POS' }, send: to('POST', '/x'), expected: 204 },
            {
              name: 'path substring',
              query: { pathContains: 'ook' },
              send: to('GET', '/hooks/1'),
              expected: 200,
            },
            {
              name: '_ literal, no match',
              query: { pathContains: '/a_b' },
              send: to('GET', '/axb'),
              expected: 204,
            },
            {
              name: '_ literal, match',
              query: { pathContains: '/a_b' },
              send: to('GET', '/a_b/c'),
              expected: 200,
            },
            {
              name: 'path, case',
              query: { pathContains: '/Hooks' },
              send: to('GET', '/hooks'),
              expected: undefined,
            },
            {
              name: 'not the query',
              query: { pathContains: 'q=1' },
              send: to('GET', '/p?q=1'),
              expected: 204,
            },
          ],
          requestWait,
        );
      });
    });

    describe('204: timeout', () => {
      it('timeoutSeconds=1 stays open, then answers 204 on its own timer', T, async () => {
        const box = await newBox();
        const pending = requestWait(box, { method: 'DELETE', timeoutSeconds: '1' });
        await activeWaits(1);
        await assertNoContent(await pending);
        assert.equal(server.core.waits.active(), 0);
      });

      it('without timeoutSeconds the wait outlasts a 1 s one (default 30 s)', T, async () => {
        const box = await newBox();
        const controller = new AbortController();
        const pending = track(requestWait(box, {}, { signal: controller.signal }));
        await activeWaits(1);
        await assertNoContent(await requestWait(box, { timeoutSeconds: '1' }));
        assert.equal(pending.settled, false, 'the wait without timeoutSeconds ended with the 1 s one');
        controller.abort();
        await assert.rejects(pending.promise, { name: 'AbortError' });
        await activeWaits(0);
      });
    });

    describe('400: invalid query', () => {
      for (const [name, query, paths] of [
        ['timeoutSeconds -1', { timeoutSeconds: '-1' }, ['timeoutSeconds']],
        ['timeoutSeconds 301', { timeoutSeconds: '301' }, ['timeoutSeconds']],
        ['timeoutSeconds abc', { timeoutSeconds: 'abc' }, ['timeoutSeconds']],
        ['a bad since', { since: '2026-13-45' }, ['since']],
        ['an overlong method', { method: 'X'.repeat(17) }, ['method']],
      ] as Array<[string, Record<string, string>, string[]]>) {
        it(`refuses ${name}`, T, async () => {
          const box = await newBox();
          await assertValidation(await requestWait(box, query), paths);
        });
      }
    });

    describe('401', () => {
      it('refuses a wait without a key', T, async () => {
        const box = await newBox();
        const res = await fetch(
          `${server.apiUrl}/api/v1/sandboxes/${box.sb.id}/requests/wait?timeoutSeconds=0`,
        );
        await assertProblem(res, 401, 'unauthorized');
      });
    });

    describe('404', () => {
      it('a missing sandbox', T, async () => {
        const ws = await server.workspace();
        await assertProblem(
          await ws.api(`/sandboxes/${randomUUID()}/requests/wait?timeoutSeconds=1`),
          404,
          'not-found',
        );
      });

      it("another workspace's sandbox", T, async () => {
        const box = await newBox();
        await capture(box, 'POST', '/private');
        const other = await server.workspace();
        await assertProblem(await requestWait(box, { timeoutSeconds: '1' }, {}, other), 404, 'not-found');
      });

      it('a sandbox deleted while the wait is open answers 404 on the deletion', T, async () => {
        const box = await newBox();
        const pending = requestWait(box, { timeoutSeconds: NEVER });
        await activeWaits(1);
        const del = await box.ws.api(`/sandboxes/${box.sb.id}`, { method: 'DELETE' });
        assert.equal(del.status, 204, await del.text());
        await assertProblem(await pending, 404, 'not-found');
        assert.equal(server.core.waits.active(), 0);
      });
    });
  });

  describe('concurrency', () => {
    /** Extra keys of the workspace, made through the API. */
    async function extraKeys(ws: TestServerWorkspace, n: number): Promise<string[]> {
      const keys: string[] = [];
      for (let i = 0; i < n; i++) {
        const res = await ws.api('/keys', { method: 'POST', body: JSON.stringify({ label: `extra ${i}` }) });
        keys.push((await json<{ key: string }>(res, 201)).key);
      }
      return keys;
    }

    function waitWithKey(key: string, path: string, signal?: AbortSignal): Promise<Response> {
      return fetch(`${server.apiUrl}/api/v1${path}`, {
        headers: { authorization: `Bearer ${key}` },
        ...(signal === undefined ? {} : { signal }),
      });
    }

    it(
      'one matching arrival releases 300 concurrent waits (6 keys x 50), all with the same message',
      { timeout: 60_000 },
      async () => {
        const box = await newBox();
        const keys = [box.ws.key, ...(await extraKeys(box.ws, 5))];
        const path = `/sandboxes/${box.sb.id}/messages/wait?subjectContains=fan-out&timeoutSeconds=${NEVER}`;
        const pending = keys.flatMap((key) => Array.from({ length: 50 }, () => waitWithKey(key, path)));
        await activeWaits(300);
        assert.ok(server.core.bus.listenerCount() >= 300);
        await sendMail(box, { subject: 'not this one' });
        await sendMail(box, { subject: 'the fan-out message' });
        const bodies = await Promise.all(
          pending.map(async (p) => {
            const res = await p;
            return { status: res.status, body: (await res.json()) as MessageDetail };
          }),
        );
        assert.equal(bodies.length, 300);
        const ids = new Set(bodies.map((b) => b.body.id));
        assert.deepEqual(
          bodies.filter((b) => b.status !== 200),
          [],
        );
        assert.equal(ids.size, 1, `one message for all: ${[...ids].join(', ')}`);
        assert.equal(bodies[0]?.body.subject, 'the fan-out message');
        assert.equal(server.core.waits.active(), 0);
        assert.equal(server.core.bus.listenerCount(), 0);
      },
    );

    it('one arrival releases only the waiters whose filter it matches', T, async () => {
      const box = await newBox();
      const start = (query: Record<string, string>) =>
        Array.from({ length: 10 }, () => messageWait(box, { ...query, timeoutSeconds: NEVER }));
      const alpha = start({ subjectContains: 'alpha' });
      const beta = start({ subjectContains: 'beta' });
      const any = start({});
      await activeWaits(30);
      await sendMail(box, { subject: 'the alpha mail' });
      for (const res of await Promise.all([...alpha, ...any])) {
        assert.equal((await json<MessageDetail>(res)).subject, 'the alpha mail');
      }
      // The beta waits are still open after the alpha answers came back; had the alpha mail released them,
      // they would carry its subject below.
      await activeWaits(10);
      await sendMail(box, { subject: 'the beta mail' });
      for (const res of await Promise.all(beta)) {
        assert.equal((await json<MessageDetail>(res)).subject, 'the beta mail');
      }
      assert.equal(server.core.waits.active(), 0);
    });

    it('aborted waits leave no waiter and no listener behind', T, async () => {
      const box = await newBox();
      const controller = new AbortController();
      const pending = Array.from({ length: 20 }, (_, i) =>
        quietly(
          messageWait(
            box,
            { subjectContains: `abort-${i}`, timeoutSeconds: '60' },
            { signal: controller.signal },
          ),
        ),
      );
      await activeWaits(20);
      assert.equal(server.core.bus.listenerCount(), 20);
      controller.abort();
      const results = await Promise.all(pending);
      assert.ok(
        results.every((r) => r === undefined),
        'every fetch was aborted',
      );
      await waitUntil(
        () => server.core.waits.active() === 0 && server.core.bus.listenerCount() === 0,
        'no open waits and no listeners',
      );
    });

    it(
      'the 51st concurrent wait of one key is 429 with Retry-After; once one ends a new one is accepted',
      T,
      async () => {
        const box = await newBox();
        const [otherKey] = await extraKeys(box.ws, 1);
        assert.ok(otherKey !== undefined);
        const path = `/sandboxes/${box.sb.id}/messages/wait?timeoutSeconds=30`;
        const controllers = Array.from({ length: 50 }, () => new AbortController());
        const pending = controllers.map((c) => quietly(waitWithKey(box.ws.key, path, c.signal)));
        try {
          await activeWaits(50);
          const res = await waitWithKey(box.ws.key, path);
          const retryAfter = res.headers.get('retry-after');
          await assertProblem(res, 429, 'rate-limited');
          assert.match(retryAfter ?? '', /^[1-9]\d*$/, `Retry-After: ${retryAfter}`);
          assert.equal(server.core.waits.active(), 50, 'the refused wait was never opened');
          // One cap for every kind of wait: a callback wait is the 51st too.
          await assertProblem(
            await waitWithKey(box.ws.key, `/sandboxes/${box.sb.id}/callbacks/wait?timeoutSeconds=0`),
            429,
            'rate-limited',
          );
          // The cap is per key: another key of the same workspace may wait.
          await assertNoContent(
            await waitWithKey(otherKey, `/sandboxes/${box.sb.id}/messages/wait?timeoutSeconds=0`),
          );
          controllers[0]?.abort();
          await activeWaits(49);
          await assertNoContent(
            await waitWithKey(box.ws.key, `/sandboxes/${box.sb.id}/messages/wait?timeoutSeconds=0`),
          );
          // And a long one fits again.
          const c51 = new AbortController();
          const again = quietly(waitWithKey(box.ws.key, path, c51.signal));
          await activeWaits(50);
          c51.abort();
          await again;
        } finally {
          for (const c of controllers) c.abort();
          await Promise.all(pending);
        }
        await activeWaits(0);
      },
    );
  });

  // Moves the server's clock past a TTL: kept last so the earlier tests see an unmoved clock.
  describe('ephemeral sandbox swept while waiting', () => {
    it('the open wait answers 404', T, async () => {
      const box = await newBox(undefined, { name: 'short-lived', ephemeral: true, ttlMinutes: 1 });
      const messages = messageWait(box, { timeoutSeconds: NEVER });
      const requests = requestWait(box, { timeoutSeconds: NEVER });
      await activeWaits(2);
      server.clock.advance(61_000);
      const result = await server.core.sweep();
      assert.equal(result.ran, true);
      assert.ok(result.expiredSandboxes >= 1, JSON.stringify(result));
      await assertProblem(await messages, 404, 'not-found');
      await assertProblem(await requests, 404, 'not-found');
      assert.equal(server.core.waits.active(), 0);
      // And a new wait on it is 404 at once.
      await assertProblem(await messageWait(box, { timeoutSeconds: '1' }), 404, 'not-found');
    });

    it('an expired sandbox is 404 even before a sweep', T, async () => {
      const box = await newBox(undefined, { name: 'short-lived', ephemeral: true, ttlMinutes: 1 });
      server.clock.advance(61_000);
      await assertProblem(await messageWait(box, { timeoutSeconds: '1' }), 404, 'not-found');
      await assertProblem(await requestWait(box, { timeoutSeconds: '1' }), 404, 'not-found');
    });
  });
});

// Its own store and server: closing the server is what is under test.
for (const backend of storeBackends()) {
  describe(`REST waits: shutdown [${backend.name}]`, () => {
    it('server.close() ends open waits with 204 at once', T, async () => {
      const store = await backend.open();
      try {
        const server = await startTestServer(store);
        const ws = await server.workspace();
        const sb = await ws.createSandbox({ name: 'shutdown' });
        // 300 s waits answered inside the test's timeout: the close ended them, not their timers.
        const messages = ws.api(`/sandboxes/${sb.id}/messages/wait?timeoutSeconds=${NEVER}`);
        const requests = ws.api(`/sandboxes/${sb.id}/requests/wait?timeoutSeconds=${NEVER}`);
        await waitUntil(() => server.core.waits.active() === 2, '2 open waits');
        const closed = server.close();
        await assertNoContent(await messages);
        await assertNoContent(await requests);
        await closed;
        assert.equal(server.core.waits.active(), 0);
      } finally {
        await store.close();
      }
    });

    it('server.close() is not held up by a connection that never sent a request', T, async () => {
      const store = await backend.open();
      const sockets: net.Socket[] = [];
      let closing: Promise<void> | undefined;
      try {
        const server = await startTestServer(store);
        // A client that connected and has not sent anything yet (a browser's preconnect, a load balancer).
        for (const port of [server.ports.api, server.ports.capture]) {
          const socket = net.connect(port, '127.0.0.1');
          sockets.push(socket);
          await once(socket, 'connect');
        }
        // The idle sockets stay open until the finally below: a close() that waited for them never settles
        // and the test times out.
        // Settling is the assertion: a close() that waited for them never settles and the test times out.
        // (Whether our side has already seen the server drop them depends on how busy the machine is.)
        closing = server.close();
        await closing;
      } finally {
        for (const socket of sockets) socket.destroy();
        await closing;
        await store.close();
      }
    });
  });
}
