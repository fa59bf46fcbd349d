// Mock rules with faults, delays and use counts (issue 40), through the real capture listener with real
// clients: `times` answers N matches then falls through; a delay is a timer (a later request to another rule
// answers first); reset, empty, malformed chunked and slow bodies are each seen by a client as such; and every
// faulted request is still recorded, with the fault noted. Bad rules are refused at save with the field named.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, it } from 'node:test';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

const T = { timeout: 60_000 };

interface Problem {
  errors?: Array<{ path: string; message: string }>;
}

describeEachStore('Mock rules: faults, delays and times', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let sandboxId: string;
  let base: string;

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace();
    sandboxId = (await ws.createSandbox({ name: 'faults' })).id as string;
    base = `http://127.0.0.1:${server.ports.capture}/${sandboxId}`;
  });
  after(() => server.close());

  const setRules = async (mocks: unknown[]) => {
    const res = await ws.api(`/sandboxes/${sandboxId}/mocks`, {
      method: 'PUT',
      body: JSON.stringify({ mocks }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    return ((await res.json()) as { mocks: Array<Record<string, unknown>> }).mocks;
  };
  const refused = async (mocks: unknown[]): Promise<Array<{ path: string; message: string }>> => {
    const res = await ws.api(`/sandboxes/${sandboxId}/mocks`, {
      method: 'PUT',
      body: JSON.stringify({ mocks }),
    });
    assert.equal(res.status, 400, await res.clone().text());
    assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
    return ((await res.json()) as Problem).errors ?? [];
  };
  /** The recorded requests to `path`, newest first, with the note on their reply. */
  const recorded = async (path: string) => {
    const res = await ws.api(`/sandboxes/${sandboxId}/requests?limit=100`);
    const list = (await res.json()) as { items: Array<{ id: string; path: string }> };
    const mine = list.items.filter((r) => r.path === path);
    return Promise.all(
      mine.map(async (r) => {
        const d = (await (await ws.api(`/sandboxes/${sandboxId}/requests/${r.id}`)).json()) as {
          mockName: string | null;
          response: { note: string | null } | null;
        };
        return d;
      }),
    );
  };

  it('times: 1 answers the first match, then the next rule does', T, async () => {
    await setRules([
      { name: 'first try', method: 'POST', pattern: '/charge', statusCode: 503, body: 'busy', times: 1 },
      { name: 'retry', method: 'POST', pattern: '/charge', statusCode: 201, body: 'ok' },
    ]);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${base}/charge`, { method: 'POST', body: '{}' });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    assert.deepEqual(statuses, [503, 201, 201]);
    // Saving the rules again starts the count again.
    await setRules([
      { name: 'first try', method: 'POST', pattern: '/charge', statusCode: 503, times: 2 },
      { name: 'retry', method: 'POST', pattern: '/charge', statusCode: 201 },
    ]);
    const again: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${base}/charge`, { method: 'POST', body: '{}' });
      await res.arrayBuffer();
      again.push(res.status);
    }
    assert.deepEqual(again, [503, 503, 201]);
  });

  it('times holds under concurrent requests: exactly N get the rule', T, async () => {
    await setRules([
      { name: 'limited', pattern: '/limited', statusCode: 429, times: 3 },
      { name: 'after', pattern: '/limited', statusCode: 200 },
    ]);
    const statuses = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const res = await fetch(`${base}/limited`);
        await res.arrayBuffer();
        return res.status;
      }),
    );
    assert.equal(statuses.filter((s) => s === 429).length, 3);
    assert.equal(statuses.filter((s) => s === 200).length, 9);
  });

  it('a delay is a timer: a request sent after a delayed one is answered first', T, async () => {
    await setRules([
      { name: 'slow', pattern: '/delayed', statusCode: 200, body: 'late', delayMs: { min: 1500, max: 1600 } },
      { name: 'quick', pattern: '/quick', statusCode: 200, body: 'now' },
    ]);
    const order: string[] = [];
    const delayed = fetch(`${base}/delayed`).then(async (r) => order.push(await r.text()));
    // The delayed request is recorded before its reply waits: once it is, send the other.
    for (let i = 0; i < 200 && (await recorded('/delayed')).length === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await fetch(`${base}/quick`).then(async (r) => order.push(await r.text()));
    await delayed;
    assert.deepEqual(order, ['now', 'late']);
    const [rec] = await recorded('/delayed');
    assert.match(rec?.response?.note ?? '', /delayed 1[56]\d\d ms by the rule/);
  });

  it('reset: the client sees the connection reset, and the request is recorded', T, async () => {
    await setRules([
      { name: 'reset', pattern: '/reset', statusCode: 200, body: 'never sent', fault: 'reset' },
    ]);
    const err = await fetch(`${base}/reset`).then(
      () => assert.fail('a reset connection gave a response'),
      (e: Error & { cause?: { code?: string } }) => e,
    );
    assert.equal(err.cause?.code, 'ECONNRESET', String(err.cause));
    const [rec] = await recorded('/reset');
    assert.equal(rec?.mockName, 'reset');
    assert.match(rec?.response?.note ?? '', /fault "reset"/);
  });

  it('empty: the connection closes without a reply, and the request is recorded', T, async () => {
    await setRules([{ name: 'empty', pattern: '/empty', statusCode: 200, fault: { type: 'empty' } }]);
    const err = await new Promise<NodeJS.ErrnoException>((resolve, reject) => {
      const req = http.get(`${base}/empty`, () => reject(new Error('an empty reply gave a response')));
      req.on('error', resolve);
    });
    assert.equal(err.code, 'ECONNRESET'); // node's name for "socket hang up" before any byte
    assert.match(err.message, /socket hang up/);
    const [rec] = await recorded('/empty');
    assert.match(rec?.response?.note ?? '', /fault "empty"/);
  });

  it('malformed: the client fails to parse the chunked body, and the request is recorded', T, async () => {
    await setRules([
      { name: 'broken', pattern: '/malformed', statusCode: 200, body: '{"ok":true}', fault: 'malformed' },
    ]);
    const err = await new Promise<NodeJS.ErrnoException>((resolve, reject) => {
      const req = http.get(`${base}/malformed`, (res) => {
        res.on('error', resolve);
        res.on('data', () => undefined);
        res.on('end', () => reject(new Error('a malformed body parsed')));
      });
      req.on('error', resolve);
    });
    assert.match(String(err.code), /^HPE_INVALID_CHUNK_SIZE$|^ECONNRESET$/, String(err));
    // undici (fetch) sees the headers, then fails reading the body.
    const res = await fetch(`${base}/malformed`);
    assert.equal(res.status, 200);
    await assert.rejects(res.text());
    const recs = await recorded('/malformed');
    assert.equal(recs.length, 2);
    assert.match(recs[0]?.response?.note ?? '', /fault "malformed"/);
  });

  it('slow: the body arrives whole, in several pieces', T, async () => {
    const body = 'abcdefghijklmnopqrstuvwxyz0123456789';
    await setRules([
      { name: 'slow', pattern: '/slow', statusCode: 200, body, fault: { type: 'slow', durationMs: 1000 } },
    ]);
    const pieces = await new Promise<Buffer[]>((resolve, reject) => {
      http
        .get(`${base}/slow`, (res) => {
          const got: Buffer[] = [];
          res.on('data', (c: Buffer) => got.push(c));
          res.on('end', () => resolve(got));
          res.on('error', reject);
        })
        .on('error', reject);
    });
    assert.equal(Buffer.concat(pieces).toString(), body);
    assert.ok(pieces.length >= 2, `the body came in ${pieces.length} piece(s)`);
    const [rec] = await recorded('/slow');
    assert.match(rec?.response?.note ?? '', /fault "slow"/);
  });

  it('refuses bad rules at save, naming the field', T, async () => {
    const errors = await refused([
      { pattern: '/a', statusCode: 200, fault: 'explode' },
      { pattern: '/b', statusCode: 200, requiredState: 'paid' },
      { pattern: '/c', statusCode: 200, fault: 'slow' },
      { pattern: '/d', statusCode: 200, delayMs: { min: 5, max: 1 } },
      { pattern: '/orders/{id}', statusCode: 200, scenario: 'o', newState: 'x', stateKey: 'path.order' },
      { pattern: '/e', statusCode: 200, callbacks: [{ url: 'http://127.0.0.1:9/{{nope}}' }] },
      { pattern: '/f', statusCode: 200, callbacks: [{ url: '{{header.host}}/x' }] },
      {
        pattern: '/g',
        statusCode: 200,
        callbacks: [{ url: 'http://127.0.0.1:9/', signing: { scheme: 'md5' } }],
      },
    ]);
    assert.deepEqual(errors.map((e) => e.path).sort(), [
      'mocks[0].fault',
      'mocks[1].requiredState',
      'mocks[2].fault',
      'mocks[3].delayMs.max',
      'mocks[4].stateKey',
      'mocks[5].callbacks[0].url',
      'mocks[6].callbacks[0].url',
      'mocks[7].callbacks[0].signing.scheme',
    ]);
    assert.match(errors.find((e) => e.path === 'mocks[0].fault')?.message ?? '', /unknown fault "explode"/);
    // A callback to a private address is outside the default target policy.
    const policy = await refused([
      { pattern: '/h', statusCode: 200, callbacks: [{ url: 'http://10.1.2.3/hook' }] },
    ]);
    assert.deepEqual(
      policy.map((e) => e.path),
      ['mocks[0].callbacks[0].url'],
    );
  });
});
