// Callbacks from mock rules (issue 40), through the real listener and real receivers: a rule's callback is
// rendered from the request it answered, queued in the webhook outbox once the request is recorded, and
// delivered after its delay, signed per Standard Webhooks (verified with the `standardwebhooks` package) or
// with an HMAC-SHA256 header; a failing receiver gets the webhook retry policy; and the sandbox's callback
// list shows each callback's state and attempts, which is how a test waits for one.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import type { components } from '../../openapi/schema.d.ts';
import { eventually } from '../helpers/poll.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhookReceiver.ts';

type Queued = components['schemas']['QueuedCallback'];
const T = { timeout: 90_000 };

describeEachStore('Mock rule callbacks', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let sandboxId: string;
  let base: string;
  let receiver: WebhookReceiver;

  before(async () => {
    server = await startTestServer(getStore(), { WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_TIMEOUT_MS: '2000' });
    ws = await server.workspace();
    sandboxId = (await ws.createSandbox({ name: 'callbacks' })).id as string;
    base = `http://127.0.0.1:${server.ports.capture}/${sandboxId}`;
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await receiver.close();
    await server.close();
  });

  const setRules = async (mocks: unknown[]) => {
    const res = await ws.api(`/sandboxes/${sandboxId}/mocks`, {
      method: 'PUT',
      body: JSON.stringify({ mocks }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    return ((await res.json()) as { mocks: Array<components['schemas']['MockRule']> }).mocks;
  };
  const pay = async (order: string): Promise<string> => {
    const res = await fetch(`${base}/orders/${order}/pay`, { method: 'POST', body: '{"amount":5}' });
    await res.arrayBuffer();
    assert.equal(res.status, 202);
    return res.headers.get('x-sandtrap-request-id') as string;
  };
  /** The callback queued for a request, once it is no longer pending. */
  const settled = (requestId: string) =>
    eventually(
      `the callback of ${requestId} settled`,
      async () => {
        const res = await ws.api(`/sandboxes/${sandboxId}/callbacks?requestId=${requestId}`);
        const page = (await res.json()) as { items: Queued[] };
        const item = page.items[0];
        return item !== undefined && item.status !== 'pending' ? item : undefined;
      },
      60_000,
    );

  const paymentRule = (url: string, signing: unknown, delayMs = 50) => ({
    name: 'pay',
    method: 'POST',
    pattern: '/orders/{id}/pay',
    statusCode: 202,
    callbacks: [
      {
        delayMs,
        url: `${url}?order={{path.id|url}}`,
        headers: { 'X-Order': '{{path.id}}' },
        body: '{"type":"charge.succeeded","data":{"id":"{{path.id}}","amount":{{body.amount|json}}}}',
        signing,
      },
    ],
  });

  it('delivers a rendered callback signed per Standard Webhooks, once', T, async () => {
    const [rule] = await setRules([paymentRule(receiver.url, { scheme: 'standard-webhooks' })]);
    const secret = rule?.callbacks?.[0]?.signing?.secret;
    assert.match(secret ?? '', /^whsec_/, 'a secret is made and returned with the rule');
    receiver.secret = secret;
    const requestId = await pay('42');
    const queued = await settled(requestId);
    assert.equal(queued.status, 'delivered');
    assert.equal(queued.ruleId, rule?.id);
    assert.equal(queued.url, `${receiver.url}?order=42`);
    assert.deepEqual(
      queued.deliveries.map((d) => [d.attempt, d.outcome, d.statusCode]),
      [[1, 'delivered', 200]],
    );
    assert.deepEqual(receiver.rejected, []);
    const got = receiver.received.filter((r) => r.data.id === '42');
    assert.equal(got.length, 1);
    assert.equal(got[0]?.type, 'charge.succeeded');
    assert.equal(got[0]?.data.amount, 5);
    assert.equal(got[0]?.id, queued.id, 'the webhook-id is the callback id');
  });

  it('retries a failing receiver with the webhook retry policy', T, async () => {
    receiver.answers.push(500, 503);
    const requestId = await pay('43');
    const queued = await settled(requestId);
    assert.equal(queued.status, 'delivered');
    assert.deepEqual(
      queued.deliveries.map((d) => [d.attempt, d.outcome, d.statusCode]),
      [
        [1, 'retrying', 500],
        [2, 'retrying', 503],
        [3, 'delivered', 200],
      ],
    );
    assert.equal(receiver.received.filter((r) => r.data.id === '43').length, 1);
  });

  it('signs with an HMAC-SHA256 header in the provider style asked for', T, async () => {
    const got: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> = [];
    const hmacReceiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push({
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
        });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => hmacReceiver.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(hmacReceiver.address() as AddressInfo).port}/github`;
      await setRules([
        {
          ...paymentRule(url, {
            scheme: 'hmac-sha256',
            secret: 'shh',
            header: 'X-Hub-Signature-256',
            prefix: 'sha256=',
          }),
        },
      ]);
      const requestId = await pay('44');
      assert.equal((await settled(requestId)).status, 'delivered');
      assert.equal(got.length, 1);
      const [hit] = got;
      assert.equal(hit?.method, 'POST');
      assert.equal(hit?.url, '/github?order=44');
      assert.equal(hit?.headers['x-order'], '44');
      const expected = `sha256=${createHmac('sha256', 'shh')
        .update(hit?.body ?? '')
        .digest('hex')}`;
      assert.equal(hit?.headers['x-hub-signature-256'], expected);
      assert.equal(hit?.headers['webhook-signature'], undefined);
    } finally {
      await new Promise((r) => hmacReceiver.close(r));
    }
  });
});
