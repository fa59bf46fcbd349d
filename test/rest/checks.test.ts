// REST checks of a message: mail sent over SMTP with nodemailer, its HTML compatibility and spam-style score
// read back, and its links checked on POST against a local HTTP server (redirect chain, 404) and a private
// address the webhook policy refuses; nothing is fetched before the POST.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import type { components } from '../../openapi/schema.d.ts';
import { onlyMessage, sandboxTransport } from '../helpers/mail.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

type HtmlReport = components['schemas']['HtmlCheckReport'];
type SpamReport = components['schemas']['SpamCheckReport'];
type LinkReport = components['schemas']['LinkCheckReport'];

describeEachStore('REST message checks', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let site: http.Server;
  let siteUrl: string;
  const siteHits: string[] = [];

  before(async () => {
    site = http.createServer((req, res) => {
      siteHits.push(req.url ?? '');
      if (req.url === '/start') res.writeHead(301, { location: '/next' }).end();
      else if (req.url === '/next') res.writeHead(307, { location: '/landing' }).end();
      else if (req.url === '/landing') res.writeHead(200).end('welcome');
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    server = await startTestServer(getStore());
    ws = await server.workspace('checks');
  });
  after(async () => {
    await server.close();
    await new Promise<void>((resolve) => site.close(() => resolve()));
  });

  async function sendNewsletter(): Promise<{ sandboxId: string; messageId: string }> {
    const sb = await ws.createSandbox({ name: 'checks' });
    const transport = sandboxTransport(server.ports.smtp, sb);
    await transport.sendMail({
      from: 'Acme <news@acme.test>',
      to: 'ada@example.test',
      subject: 'HUGE SAVINGS INSIDE!!!',
      html: [
        '<html><head><style>.hero { display: flex; }</style></head>',
        '<body><div class="hero">Spring sale: click here for offers</div>',
        `<a href="${siteUrl}/start">Shop now</a>`,
        `<a href="${siteUrl}/gone">Old offer</a>`,
        '<a href="http://192.168.7.9/admin">Router</a>',
        '<a href="https://evil.test/login">www.acme.test</a>',
        '<video src="https://acme.test/v.mp4"></video></body></html>',
      ].join('\n'),
    });
    transport.close();
    const message = await onlyMessage(ws, sb.id);
    return { sandboxId: sb.id, messageId: message.id };
  }

  it('GET checks/html reports features per client with the line in the source', async () => {
    const hitsBefore = siteHits.length;
    const { sandboxId, messageId } = await sendNewsletter();
    const res = await ws.api(`/sandboxes/${sandboxId}/messages/${messageId}/checks/html`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as HtmlReport;
    assert.equal(body.hasHtml, true);
    const video = body.features.find((f) => f.title === '<video> element');
    assert.ok(video, body.features.map((f) => f.title).join(', '));
    assert.equal(video.positions[0]?.line, 7);
    assert.ok(video.clients.some((c) => c.client === 'outlook.windows' && c.support === 'none'));
    assert.ok(body.features.some((f) => f.title === 'display' || f.title === 'display:flex'));
    assert.ok(body.total.supported > 0 && body.total.supported < 100);
    assert.equal(siteHits.length, hitsBefore, 'capture and read fetched no link');
  });

  it('GET checks/spam names the rules that fired, each with its score and why', async () => {
    const { sandboxId, messageId } = await sendNewsletter();
    const res = await ws.api(`/sandboxes/${sandboxId}/messages/${messageId}/checks/spam`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as SpamReport;
    const ids = body.hits.map((h) => h.id);
    for (const id of [
      'SUBJECT_ALL_CAPS',
      'SUBJECT_EXCLAMATIONS',
      'MISSING_LIST_UNSUBSCRIBE',
      'BLOCKLISTED_PHRASE',
      'LINK_TEXT_DOMAIN_MISMATCH',
    ]) {
      assert.ok(ids.includes(id), `${id} in ${ids.join(', ')}`);
    }
    // nodemailer adds Date and Message-ID: those rules stay quiet.
    assert.ok(!ids.includes('MISSING_DATE') && !ids.includes('MISSING_MESSAGE_ID'));
    assert.ok(body.hits.every((h) => h.score > 0 && h.explanation.length > 10));
    assert.equal(body.threshold, 5);
    assert.equal(body.isSpam, body.score >= 5);
  });

  it('POST checks/links fetches each link now: redirects, 404 and a refused private target', async () => {
    const { sandboxId, messageId } = await sendNewsletter();
    const hitsBefore = siteHits.length;
    const res = await ws.api(`/sandboxes/${sandboxId}/messages/${messageId}/checks/links`, {
      method: 'POST',
    });
    assert.equal(res.status, 200);
    const body = (await res.json()) as LinkReport;
    const byText = new Map(body.links.map((l) => [l.text, l]));
    const shop = byText.get('Shop now');
    assert.equal(shop?.status, 'ok');
    assert.deepEqual(
      shop?.redirects.map((r) => r.statusCode),
      [301, 307],
    );
    assert.equal(shop?.finalUrl, `${siteUrl}/landing`);
    assert.equal(byText.get('Old offer')?.status, 'broken');
    assert.equal(byText.get('Old offer')?.statusCode, 404);
    const router = byText.get('Router');
    assert.equal(router?.status, 'refused');
    assert.match(router?.reason ?? '', /192\.168\.7\.9.*private.*WEBHOOK_TARGETS/);
    const lying = byText.get('www.acme.test');
    assert.equal(lying?.status, 'unreachable');
    assert.match(lying?.reason ?? '', /evil\.test does not resolve/);
    assert.equal(body.checked, 4);
    assert.ok(body.errors >= 2);
    assert.deepEqual(siteHits.slice(hitsBefore).sort(), ['/gone', '/landing', '/next', '/start']);
  });

  it('an unknown message is a 404 problem on every check; a bad id is a 400', async () => {
    const sb = await ws.createSandbox({ name: 'empty' });
    for (const [path, method] of [
      ['html', 'GET'],
      ['spam', 'GET'],
      ['links', 'POST'],
    ] as const) {
      const res = await ws.api(`/sandboxes/${sb.id}/messages/${randomUUID()}/checks/${path}`, { method });
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
    }
    const bad = await ws.api(`/sandboxes/${sb.id}/messages/not-a-uuid/checks/spam`);
    assert.equal(bad.status, 400);
  });
});
