// Waiting for a mock rule's callback (issue 40): GET /sandboxes/{id}/callbacks/wait and the MCP tool
// wait_for_callback block until the callback a captured request queued reaches an outcome. The receiver is
// down at first, so the first attempt fails: a wait for `attempted` answers with that attempt while a wait for
// `delivered` stays open, and answers only once the receiver is up and a retry reached it, exactly once.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { components } from '../../openapi/schema.d.ts';
import { connectHttp, fails, ok } from '../mcp/client.ts';
import { freePort } from '../helpers/process.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhookReceiver.ts';

type Queued = components['schemas']['QueuedCallback'];
const T = { timeout: 120_000 };

describeEachStore('Waiting for a mock callback', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let client: Client;
  let sandboxId: string;
  let base: string;
  const receivers: WebhookReceiver[] = [];

  before(async () => {
    server = await startTestServer(getStore(), { WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_TIMEOUT_MS: '2000' });
    ws = await server.workspace();
    client = await connectHttp(server.apiUrl, ws.key);
    sandboxId = (await ws.createSandbox({ name: 'callback waits' })).id as string;
    base = `http://127.0.0.1:${server.ports.capture}/${sandboxId}`;
  });
  after(async () => {
    for (const r of receivers) await r.close();
    await client.close();
    await server.close();
  });

  /** One rule whose callback goes to `url`, signed per Standard Webhooks; the rule as saved. */
  const setRule = async (url: string) => {
    const res = await ws.api(`/sandboxes/${sandboxId}/mocks`, {
      method: 'PUT',
      body: JSON.stringify({
        mocks: [
          {
            name: 'pay',
            method: 'POST',
            pattern: '/orders/{id}/pay',
            statusCode: 202,
            callbacks: [
              {
                url: `${url}?order={{path.id|url}}`,
                body: '{"type":"charge.succeeded","data":{"id":"{{path.id}}"}}',
                signing: { scheme: 'standard-webhooks' },
              },
            ],
          },
        ],
      }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    return ((await res.json()) as { mocks: Array<components['schemas']['MockRule']> }).mocks[0];
  };
  const pay = async (order: string): Promise<string> => {
    const res = await fetch(`${base}/orders/${order}/pay`, { method: 'POST', body: '{}' });
    await res.arrayBuffer();
    assert.equal(res.status, 202);
    return res.headers.get('x-sandtrap-request-id') as string;
  };
  const wait = (query: string) => ws.api(`/sandboxes/${sandboxId}/callbacks/wait?${query}`);

  it(
    'answers "attempted" at the failed first try, and "delivered" only once a retry reached the receiver',
    T,
    async () => {
      const port = await freePort(); // nothing listens there yet
      const rule = await setRule(`http://127.0.0.1:${port}/hook`);
      const requestId = await pay('1');
      let deliveredAnswered = false;
      const delivered = wait(`requestId=${requestId}&timeoutSeconds=90`).then(async (res) => {
        deliveredAnswered = true;
        return res;
      });

      const attempted = await wait(`requestId=${requestId}&outcome=attempted&timeoutSeconds=60`);
      assert.equal(attempted.status, 200);
      const first = (await attempted.json()) as Queued;
      assert.equal(first.status, 'pending');
      assert.equal(first.deliveries[0]?.outcome, 'retrying');
      assert.match(first.deliveries[0]?.error ?? '', /ECONNREFUSED|refused/i);
      assert.equal(deliveredAnswered, false, 'the wait for delivery stays open while the receiver is down');

      const receiver = await startWebhookReceiver('/hook', port);
      receivers.push(receiver);
      receiver.secret = rule?.callbacks?.[0]?.signing?.secret ?? undefined;
      const res = await delivered;
      assert.equal(res.status, 200);
      const done = (await res.json()) as Queued;
      assert.equal(done.status, 'delivered');
      assert.equal(done.requestId, requestId);
      assert.equal(done.ruleId, rule?.id);
      assert.equal(done.deliveries.at(-1)?.outcome, 'delivered');
      assert.ok(done.deliveries.length >= 2, 'the failed try and the delivery');
      // The answer came after the receiver had the callback, verified, and once.
      assert.deepEqual(
        receiver.received.filter((r) => r.data.id === '1').map((r) => r.id),
        [done.id],
      );
      assert.deepEqual(receiver.rejected, []);

      // Already delivered: a new wait answers at once with it, by rule too.
      const again = await wait(`ruleId=${rule?.id}&timeoutSeconds=0`);
      assert.equal(again.status, 200);
      assert.equal(((await again.json()) as Queued).id, done.id);
    },
  );

  it('answers 204 at the timeout when nothing matching reaches the outcome', T, async () => {
    const other = '00000000-0000-4000-8000-000000000000';
    const res = await wait(`requestId=${other}&timeoutSeconds=1`);
    assert.equal(res.status, 204);
    assert.equal(await res.text(), '');
    const failed = await wait(`outcome=failed&timeoutSeconds=0`);
    assert.equal(failed.status, 204, 'no callback has failed for good');
  });

  it('refuses a bad outcome or timeout by name, and an unknown sandbox with 404', T, async () => {
    const bad = await wait('outcome=maybe');
    assert.equal(bad.status, 400);
    assert.match(bad.headers.get('content-type') ?? '', /application\/problem\+json/);
    const body = (await bad.json()) as { errors: Array<{ path: string }> };
    assert.ok(
      body.errors.some((e) => e.path === 'outcome'),
      JSON.stringify(body),
    );
    const long = await wait('timeoutSeconds=301');
    assert.equal(long.status, 400);
    const missing = await ws.api(
      `/sandboxes/00000000-0000-4000-8000-000000000001/callbacks/wait?timeoutSeconds=0`,
    );
    assert.equal(missing.status, 404);
  });

  it(
    'MCP wait_for_callback returns the delivered callback, a timeout with the newest one, or an isError',
    T,
    async () => {
      const receiver = await startWebhookReceiver('/mcp-hook');
      receivers.push(receiver);
      const rule = await setRule(receiver.url);
      receiver.secret = rule?.callbacks?.[0]?.signing?.secret ?? undefined;
      const requestId = await pay('2');
      const got = await ok(client, 'wait_for_callback', {
        sandbox_id: sandboxId,
        request_id: requestId,
        timeout_seconds: 60,
      });
      assert.equal(got.status, 'reached');
      assert.equal(got.callback.status, 'delivered');
      assert.equal(got.callback.request_id, requestId);
      assert.equal(got.callback.attempts.at(-1).status_code, 200);
      assert.match(got.hint, /Delivered to/);
      assert.equal(receiver.received.filter((r) => r.data.id === '2').length, 1);

      const none = await ok(client, 'wait_for_callback', {
        sandbox_id: sandboxId,
        request_id: requestId,
        outcome: 'failed',
        timeout_seconds: 1,
      });
      assert.equal(none.status, 'timeout');
      assert.equal(none.callback.status, 'delivered', 'the newest matching callback, as it stands');
      const refused = await fails(client, 'wait_for_callback', { sandbox_id: sandboxId, outcome: 'maybe' });
      assert.match(refused, /outcome/);
    },
  );
});
