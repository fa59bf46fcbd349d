// REST rate limits (spec section 8): 300 requests per key and 900 per IP in a 60 s window, 429 problem+json
// with Retry-After beyond them; a wait counts once when it starts; RATE_LIMITS=off lifts every limit.
// Each test starts its own server, so its counters start at zero.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { components } from '../../openapi/schema.d.ts';
import { eventually } from '../helpers/poll.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

type Problem = components['schemas']['Problem'] & { requestId?: string };

const T = { timeout: 20_000 };

/** `n` GET /whoami calls, 50 at a time; their statuses in order. */
async function burst(url: string, headers: Record<string, string>, n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let done = 0; done < n; done += 50) {
    const batch = Array.from({ length: Math.min(50, n - done) }, async () => {
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      return res.status;
    });
    statuses.push(...(await Promise.all(batch)));
  }
  return statuses;
}

/** A 429 rate-limited problem with an integer Retry-After of 1..60 s. */
async function assertRateLimited(res: Response): Promise<void> {
  const text = await res.text();
  assert.equal(res.status, 429, text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const body = JSON.parse(text) as Problem;
  assert.equal(body.type, 'urn:sandtrap:problem:rate-limited');
  assert.equal(body.status, 429);
  assert.equal(body.title, 'Too many requests');
  assert.ok(typeof body.detail === 'string' && body.detail.length > 0);
  assert.equal(body.requestId, res.headers.get('x-request-id'));
  const retryAfter = res.headers.get('retry-after') ?? '';
  assert.match(retryAfter, /^\d+$/, `Retry-After is whole seconds: ${JSON.stringify(retryAfter)}`);
  const seconds = Number(retryAfter);
  assert.ok(seconds >= 1 && seconds <= 60, `Retry-After ${seconds}`);
}

describeEachStore('REST rate limits', (getStore) => {
  /** A server on the suite's store (which describeEachStore closes), with these limits. */
  async function withServer(env: Record<string, string>, fn: (server: TestServer) => Promise<void>) {
    const server = await startTestServer({ ...getStore(), close: async () => {} }, env);
    try {
      await fn(server);
    } finally {
      await server.close();
    }
  }

  const auth = (key: string) => ({ authorization: `Bearer ${key}` });

  describe('per key', () => {
    it('300 requests with one key succeed, the 301st is 429; another key is unaffected', T, async () => {
      // The helper raises the per-key limit unless told otherwise; undefined brings back the default.
      const env = { RATE_LIMIT_API_PER_KEY: undefined as unknown as string, RATE_LIMIT_API_PER_IP: '100000' };
      await withServer(env, async (server) => {
        assert.equal(server.core.config.limits.apiPerKey, 300, 'the default per-key limit is 300');
        const a = await server.workspace();
        const b = await server.workspace();
        const url = `${server.apiUrl}/api/v1/whoami`;
        const statuses = await burst(url, auth(a.key), 300);
        assert.deepEqual(
          statuses.filter((s) => s !== 200),
          [],
        );
        await assertRateLimited(await fetch(url, { headers: auth(a.key) }));
        // Every endpoint shares the key's budget.
        await assertRateLimited(await a.api('/sandboxes'));
        // Another key has its own budget.
        const other = await b.api('/whoami');
        assert.equal(other.status, 200, await other.text());
        assert.deepEqual(
          (await burst(url, auth(b.key), 100)).filter((s) => s !== 200),
          [],
        );
      });
    });

    it('a wait counts once, when it starts', T, async () => {
      await withServer({ RATE_LIMIT_API_PER_KEY: '5' }, async (server) => {
        const ws = await server.workspace();
        const sb = await ws.createSandbox({ name: 'limited' }); // 1
        for (let i = 0; i < 3; i++) {
          const res = await ws.api(`/sandboxes/${sb.id}`); // 2, 3, 4
          assert.equal(res.status, 200, await res.text());
        }
        const pending = ws.api(`/sandboxes/${sb.id}/messages/wait?timeoutSeconds=1`); // 5
        // Seen open before it answered (the poll's timer is due before the wait's 1 s one): it blocked.
        await eventually('the wait to open', () => server.core.waits.active() === 1, 20_000, 10);
        const wait = await pending;
        assert.equal(wait.status, 204, await wait.text());
        await assertRateLimited(await ws.api(`/sandboxes/${sb.id}`));
        await assertRateLimited(await ws.api(`/sandboxes/${sb.id}/messages/wait?timeoutSeconds=0`));
      });
    });

    it('a wait over the limit is refused before it blocks', T, async () => {
      await withServer({ RATE_LIMIT_API_PER_KEY: '2' }, async (server) => {
        const ws = await server.workspace();
        const sb = await ws.createSandbox({ name: 'limited' }); // 1
        const first = await ws.api(`/sandboxes/${sb.id}/requests/wait?timeoutSeconds=0`); // 2
        assert.equal(first.status, 204, await first.text());
        // A 300 s wait refused inside the test's timeout: before it blocked.
        await assertRateLimited(await ws.api(`/sandboxes/${sb.id}/requests/wait?timeoutSeconds=300`));
        assert.equal(server.core.waits.active(), 0);
      });
    });
  });

  describe('per IP', () => {
    it('the 11st request from one address is 429 with another key and without a key', T, async () => {
      await withServer({ RATE_LIMIT_API_PER_IP: '10' }, async (server) => {
        const a = await server.workspace();
        const b = await server.workspace();
        const url = `${server.apiUrl}/api/v1/whoami`;
        assert.deepEqual(await burst(url, auth(a.key), 10), Array(10).fill(200));
        await assertRateLimited(await fetch(url, { headers: auth(b.key) }));
        await assertRateLimited(await fetch(url, { headers: { 'x-api-key': b.key } }));
        // Counted before authentication: no key is still 429, not 401.
        await assertRateLimited(await fetch(url));
        await assertRateLimited(await fetch(url, { headers: { authorization: 'Bearer stk_nonsense' } }));
      });
    });

    it('the default per-IP limit is 900', T, async () => {
      const env = { RATE_LIMIT_API_PER_IP: undefined as unknown as string };
      await withServer(env, async (server) => {
        assert.equal(server.core.config.limits.apiPerIp, 900);
        // Unauthenticated requests are cheap and count against the address only.
        const statuses = await burst(`${server.apiUrl}/api/v1/whoami`, {}, 900);
        assert.deepEqual(
          statuses.filter((s) => s !== 401),
          [],
        );
        await assertRateLimited(await fetch(`${server.apiUrl}/api/v1/whoami`));
      });
    });
  });

  describe('RATE_LIMITS=off', () => {
    it('lifts every REST limit: 400 requests all succeed', T, async () => {
      await withServer(
        { RATE_LIMITS: 'off', RATE_LIMIT_API_PER_KEY: '5', RATE_LIMIT_API_PER_IP: '5' },
        async (server) => {
          const ws = await server.workspace();
          const statuses = await burst(`${server.apiUrl}/api/v1/whoami`, auth(ws.key), 400);
          assert.deepEqual(
            statuses.filter((s) => s !== 200),
            [],
          );
          const res = await ws.api('/sandboxes');
          assert.equal(res.status, 200, await res.text());
          assert.equal(res.headers.get('x-ratelimit-limit'), null, 'no rate-limit headers');
        },
      );
    });
  });
});
