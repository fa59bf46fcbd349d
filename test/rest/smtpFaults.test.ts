// PUT/GET /api/v1/sandboxes/{id}/smtp-faults and GET .../smtp-sessions over HTTP: the list as saved (the issue's
// example verbatim), clearing with [], scripts that cannot work refused with the field named, other workspaces'
// sandboxes unseen, and counted steps spent exactly once under concurrent sessions.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { components } from '../../openapi/schema.d.ts';
import { sandboxTransport } from '../helpers/mail.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

type SmtpFaults = components['schemas']['SmtpFaults'];
type Problem = { type: string; status: number; errors: Array<{ path: string; message: string }> };

describeEachStore('REST SMTP fault scripts', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace();
  });
  after(async () => {
    await server.close();
  });

  const put = (id: string, body: unknown) =>
    ws.api(`/sandboxes/${id}/smtp-faults`, { method: 'PUT', body: JSON.stringify(body) });

  async function refused(id: string, faults: unknown[]): Promise<Problem> {
    const res = await put(id, { faults });
    assert.equal(res.status, 400, await res.clone().text());
    assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
    return (await res.json()) as Problem;
  }

  it("saves the issue's example, returns it with GET, and [] clears it", async () => {
    const sandbox = await ws.createSandbox();
    const example = {
      faults: [
        {
          stage: 'rcpt',
          match: '*@example.com',
          reply: { code: 451, text: '4.3.0 Try again later' },
          times: 1,
        },
        { stage: 'data', delayMs: 20000 },
      ],
    };
    const res = await put(sandbox.id, example);
    assert.equal(res.status, 200, await res.clone().text());
    const expected = {
      faults: [
        { ...example.faults[0], remaining: 1 },
        { ...example.faults[1], remaining: null },
      ],
    };
    assert.deepEqual(await res.json(), expected);
    const got = await ws.api(`/sandboxes/${sandbox.id}/smtp-faults`);
    assert.deepEqual(await got.json(), expected);

    assert.deepEqual(await (await put(sandbox.id, { faults: [] })).json(), { faults: [] });
    const cleared = (await (await ws.api(`/sandboxes/${sandbox.id}/smtp-faults`)).json()) as SmtpFaults;
    assert.deepEqual(cleared, { faults: [] });
  });

  it('refuses an unknown stage, a code outside 4xx/5xx, not exactly one action, and match off rcpt', async () => {
    const { id } = await ws.createSandbox();
    const stage = await refused(id, [{ stage: 'helo', accept: true }]);
    assert.equal(stage.type, 'urn:sandtrap:problem:validation-error');
    assert.deepEqual(
      stage.errors.map((e) => e.path),
      ['faults[0].stage'],
    );
    assert.match(stage.errors[0]?.message ?? '', /connect, ehlo, auth, mail, rcpt, data, after-data/);

    for (const code of [250, 354, 600, 399]) {
      const p = await refused(id, [{ stage: 'rcpt', reply: { code, text: 'x' } }]);
      assert.deepEqual(
        p.errors.map((e) => e.path),
        ['faults[0].reply.code'],
        String(code),
      );
    }
    const none = await refused(id, [{ stage: 'mail' }]);
    assert.deepEqual(
      none.errors.map((e) => e.path),
      ['faults[0]'],
    );
    const two = await refused(id, [{ stage: 'mail', drop: true, delayMs: 5 }]);
    assert.deepEqual(
      two.errors.map((e) => e.path),
      ['faults[0].drop'],
    );
    const match = await refused(id, [{ stage: 'mail', match: '*@x.test', accept: true }]);
    assert.deepEqual(
      match.errors.map((e) => e.path),
      ['faults[0].match'],
    );
    const text = await refused(id, [{ stage: 'rcpt', reply: { code: 451, text: 'two\r\nlines' } }]);
    assert.deepEqual(
      text.errors.map((e) => e.path),
      ['faults[0].reply.text'],
    );
    // Nothing of a refused list was saved.
    assert.deepEqual(await (await ws.api(`/sandboxes/${id}/smtp-faults`)).json(), { faults: [] });
  });

  it('refuses a step that can never match because an earlier step always applies first', async () => {
    const { id } = await ws.createSandbox();
    const shadowed = await refused(id, [
      { stage: 'rcpt', reply: { code: 550, text: '5.1.1 No' } },
      { stage: 'rcpt', match: 'vip@example.com', accept: true },
    ]);
    assert.deepEqual(
      shadowed.errors.map((e) => e.path),
      ['faults[1]'],
    );
    assert.match(shadowed.errors[0]?.message ?? '', /faults\[0\]/);
    const same = await refused(id, [
      { stage: 'rcpt', match: 'A@example.com', accept: true },
      { stage: 'data', drop: true },
      { stage: 'rcpt', match: 'a@EXAMPLE.com', reply: { code: 451, text: '4.3.0 Later' } },
    ]);
    assert.deepEqual(
      same.errors.map((e) => e.path),
      ['faults[2]'],
    );
    // With times, or a probability, or a narrower pattern first, later steps can still match.
    for (const faults of [
      [
        { stage: 'rcpt', reply: { code: 451, text: '4.3.0 Later' }, times: 1 },
        { stage: 'rcpt', accept: true },
      ],
      [
        { stage: 'rcpt', reply: { code: 451, text: '4.3.0 Later' }, probability: 0.5 },
        { stage: 'rcpt', accept: true },
      ],
      [
        { stage: 'rcpt', match: 'vip@example.com', accept: true },
        { stage: 'rcpt', match: '*@example.com', reply: { code: 550, text: '5.1.1 No' } },
      ],
    ]) {
      const res = await put(id, { faults });
      assert.equal(res.status, 200, await res.clone().text());
    }
  });

  it("another workspace's sandbox is 404 on every route, and a bad id is 400 naming it", async () => {
    const { id } = await ws.createSandbox();
    const other = await server.workspace();
    for (const [path, init] of [
      [`/sandboxes/${id}/smtp-faults`, {}],
      [`/sandboxes/${id}/smtp-faults`, { method: 'PUT', body: JSON.stringify({ faults: [] }) }],
      [`/sandboxes/${id}/smtp-sessions`, {}],
    ] as const) {
      const res = await other.api(path, init);
      assert.equal(res.status, 404, path);
    }
    const bad = await ws.api('/sandboxes/not-a-uuid/smtp-faults');
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as Problem).errors[0]?.path, 'id');
  });

  it('a step with times 3 is spent exactly three times by eight concurrent sessions', async () => {
    const sandbox = await ws.createSandbox();
    await put(sandbox.id, {
      faults: [
        { stage: 'auth', reply: { code: 454, text: '4.7.0 Temporary authentication failure' }, times: 3 },
      ],
    });
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, n) => {
        const transport = sandboxTransport(server.ports.smtp, sandbox);
        return transport
          .sendMail({ from: 'a@sender.test', to: 'b@example.com', subject: `c${n}`, text: 'x' })
          .then(
            () => 250,
            (e: { responseCode: number }) => e.responseCode,
          )
          .finally(() => transport.close());
      }),
    );
    assert.deepEqual(
      outcomes.toSorted((a, b) => a - b),
      [250, 250, 250, 250, 250, 454, 454, 454],
    );
    const saved = (await (await ws.api(`/sandboxes/${sandbox.id}/smtp-faults`)).json()) as SmtpFaults;
    assert.equal(saved.faults[0]?.remaining, 0);
    const page1 = await ws.api(`/sandboxes/${sandbox.id}/smtp-sessions?limit=5`);
    const body1 = (await page1.json()) as { items: unknown[]; nextCursor: string | null };
    assert.equal(body1.items.length, 5);
    assert.ok(body1.nextCursor !== null);
    const page2 = await ws.api(`/sandboxes/${sandbox.id}/smtp-sessions?limit=5&cursor=${body1.nextCursor}`);
    const body2 = (await page2.json()) as { items: unknown[]; nextCursor: string | null };
    assert.equal(body2.items.length, 3);
    assert.equal(body2.nextCursor, null);
  });
});
