// Prometheus metrics (issue 38): METRICS=on serves /metrics on the API port with what each door answered
// (SMTP replies by command and code, captures by status, API requests by route template), waits by outcome
// and open, commit latency and batch sizes, and the process defaults; never a workspace or sandbox id unless
// METRICS_PER_WORKSPACE=on. METRICS_TOKEN guards it; METRICS=<host>:<port> moves it to its own listener.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sandboxTransport } from '../helpers/mail.ts';
import { eventually } from '../helpers/poll.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhookReceiver.ts';
import { describeEachStore } from '../helpers/stores.ts';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** The value of one sample, e.g. `sandtrap_waits_total{stream="messages",outcome="found"}`; 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (m === null || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[3] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[4]);
  }
  return 0;
}

async function scrape(url: string, token?: string): Promise<string> {
  const res = await fetch(url, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200, `scrape of ${url}`);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return res.text();
}

describeEachStore('metrics on the API port (METRICS=on)', (getStore) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(getStore(), { METRICS: 'on' });
  });
  after(() => server.close());

  it('counts SMTP replies, captures, API routes, waits and commits, with no ids in any label', async () => {
    const ws = await server.workspace();
    const sandbox = await ws.createSandbox({ name: 'metrics' });
    const before = await scrape(`${server.apiUrl}/metrics`);
    const transport = sandboxTransport(server.ports.smtp, sandbox);
    await transport.sendMail({ from: 'a@b.test', to: 'c@d.test', subject: 'counted', text: 'x' });
    transport.close();
    assert.equal((await fetch(`${sandbox.captureUrl}/hook`, { method: 'POST', body: '{}' })).status, 200);
    const unknown = sandbox.captureUrl.replace(sandbox.id, '00000000-0000-4000-8000-000000000000');
    assert.equal((await fetch(`${unknown}/hook`)).status, 404);
    const found = await ws.api(
      `/sandboxes/${sandbox.id}/messages/wait?subjectContains=counted&timeoutSeconds=5`,
    );
    assert.equal(found.status, 200);
    const none = await ws.api(
      `/sandboxes/${sandbox.id}/messages/wait?subjectContains=nothing&timeoutSeconds=0`,
    );
    assert.equal(none.status, 204);

    const text = await scrape(`${server.apiUrl}/metrics`);
    const grew = (name: string, labels: Record<string, string>) =>
      sample(text, name, labels) - sample(before, name, labels);
    assert.equal(
      grew('sandtrap_smtp_replies_total', { listener: 'submission', command: 'auth', code: '235' }),
      1,
    );
    assert.equal(
      grew('sandtrap_smtp_replies_total', { listener: 'submission', command: 'data', code: '250' }),
      1,
    );
    assert.equal(grew('sandtrap_captures_total', { status: '200' }), 1);
    assert.equal(grew('sandtrap_captures_total', { status: '404' }), 1);
    const waitRoute = '/api/v1/sandboxes/:sandboxId/messages/wait';
    assert.equal(grew('sandtrap_http_requests_total', { route: waitRoute, method: 'GET', status: '200' }), 1);
    assert.equal(grew('sandtrap_http_requests_total', { route: waitRoute, method: 'GET', status: '204' }), 1);
    assert.equal(grew('sandtrap_waits_total', { stream: 'messages', outcome: 'found' }), 1);
    assert.equal(grew('sandtrap_waits_total', { stream: 'messages', outcome: 'timeout' }), 1);
    assert.ok(grew('sandtrap_commit_seconds_count', { stream: 'messages' }) >= 1);
    assert.ok(grew('sandtrap_commit_seconds_count', { stream: 'requests' }) >= 1);
    assert.ok(grew('sandtrap_commit_batch_size_count', { stream: 'requests' }) >= 1);
    assert.ok(sample(text, 'sandtrap_store_connections') >= 1);
    assert.ok(text.includes('process_cpu_user_seconds_total'), 'the process defaults are there');
    assert.doesNotMatch(text, UUID, 'no workspace or sandbox id in any label');
  });

  it('shows waits open now, and the wake-up of a wait an arrival answered', async () => {
    const ws = await server.workspace();
    const sandbox = await ws.createSandbox({ name: 'open waits' });
    const waiting = ws.api(`/sandboxes/${sandbox.id}/requests/wait?timeoutSeconds=60`);
    await eventually('the wait to show as open', async () =>
      sample(await scrape(`${server.apiUrl}/metrics`), 'sandtrap_waits_open') >= 1 ? true : undefined,
    );
    const before = sample(await scrape(`${server.apiUrl}/metrics`), 'sandtrap_wait_wake_seconds_count');
    await fetch(`${sandbox.captureUrl}/arrives`);
    assert.equal((await waiting).status, 200);
    const text = await scrape(`${server.apiUrl}/metrics`);
    assert.equal(sample(text, 'sandtrap_wait_wake_seconds_count') - before, 1);
  });
});

