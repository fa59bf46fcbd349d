// Outgoing webhooks over real HTTP, grouped by status: create/read/delete, signed deliveries of mail and HTTP
// captures verified by the `standardwebhooks` package, retries with a delivery log, pings, refused targets.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sendRecorded } from '../helpers/captureClient.ts';
import { sandboxTransport } from '../helpers/mail.ts';
import { eventually } from '../helpers/poll.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhookReceiver.ts';

async function createHook(
  ws: TestServerWorkspace,
  receiver: WebhookReceiver,
  body: Record<string, unknown>,
): Promise<Record<string, any>> {
  const res = await ws.api('/webhooks', {
    method: 'POST',
    body: JSON.stringify({ url: receiver.url, ...body }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  const hook = (await res.json()) as Record<string, any>;
  receiver.secret = hook.secret;
  return hook;
}

describeEachStore('webhooks', (getStore) => {
  // A suite of its own: its `after` (the server and its sender stop) runs before the store's is dropped.
  describe('over HTTP', () => {
    let server: TestServer;
    const receivers: WebhookReceiver[] = [];
    const receiver = async () => {
      const r = await startWebhookReceiver();
      receivers.push(r);
      return r;
    };
    before(async () => {
      server = await startTestServer(getStore(), { WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_TIMEOUT_MS: '2000' });
    });
    after(async () => {
      await server.close();
      await Promise.all(receivers.map((r) => r.close()));
    });

    describe('201/200/202/204', () => {
      it('shows the whsec_ secret once: not on GET nor in the list', async () => {
        const ws = await server.workspace();
        const r = await receiver();
        const hook = await createHook(ws, r, { events: ['message.received'], description: 'ci' });
        assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
        assert.deepEqual(hook.events, ['message.received']);
        assert.equal(hook.sandboxId, null);
        assert.equal(hook.description, 'ci');
        const got = (await (await ws.api(`/webhooks/${hook.id}`)).json()) as Record<string, any>;
        assert.equal(got.id, hook.id);
        assert.equal('secret' in got, false);
        const list = (await (await ws.api('/webhooks')).json()) as { items: Array<Record<string, any>> };
        assert.deepEqual(
          list.items.map((h) => h.id),
          [hook.id],
        );
        assert.equal('secret' in (list.items[0] ?? {}), false);
      });

      it('delivers every mail and HTTP capture once, signed, with the stream event as data', async () => {
        const ws = await server.workspace();
        const sandbox = await ws.createSandbox();
        const r = await receiver();
        await createHook(ws, r, { events: ['message.received', 'request.received'] });
        const transport = sandboxTransport(server.ports.smtp, sandbox);
        const subjects = ['one', 'two', 'three'];
        for (const subject of subjects) {
          await transport.sendMail({ from: 'a@example.com', to: 'b@example.com', subject, text: subject });
        }
        transport.close();
        const requestIds: string[] = [];
        for (const n of [1, 2, 3]) {
          const got = await sendRecorded(server.ports.capture, sandbox.id, {
            method: 'POST',
            path: `/n${n}`,
            body: '{}',
          });
          requestIds.push(got.requestId);
        }
        await eventually('six deliveries', () => r.received.length >= 6);
        assert.deepEqual(r.rejected, []);
        const mails = r.received.filter((e) => e.type === 'message.received');
        const requests = r.received.filter((e) => e.type === 'request.received');
        assert.deepEqual(mails.map((e) => e.data.subject).sort(), [...subjects].sort());
        assert.deepEqual(requests.map((e) => e.data.id).sort(), [...requestIds].sort());
        for (const e of r.received) {
          assert.equal(e.data.sandboxId, sandbox.id);
          assert.match(e.eventId ?? '', /^[A-Za-z0-9_-]{22}$/);
        }
        // Exactly once: one webhook-id per event, and no event twice.
        assert.equal(r.ids().size, 6);
        assert.equal(new Set(r.received.map((e) => e.data.id)).size, 6);
      });

      it('retries a 500 and logs both attempts in the delivery log', async () => {
        const ws = await server.workspace();
        const sandbox = await ws.createSandbox();
        const r = await receiver();
        r.answers = [500];
        const hook = await createHook(ws, r, { events: ['request.received'], sandboxId: sandbox.id });
        await sendRecorded(server.ports.capture, sandbox.id, { method: 'POST', path: '/retry', body: 'x' });
        await eventually('the retried delivery', () => r.received.length === 1);
        const log = await eventually('two logged attempts', async () => {
          const page = (await (await ws.api(`/webhooks/${hook.id}/deliveries`)).json()) as {
            items: Array<Record<string, any>>;
          };
          return page.items.length === 2 ? page.items : undefined;
        });
        const [second, first] = log;
        assert.equal(first?.attempt, 1);
        assert.equal(first?.outcome, 'retrying');
        assert.equal(first?.statusCode, 500);
        assert.equal(first?.responseExcerpt, 'refused with 500');
        assert.match(first?.error, /HTTP 500/);
        assert.ok(first?.nextAttemptAt !== null);
        assert.equal(second?.attempt, 2);
        assert.equal(second?.outcome, 'delivered');
        assert.equal(second?.statusCode, 200);
        assert.equal(second?.messageId, first?.messageId);
        assert.equal(second?.messageId, r.received[0]?.id);
        assert.equal(typeof second?.durationMs, 'number');
      });

      it('pages the delivery log with a cursor', async () => {
        const ws = await server.workspace();
        const r = await receiver();
        const hook = await createHook(ws, r, { events: ['sandbox.created'] });
        for (let i = 0; i < 3; i++) await ws.api(`/webhooks/${hook.id}/ping`, { method: 'POST' });
        await eventually('three pings', () => r.received.length === 3);
        const first = (await (await ws.api(`/webhooks/${hook.id}/deliveries?limit=2`)).json()) as Record<
          string,
          any
        >;
        assert.equal(first.items.length, 2);
        assert.equal(typeof first.nextCursor, 'string');
        const rest = (await (
          await ws.api(`/webhooks/${hook.id}/deliveries?limit=2&cursor=${first.nextCursor}`)
        ).json()) as Record<string, any>;
        assert.equal(rest.items.length, 1);
        assert.equal(rest.nextCursor, null);
        const ids = [...first.items, ...rest.items].map((d: Record<string, any>) => d.messageId);
        assert.deepEqual(new Set(ids), r.ids());
      });

      it('sends a ping with the returned webhook-id', async () => {
        const ws = await server.workspace();
        const r = await receiver();
        const hook = await createHook(ws, r, { events: ['message.received'] });
        const res = await ws.api(`/webhooks/${hook.id}/ping`, { method: 'POST' });
        assert.equal(res.status, 202);
        const { messageId } = (await res.json()) as { messageId: string };
        assert.match(messageId, /^msg_[0-9a-f]{32}$/);
        await eventually('the ping', () => r.received.length === 1);
        assert.deepEqual(r.received[0], {
          id: messageId,
          type: 'webhook.ping',
          eventId: undefined,
          data: { webhookId: hook.id },
        });
      });

      it('stops delivering once the webhook is deleted', async () => {
        const ws = await server.workspace();
        const sandbox = await ws.createSandbox();
        const gone = await receiver();
        const kept = await receiver();
        const deleted = await createHook(ws, gone, { events: ['request.received'], sandboxId: sandbox.id });
        await createHook(ws, kept, { events: ['request.received'], sandboxId: sandbox.id });
        const res = await ws.api(`/webhooks/${deleted.id}`, { method: 'DELETE' });
        assert.equal(res.status, 204);
        assert.equal((await ws.api(`/webhooks/${deleted.id}`)).status, 404);
        await sendRecorded(server.ports.capture, sandbox.id, { method: 'POST', path: '/after', body: 'x' });
        // The kept webhook hearing of the capture means the fan-out has passed it: the deleted one got no row.
        await eventually('the kept webhook', () => kept.received.length === 1);
        assert.deepEqual(gone.received, []);
      });

      it('delivers only the scoped sandbox and the subscribed event types', async () => {
        const ws = await server.workspace();
        const mine = await ws.createSandbox({ name: 'mine' });
        const other = await ws.createSandbox({ name: 'other' });
        const r = await receiver();
        await createHook(ws, r, { events: ['request.received', 'sandbox.updated'], sandboxId: mine.id });
        await sendRecorded(server.ports.capture, other.id, { method: 'POST', path: '/other', body: 'x' });
        const rename = await ws.api(`/sandboxes/${mine.id}`, {
          method: 'PUT',
          body: JSON.stringify({ name: 'renamed' }),
        });
        assert.equal(rename.status, 200);
        const got = await sendRecorded(server.ports.capture, mine.id, {
          method: 'POST',
          path: '/mine',
          body: 'x',
        });
        await eventually('two deliveries', () => r.received.length === 2);
        assert.deepEqual(
          r.received.map((e) => e.type),
          ['sandbox.updated', 'request.received'],
        );
        assert.equal(r.received[0]?.data.name, 'renamed');
        assert.equal('smtpPassword' in (r.received[0]?.data ?? {}), false);
        assert.equal(r.received[1]?.data.id, got.requestId);
      });

      it('a target that never answers holds neither capture nor other webhooks', async () => {
        const ws = await server.workspace();
        const sandbox = await ws.createSandbox();
        const stuck = await receiver();
        stuck.delayMs = 600_000;
        const healthy = await receiver();
        const hook = await createHook(ws, stuck, { events: ['request.received'], sandboxId: sandbox.id });
        await createHook(ws, healthy, { events: ['request.received'], sandboxId: sandbox.id });
        const sent: string[] = [];
        for (const n of [1, 2, 3, 4, 5]) {
          sent.push(
            (
              await sendRecorded(server.ports.capture, sandbox.id, {
                method: 'POST',
                path: `/s${n}`,
                body: 'x',
              })
            ).requestId,
          );
        }
        await eventually('the healthy webhook to hear all five', () => healthy.received.length === 5);
        assert.deepEqual(healthy.received.map((e) => e.data.id).sort(), [...sent].sort());
        const listed = (await (await ws.api(`/sandboxes/${sandbox.id}/requests`)).json()) as {
          items: unknown[];
        };
        assert.equal(listed.items.length, 5);
        const timedOut = await eventually('a timed-out attempt in the log', async () => {
          const page = (await (await ws.api(`/webhooks/${hook.id}/deliveries`)).json()) as {
            items: Array<Record<string, any>>;
          };
          return page.items.find((d) => d.outcome === 'retrying');
        });
        assert.equal(timedOut.statusCode, null);
        assert.match(timedOut.error, /no answer within 2000 ms/);
      });

      it(
        'delivers everything once the receiver is back after a 30 s outage',
        { timeout: 240_000 },
        async () => {
          const ws = await server.workspace();
          const sandbox = await ws.createSandbox();
          const before = await receiver();
          const port = Number(new URL(before.url).port);
          const hook = await createHook(ws, before, { events: ['request.received'], sandboxId: sandbox.id });
          await before.close();
          const down = Date.now();
          const sent: string[] = [];
          const capture = async (n: number) =>
            (
              await sendRecorded(server.ports.capture, sandbox.id, {
                method: 'POST',
                path: `/o${n}`,
                body: 'x',
              })
            ).requestId;
          for (const n of [1, 2, 3]) sent.push(await capture(n));
          await eventually('refused attempts in the log', async () => {
            const page = (await (await ws.api(`/webhooks/${hook.id}/deliveries`)).json()) as {
              items: Array<Record<string, any>>;
            };
            return page.items.filter((d) => /refused the connection/.test(d.error ?? '')).length >= 6;
          });
          // Arrivals keep coming while the receiver is down, and the outage lasts the 30 s the issue names: the
          // backoff has grown to seconds by then, so the first attempts after it are late ones.
          sent.push(await capture(4));
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, 30_000 - (Date.now() - down))));
          sent.push(await capture(5));
          const back = await startWebhookReceiver('/hook', port);
          receivers.push(back);
          back.secret = hook.secret;
          await eventually('all five after the outage', () => back.received.length >= 5, 120_000);
          assert.deepEqual(back.received.map((e) => e.data.id).sort(), [...sent].sort());
          assert.equal(back.ids().size, 5, 'each event once');
          assert.deepEqual(back.rejected, []);
        },
      );
    });

    describe('400', () => {
      for (const [url, words] of [
        ['http://10.1.2.3/hook', /private address.*WEBHOOK_TARGETS/],
        ['http://169.254.169.254/latest/meta-data', /link-local address.*WEBHOOK_TARGETS/],
        ['ftp://example.com/x', /http or https/],
      ] as const) {
        it(`refuses ${url}, naming the rule`, async () => {
          const ws = await server.workspace();
          const res = await ws.api('/webhooks', {
            method: 'POST',
            body: JSON.stringify({ url, events: ['message.received'] }),
          });
          assert.equal(res.status, 400);
          assert.match(String(res.headers.get('content-type')), /^application\/problem\+json/);
          const problem = (await res.json()) as { errors: Array<{ path: string; message: string }> };
          assert.equal(problem.errors[0]?.path, 'url');
          assert.match(problem.errors[0]?.message ?? '', words);
        });
      }

      it('refuses unknown event types and an empty list', async () => {
        const ws = await server.workspace();
        for (const events of [['message.exploded'], []]) {
          const res = await ws.api('/webhooks', {
            method: 'POST',
            body: JSON.stringify({ url: 'http://127.0.0.1:9/x', events }),
          });
          assert.equal(res.status, 400);
          const problem = (await res.json()) as { errors: Array<{ path: string }> };
          assert.match(problem.errors[0]?.path ?? '', /^events/);
        }
      });
    });

    describe('401/404', () => {
      it('needs an API key', async () => {
        const res = await fetch(`${server.apiUrl}/api/v1/webhooks`);
        assert.equal(res.status, 401);
      });

      it('hides another workspace’s webhook and sandbox', async () => {
        const a = await server.workspace();
        const b = await server.workspace();
        const r = await receiver();
        const hook = await createHook(a, r, { events: ['message.received'] });
        assert.equal((await b.api(`/webhooks/${hook.id}`)).status, 404);
        assert.equal((await b.api(`/webhooks/${hook.id}/deliveries`)).status, 404);
        assert.equal((await b.api(`/webhooks/${hook.id}/ping`, { method: 'POST' })).status, 404);
        assert.equal((await b.api(`/webhooks/${hook.id}`, { method: 'DELETE' })).status, 404);
        const sandbox = await a.createSandbox();
        const res = await b.api('/webhooks', {
          method: 'POST',
          body: JSON.stringify({ url: r.url, events: ['message.received'], sandboxId: sandbox.id }),
        });
        assert.equal(res.status, 404);
      });
    });
  });
});
