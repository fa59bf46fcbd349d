// MCP list_emails and list_requests with `search` (issue 39): the same language as REST's `search=`, through
// the v1 SDK client over Streamable HTTP; a mistake is an isError result that says what to write instead.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { capture, connectHttp, fails, ok, sendMail } from './client.ts';

const T = { timeout: 30_000 };

describeEachStore('MCP list tools with search', (getStore) => {
  let server: TestServer;
  let client: Client;

  before(async () => {
    server = await startTestServer({ ...getStore(), close: async () => {} });
    const ws = await server.workspace('mcp-search');
    client = await connectHttp(server.apiUrl, ws.key);
  });

  after(async () => {
    await client.close().catch(() => undefined);
    server.api.server.closeAllConnections();
    await server.close();
  });

  it('list_emails search finds by operator, body word and attachment name', T, async () => {
    const sb = await ok(client, 'create_sandbox', { name: 'mcp search' });
    await sendMail(server.ports.smtp, sb, {
      from: 'Acme Billing <billing@acme.example>',
      subject: 'Invoice 7',
      text: `${'filler words here. '.repeat(2000)}the secret word is marmalade`,
      attachments: [{ filename: 'statement-july.pdf', content: 'pdf' }],
    });
    await sendMail(server.ports.smtp, sb, { from: 'Other <o@other.test>', subject: 'Hello', text: 'hi' });
    const subjects = async (search: string) =>
      (await ok(client, 'list_emails', { sandbox_id: sb.sandbox_id, search })).emails.map(
        (e: any) => e.subject,
      );
    assert.deepEqual(await subjects('from:acme has:attachment'), ['Invoice 7']);
    assert.deepEqual(await subjects('marmalade'), ['Invoice 7']);
    assert.deepEqual(await subjects('statement-july'), ['Invoice 7']);
    assert.deepEqual(await subjects('-from:acme'), ['Hello']);
    const text = await fails(client, 'list_emails', { sandbox_id: sb.sandbox_id, search: 'sender:acme' });
    assert.match(text, /search/);
    assert.match(text, /Unknown operator "sender:".*from:/);
  });

  it('list_requests search finds by header value and body text', T, async () => {
    const sb = await ok(client, 'create_sandbox', { name: 'mcp search hooks' });
    await capture(sb.capture_url, '/webhook', {
      method: 'POST',
      headers: { 'x-signature-key': 'kumquat77', 'content-type': 'application/json' },
      body: '{"event":"payment.succeeded"}',
    });
    await capture(sb.capture_url, '/other', { method: 'POST', body: 'plain' });
    const paths = async (search: string) =>
      (await ok(client, 'list_requests', { sandbox_id: sb.sandbox_id, search })).requests.map(
        (r: any) => r.path,
      );
    assert.deepEqual(await paths('kumquat77'), ['/webhook']);
    assert.deepEqual(await paths('"payment succeeded"'), ['/webhook']);
    assert.deepEqual(await paths('-payment'), ['/other']);
    const text = await fails(client, 'list_requests', {
      sandbox_id: sb.sandbox_id,
      search: 'has:attachment',
    });
    assert.match(text, /does not apply to requests/);
  });
});