describeEachStore('metrics of webhook deliveries', (getStore) => {
  // A suite of its own: its `after` (the server and its webhook sender stop) runs before the store is dropped.
  describe('METRICS=on with a webhook', () => {
    let server: TestServer;
    let receiver: WebhookReceiver;
    before(async () => {
      server = await startTestServer(getStore(), { METRICS: 'on', WEBHOOK_RETRY_BASE_MS: '20' });
      receiver = await startWebhookReceiver();
    });
    after(async () => {
      await server.close();
      await receiver.close();
    });

    it('count attempts by outcome and time each delivery from queued to 2xx', async () => {
      const ws = await server.workspace();
      const sandbox = await ws.createSandbox({ name: 'hooked' });
      const created = await ws.api('/webhooks', {
        method: 'POST',
        body: JSON.stringify({ url: receiver.url, sandboxId: sandbox.id, events: ['request.received'] }),
      });
      assert.equal(created.status, 201);
      receiver.secret = ((await created.json()) as { secret: string }).secret;
      receiver.answers = [503];
      await fetch(`${sandbox.captureUrl}/first`, { method: 'POST', body: '{}' });
      // `received` holds only the deliveries answered 2xx: the 503 is seen in the counters below.
      await eventually('the delivery after a retry', () =>
        receiver.received.length >= 1 ? true : undefined,
      );
      const text = await eventually('the delivery counted', async () => {
        const t = await scrape(`${server.apiUrl}/metrics`);
        return sample(t, 'sandtrap_webhook_attempts_total', { outcome: 'delivered' }) >= 1 ? t : undefined;
      });
      assert.equal(sample(text, 'sandtrap_webhook_attempts_total', { outcome: 'retrying' }), 1);
      assert.equal(sample(text, 'sandtrap_webhook_attempts_total', { outcome: 'delivered' }), 1);
      assert.equal(sample(text, 'sandtrap_webhook_delivered_seconds_count'), 1);
      assert.doesNotMatch(
        text
          .split('\n')
          .filter((l) => l.startsWith('sandtrap_webhook'))
          .join('\n'),
        UUID,
      );
    });
  });
});

describeEachStore('metrics guarded by METRICS_TOKEN', (getStore) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(getStore(), { METRICS: 'on', METRICS_TOKEN: 'scrape-me-please' });
  });
  after(() => server.close());

  it('401 without the bearer token or with another, 200 with it; never the session cookie', async () => {
    const url = `${server.apiUrl}/metrics`;
    const bare = await fetch(url);
    assert.equal(bare.status, 401);
    assert.equal(bare.headers.get('www-authenticate'), 'Bearer');
    assert.equal((await fetch(url, { headers: { authorization: 'Bearer scrape-me-pleasX' } })).status, 401);
    const ws = await server.workspace();
    assert.equal((await fetch(url, { headers: { authorization: `Bearer ${ws.key}` } })).status, 401);
    await scrape(url, 'scrape-me-please');
  });
});

describeEachStore('metrics on a listener of their own, per workspace', (getStore) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(getStore(), { METRICS: '127.0.0.1:0', METRICS_PER_WORKSPACE: 'on' });
  });
  after(() => server.close());

  it('serve /metrics on METRICS=<host>:<port>, not on the API port, with per-workspace counters', async () => {
    const port = server.ports.metrics;
    assert.ok(typeof port === 'number' && port > 0);
    assert.equal((await fetch(`${server.apiUrl}/metrics`)).status, 404);
    const ws = await server.workspace();
    const sandbox = await ws.createSandbox({ name: 'per workspace' });
    await fetch(`${sandbox.captureUrl}/x`);
    const text = await scrape(`http://127.0.0.1:${port}/metrics`);
    assert.equal(
      sample(text, 'sandtrap_workspace_items_total', { workspace: ws.orgId, stream: 'requests' }),
      1,
    );
    assert.equal((await fetch(`http://127.0.0.1:${port}/other`)).status, 404);
    const ready = (await (await fetch(`${server.apiUrl}/readyz`)).json()) as {
      checks: Record<string, string>;
    };
    assert.equal(ready.checks.metrics, 'ok');
  });
});

describe('metrics off (the default)', () => {
  it('METRICS unset: no /metrics route', async () => {
    const { loadConfig } = await import('../../src/core/config.ts');
    assert.deepEqual(loadConfig({}).metrics, { mode: 'off' });
    assert.deepEqual(loadConfig({ METRICS: ':9464', HOST: '0.0.0.0' }).metrics, {
      mode: 'listener',
      host: '0.0.0.0',
      port: 9464,
    });
    assert.throws(() => loadConfig({ METRICS: 'yes' }), /METRICS: must be off, on or <host>:<port>/);
  });
});
