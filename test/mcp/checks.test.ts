// MCP get_email with `checks`: the SDK client over Streamable HTTP asks for html, spam and links on mail sent
// over SMTP; without `checks` the result is as before and no link is fetched.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { connectHttp, fails, ok, sendMail } from './client.ts';

describeEachStore('MCP get_email checks', (getStore) => {
  let server: TestServer;
  let client: Client;
  let site: http.Server;
  let siteUrl: string;
  const siteHits: string[] = [];

  before(async () => {
    site = http.createServer((req, res) => {
      siteHits.push(req.url ?? '');
      if (req.url === '/go') res.writeHead(302, { location: '/there' }).end();
      else res.writeHead(req.url === '/there' ? 200 : 404).end();
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    server = await startTestServer(getStore());
    const ws = await server.workspace('mcp-checks');
    client = await connectHttp(server.apiUrl, ws.key);
  });
  after(async () => {
    await client.close();
    server.api.server.closeAllConnections();
    await server.close();
    await new Promise<void>((resolve) => site.close(() => resolve()));
  });

  async function mailWithLinks(): Promise<{ sandbox_id: string; email_id: string }> {
    const sb = await ok(client, 'create_sandbox', { name: 'checks' });
    await sendMail(server.ports.smtp, sb, {
      subject: 'ACT NOW!!! LIMITED OFFER',
      html: `<p>Hi</p><a href="${siteUrl}/go">Open</a><a href="${siteUrl}/missing">Old</a><a href="http://10.9.9.9/">Intranet</a><video src="https://acme.test/v.mp4"></video>`,
    });
    const got = await ok(client, 'wait_for_email', { sandbox_id: sb.sandbox_id, timeout_seconds: 30 });
    return { sandbox_id: sb.sandbox_id, email_id: got.email.id };
  }

  it('returns the html, spam and link reports when asked, and nothing extra otherwise', async () => {
    const ids = await mailWithLinks();
    const plain = await ok(client, 'get_email', ids);
    assert.equal(plain.checks, undefined);
    assert.equal(siteHits.length, 0, 'reading the email fetched nothing');

    const out = await ok(client, 'get_email', { ...ids, checks: ['html', 'spam', 'links'] });
    assert.equal(out.email.id, ids.email_id);
    assert.equal(out.checks.html.has_html, true);
    const video = out.checks.html.features.find((f: any) => f.title === '<video> element');
    assert.ok(video, out.checks.html.features.map((f: any) => f.title).join(', '));
    assert.ok(video.unsupported_in.includes('Outlook Windows'));
    assert.equal(video.positions[0].line, 1);
    const spamIds = out.checks.spam.hits.map((h: any) => h.id);
    assert.ok(spamIds.includes('SUBJECT_ALL_CAPS') && spamIds.includes('BLOCKLISTED_PHRASE'), spamIds.join());
    const links = new Map(out.checks.links.links.map((l: any) => [l.url, l]));
    const open = links.get(`${siteUrl}/go`) as any;
    assert.equal(open.status, 'ok');
    assert.deepEqual(open.redirects, [{ url: `${siteUrl}/go`, status_code: 302 }]);
    assert.equal((links.get(`${siteUrl}/missing`) as any).status_code, 404);
    const intranet = links.get('http://10.9.9.9/') as any;
    assert.equal(intranet.status, 'refused');
    assert.match(intranet.reason, /private.*WEBHOOK_TARGETS/);
  });

  it('only the checks named run; an unknown check name is refused with what to pass', async () => {
    const ids = await mailWithLinks();
    const before = siteHits.length;
    const out = await ok(client, 'get_email', { ...ids, checks: ['spam'] });
    assert.ok(out.checks.spam.score > 0);
    assert.equal(out.checks.html, undefined);
    assert.equal(out.checks.links, undefined);
    assert.equal(siteHits.length, before);
    const text = await fails(client, 'get_email', { ...ids, checks: ['virus'] });
    assert.match(text, /checks/);
  });
});
