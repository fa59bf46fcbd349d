// REST expectations: POST /sandboxes/{id}/expectations/wait over mail (real SMTP, nodemailer) and requests (real
// fetches to the capture listener): exact counts with a quiet period, order across the streams, atMost, the
// deadline with the closest misses, the default window, consume; 400, 401, 404. Outcomes and order are
// asserted, never how long an answer took.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SendMailOptions, Transporter } from 'nodemailer';
import type { components } from '../../openapi/schema.d.ts';
import { sandboxTransport } from '../helpers/mail.ts';
import { eventually } from '../helpers/poll.ts';
import { assertJson, assertNotFound, assertUnauthorized, validationAssertion } from '../helpers/responses.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { UUID_RE } from '../helpers/shapes.ts';
import { describeEachStore } from '../helpers/stores.ts';

type Result = components['schemas']['ExpectationResult'];

const T = { timeout: 60_000 };
const assertValidation = validationAssertion();

describeEachStore('REST expectations', (getStore) => {
  let server: TestServer;
  const transports: Transporter[] = [];

  before(async () => {
    server = await startTestServer(getStore());
  });
  after(async () => {
    for (const t of transports) t.close();
    server.api.server.closeAllConnections();
    await server.close();
  });

  interface Box {
    ws: TestServerWorkspace;
    sb: Record<string, any>;
    mail: Transporter;
  }

  async function newBox(ws?: TestServerWorkspace): Promise<Box> {
    const w = ws ?? (await server.workspace());
    const sb = await w.createSandbox({ name: 'expect' });
    const mail = sandboxTransport(server.ports.smtp, sb, { pool: true, maxConnections: 1 });
    transports.push(mail);
    return { ws: w, sb, mail };
  }

  /** Sends one mail over SMTP (answered 250 once committed); returns its id as the API lists it. */
  async function sendMail(box: Box, subject: string, extra: SendMailOptions = {}): Promise<void> {
    await box.mail.sendMail({
      from: 'app@alpha.test',
      to: 'user@example.test',
      subject,
      text: 'hi',
      ...extra,
    });
    // Arrivals strictly ordered by receivedAt.
    server.clock.advance(5);
  }

  /** One request to the capture host; returns the id it was recorded under. */
  async function capture(box: Box, method: string, path: string): Promise<string> {
    const res = await fetch(`http://127.0.0.1:${server.ports.capture}/${box.sb.id}${path}`, {
      method,
      ...(method === 'GET' ? {} : { body: '{}', headers: { 'content-type': 'application/json' } }),
    });
    await res.arrayBuffer();
    const id = res.headers.get('x-sandtrap-request-id');
    assert.ok(id !== null && UUID_RE.test(id), `recorded, got ${res.status}`);
    server.clock.advance(5);
    return id;
  }

  async function messageIds(box: Box): Promise<string[]> {
    const res = await box.ws.api(`/sandboxes/${box.sb.id}/messages`);
    const page = (await res.json()) as { items: Array<{ id: string }> };
    return page.items.map((m) => m.id).reverse();
  }

  function post(box: Box, body: unknown): Promise<Response> {
    return box.ws.api(`/sandboxes/${box.sb.id}/expectations/wait`, {
      method: 'POST',
      body: JSON.stringify(body),
    });
  }

  /** Starts an expectation and returns once the server holds it open (it counts as one of the open waits). */
  async function openRaw(box: Box, body: unknown): Promise<{ answer: Promise<Response> }> {
    const before = server.core.waits.active();
    const answer = post(box, body);
    answer.catch(() => undefined);
    await eventually('the expectation to be open', () => server.core.waits.active() > before, 20_000, 5);
    return { answer };
  }

  async function open(box: Box, body: unknown): Promise<{ answer: Promise<Result> }> {
    const answer = (await openRaw(box, body)).answer.then((res) => assertJson<Result>(res));
    answer.catch(() => undefined);
    return { answer };
  }

  const since = () => new Date(server.clock.now().getTime() - 1).toISOString();

  describe('200', () => {
    it('exactly 1 with quietForSeconds 2 fails when a second mail arrives, and names it', T, async () => {
      const box = await newBox();
      const from = since();
      await sendMail(box, 'Welcome aboard');
      const { answer } = await open(box, {
        conditions: [{ stream: 'messages', filter: { subjectContains: 'welcome' }, exactly: 1 }],
        since: from,
        withinSeconds: 30,
        quietForSeconds: 2,
      });
      await sendMail(box, 'Welcome again');
      const r = await answer;
      const [first, second] = await messageIds(box);
      assert.equal(r.result, 'fail');
      assert.equal(r.failure?.problem, 'too_many');
      assert.equal(r.failure?.condition, 0);
      assert.equal(r.failure?.item?.id, second);
      assert.equal(r.failure?.item?.subject, 'Welcome again');
      assert.match(r.summary, new RegExp(`one too many: message ${second} "Welcome again"`));
      assert.equal(r.conditions[0]?.count, 2);
      assert.deepEqual(
        r.conditions[0]?.matched.map((m) => m.id),
        [first, second],
      );
      assert.equal(r.conditions[0]?.met, false);
    });

    it('exactly 1 with quietForSeconds 2 passes when nothing more arrives', T, async () => {
      const box = await newBox();
      const { answer } = await open(box, {
        conditions: [{ stream: 'messages', filter: { subjectContains: 'welcome' }, exactly: 1 }],
        quietForSeconds: 2,
      });
      await sendMail(box, 'Welcome aboard');
      await sendMail(box, 'Unrelated news');
      const r = await answer;
      assert.equal(r.result, 'pass', r.summary);
      assert.equal(r.failure, null);
      assert.equal(r.conditions[0]?.count, 1);
      assert.equal(r.conditions[0]?.met, true);
      assert.equal(r.conditions[0]?.matched[0]?.subject, 'Welcome aboard');
      // The other mail came nearest and is named with the filter it failed.
      assert.deepEqual(
        r.conditions[0]?.closest.map((m) => [m.subject, m.failedFilters]),
        [['Unrelated news', ['subjectContains']]],
      );
      assert.match(r.summary, /^Pass: .*matched 1, and nothing more matched for 2 s\.$/);
    });

    it(
      'a match restarts the quiet period; one that cannot end by the end of the call fails, named',
      T,
      async () => {
        const box = await newBox();
        const from = since();
        await capture(box, 'POST', '/webhooks/stripe');
        // Met at once (the stored request counts from since); the call ends at 0 + 3 s, so a match after the start
        // leaves no room for 3 quiet seconds.
        const { answer } = await open(box, {
          conditions: [{ stream: 'requests', filter: { pathContains: '/webhooks' }, atLeast: 1 }],
          since: from,
          withinSeconds: 0,
          quietForSeconds: 3,
        });
        const again = await capture(box, 'POST', '/webhooks/stripe');
        const r = await answer;
        assert.equal(r.result, 'fail');
        assert.equal(r.failure?.problem, 'not_quiet');
        assert.equal(r.failure?.item?.id, again);
        assert.equal(r.conditions[0]?.count, 2);
        assert.equal(r.conditions[0]?.met, true);
        assert.match(r.summary, new RegExp(`the last, request ${again} POST /webhooks/stripe`));
      },
    );

    it('inOrder passes for the mail, then the webhook', T, async () => {
      const box = await newBox();
      const { answer } = await open(box, {
        conditions: [
          { stream: 'messages', filter: { subjectContains: 'Welcome' }, exactly: 1 },
          { stream: 'requests', filter: { method: 'POST', pathContains: '/webhooks' }, atLeast: 1 },
        ],
        inOrder: true,
        withinSeconds: 30,
      });
      await sendMail(box, 'Welcome to Acme');
      const hook = await capture(box, 'POST', '/webhooks/stripe');
      const r = await answer;
      const [mail] = await messageIds(box);
      assert.equal(r.result, 'pass', r.summary);
      assert.equal(r.conditions[0]?.matched[0]?.id, mail);
      assert.equal(r.conditions[0]?.matched[0]?.stream, 'messages');
      assert.equal(r.conditions[1]?.matched[0]?.id, hook);
      assert.equal(r.conditions[1]?.matched[0]?.method, 'POST');
      assert.equal(r.conditions[1]?.matched[0]?.path, '/webhooks/stripe');
      assert.match(r.summary, /, in order\.$/);
    });

    it('inOrder fails at once when the webhook comes before the mail, and names it', T, async () => {
      const box = await newBox();
      const { answer } = await open(box, {
        conditions: [
          { stream: 'messages', filter: { subjectContains: 'Welcome' }, exactly: 1 },
          { stream: 'requests', filter: { method: 'POST', pathContains: '/webhooks' }, atLeast: 1 },
        ],
        inOrder: true,
        withinSeconds: 300,
      });
      const hook = await capture(box, 'POST', '/webhooks/stripe');
      const r = await answer;
      assert.equal(r.result, 'fail');
      assert.equal(r.failure?.problem, 'out_of_order');
      assert.equal(r.failure?.condition, 1);
      assert.equal(r.failure?.after, 0);
      assert.equal(r.failure?.item?.id, hook);
      assert.match(r.summary, new RegExp(`request ${hook} POST /webhooks/stripe`));
      assert.equal(r.conditions[0]?.count, 0);
    });

    it('inOrder fails for stored items in the wrong order (since)', T, async () => {
      const box = await newBox();
      const from = since();
      const hook = await capture(box, 'POST', '/webhooks/stripe');
      await sendMail(box, 'Welcome to Acme');
      const r = await assertJson<Result>(
        await post(box, {
          conditions: [
            { stream: 'messages', filter: { subjectContains: 'Welcome' } },
            { stream: 'requests', filter: { pathContains: '/webhooks' } },
          ],
          inOrder: true,
          since: from,
          withinSeconds: 0,
        }),
      );
      assert.equal(r.result, 'fail');
      assert.equal(r.failure?.problem, 'out_of_order');
      assert.equal(r.failure?.item?.id, hook);
      assert.equal(r.conditions[0]?.count, 1);
    });

    it('atMost fails on the request past it and passes at it', T, async () => {
      const box = await newBox();
      const { answer } = await open(box, {
        conditions: [{ stream: 'requests', filter: { method: 'DELETE' }, atMost: 1 }],
        quietForSeconds: 60,
      });
      await capture(box, 'DELETE', '/orders/1');
      await capture(box, 'GET', '/orders/1');
      const extra = await capture(box, 'DELETE', '/orders/2');
      const r = await answer;
      assert.equal(r.result, 'fail');
      assert.equal(r.failure?.problem, 'too_many');
      assert.equal(r.failure?.item?.id, extra);
      assert.equal(r.conditions[0]?.count, 2);

      const other = await newBox();
      const { answer: calm } = await open(other, {
        conditions: [{ stream: 'requests', filter: { method: 'DELETE' }, atMost: 1 }],
        quietForSeconds: 1,
      });
      await capture(other, 'DELETE', '/orders/1');
      const ok = await calm;
      // Met at once (0 is at most 1); the DELETE restarts the quiet period, which then ends with nothing more.
      assert.equal(ok.result, 'pass', ok.summary);
      assert.equal(ok.conditions[0]?.count, 1);

      const third = await newBox();
      const from = since();
      await capture(third, 'DELETE', '/orders/1');
      const held = await assertJson<Result>(
        await post(third, {
          conditions: [{ stream: 'requests', filter: { method: 'DELETE' }, atLeast: 1, atMost: 2 }],
          since: from,
          quietForSeconds: 1,
        }),
      );
      assert.equal(held.result, 'pass', held.summary);
      assert.equal(held.conditions[0]?.count, 1);
    });

    it('a missed deadline fails with the closest items and the filters they failed', T, async () => {
      const box = await newBox();
      const { answer } = await open(box, {
        conditions: [
          { stream: 'messages', filter: { subjectContains: 'Verify', fromContains: 'acme' } },
          { stream: 'requests', filter: { method: 'POST', pathContains: '/webhooks' } },
        ],
        withinSeconds: 1,
      });
      await sendMail(box, 'Verify your address', { from: 'noreply@other.test' });
      await sendMail(box, 'Newsletter', { from: 'news@other.test' });
      const get = await capture(box, 'GET', '/webhooks/ping');
      const r = await answer;
      assert.equal(r.result, 'fail');
      assert.equal(r.failure?.problem, 'too_few');
      assert.equal(r.failure?.condition, 0);
      assert.equal(r.failure?.item, null);
      // Fewest failed filters first: the mail that only came from the wrong sender.
      assert.deepEqual(
        r.conditions[0]?.closest.map((m) => [m.subject, m.failedFilters]),
        [
          ['Verify your address', ['fromContains']],
          ['Newsletter', ['subjectContains', 'fromContains']],
        ],
      );
      assert.deepEqual(
        r.conditions[1]?.closest.map((m) => [m.id, m.failedFilters]),
        [[get, ['method']]],
      );
      assert.match(r.summary, /matched only 0 within 1 s/);
    });

    it('counts only what arrives after the call unless since says otherwise', T, async () => {
      const box = await newBox();
      const from = since();
      await sendMail(box, 'Welcome aboard');
      const fresh = await assertJson<Result>(
        await post(box, { conditions: [{ stream: 'messages' }], withinSeconds: 0 }),
      );
      assert.equal(fresh.result, 'fail');
      assert.equal(fresh.conditions[0]?.count, 0);
      assert.deepEqual(fresh.conditions[0]?.closest[0]?.failedFilters, ['since']);
      const withSince = await assertJson<Result>(
        await post(box, { conditions: [{ stream: 'messages' }], withinSeconds: 0, since: from }),
      );
      assert.equal(withSince.result, 'pass', withSince.summary);
      assert.equal(withSince.since, from);
    });

    it('never marks items read unless consume, and then on a pass', T, async () => {
      const box = await newBox();
      const from = since();
      await sendMail(box, 'Welcome aboard');
      const hook = await capture(box, 'POST', '/webhooks/x');
      const body = {
        conditions: [{ stream: 'messages' }, { stream: 'requests' }],
        since: from,
        withinSeconds: 0,
      };
      assert.equal((await assertJson<Result>(await post(box, body))).result, 'pass');
      const [mail] = await messageIds(box);
      const read = async () => [
        ((await (await box.ws.api(`/sandboxes/${box.sb.id}/messages/${mail}`)).json()) as any).isRead,
        ((await (await box.ws.api(`/sandboxes/${box.sb.id}/requests/${hook}`)).json()) as any).isRead,
      ];
      assert.deepEqual(await read(), [false, false]);
      const failing = { ...body, conditions: [{ stream: 'messages', exactly: 2 }] };
      assert.equal((await assertJson<Result>(await post(box, { ...failing, consume: true }))).result, 'fail');
      assert.deepEqual(await read(), [false, false]);
      assert.equal((await assertJson<Result>(await post(box, { ...body, consume: true }))).result, 'pass');
      assert.deepEqual(await read(), [true, true]);
    });
  });

  describe('400', () => {
    it('names the field that cannot work', T, async () => {
      const box = await newBox();
      await assertValidation(await post(box, { conditions: [] }), ['conditions']);
      await assertValidation(await post(box, { conditions: [{ stream: 'mail' }] }), ['conditions[0].stream']);
      await assertValidation(await post(box, { conditions: [{ stream: 'messages', atleast: 1 }] }), [
        'conditions[0]',
      ]);
      await assertValidation(
        await post(box, { conditions: [{ stream: 'messages', exactly: 1, atMost: 2 }] }),
        ['conditions[0].exactly'],
      );
      await assertValidation(
        await post(box, { conditions: [{ stream: 'requests', atLeast: 3, atMost: 2 }] }),
        ['conditions[0].atMost'],
      );
      await assertValidation(
        await post(box, { conditions: [{ stream: 'requests', filter: { subjectContains: 'x' } }] }),
        ['conditions[0].filter'],
      );
      await assertValidation(
        await post(box, { conditions: [{ stream: 'messages' }], withinSeconds: 200, quietForSeconds: 101 }),
        ['quietForSeconds'],
      );
      await assertValidation(await post(box, { conditions: [{ stream: 'messages' }], withinSeconds: 301 }), [
        'withinSeconds',
      ]);
      await assertValidation(await post(box, { conditions: [{ stream: 'messages', exactly: 1001 }] }), [
        'conditions[0].exactly',
      ]);
    });
  });

  describe('401 and 404', () => {
    it('refuses without a key', T, async () => {
      const box = await newBox();
      const res = await fetch(`${server.apiUrl}/api/v1/sandboxes/${box.sb.id}/expectations/wait`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ conditions: [{ stream: 'messages' }] }),
      });
      await assertUnauthorized(res, /No API key/);
    });

    it("is 404 for another workspace's sandbox", T, async () => {
      const box = await newBox();
      const stranger = await server.workspace();
      const res = await stranger.api(`/sandboxes/${box.sb.id}/expectations/wait`, {
        method: 'POST',
        body: JSON.stringify({ conditions: [{ stream: 'messages' }], withinSeconds: 0 }),
      });
      await assertNotFound(res, 'sandbox');
    });

    it('answers 404 when the sandbox is deleted while the expectation is open', T, async () => {
      const box = await newBox();
      const { answer: res } = await openRaw(box, {
        conditions: [{ stream: 'messages' }],
        withinSeconds: 300,
      });
      const del = await box.ws.api(`/sandboxes/${box.sb.id}`, { method: 'DELETE' });
      assert.equal(del.status, 204);
      await assertNotFound(await res, 'sandbox');
    });
  });
});
