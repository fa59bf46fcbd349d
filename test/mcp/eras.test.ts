// One MCP endpoint serves both protocol eras: the 2026-07-28 era (SDK v2 client pinned to it) and the
// 2025 era (the same client's default handshake), with the same tools and results.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import nodemailer from 'nodemailer';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { TOOL_NAMES } from './client.ts';
import { describeEachStore } from '../helpers/stores.ts';

describeEachStore('MCP protocol eras', (getStore) => {
  let server: TestServer;
  let key: string;

  before(async () => {
    server = await startTestServer(getStore());
    key = (await server.workspace()).key;
  });
  after(() => server.close());

  async function connect(era: 'modern' | 'legacy'): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.apiUrl}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    });
    const options = era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {};
    const client = new Client({ name: `eras-${era}`, version: '1.0.0' }, options as never);
    await client.connect(transport);
    return client;
  }

  for (const era of ['modern', 'legacy'] as const) {
    describe(`${era} era`, () => {
      it('negotiates its protocol revision and lists every tool', async () => {
        const client = await connect(era);
        try {
          const version = client.getNegotiatedProtocolVersion();
          if (era === 'modern') assert.equal(version, '2026-07-28');
          else assert.match(version ?? '', /^2025-/);
          const { tools } = await client.listTools();
          assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
          assert.ok(tools.every((t) => t.outputSchema !== undefined));
        } finally {
          await client.close();
        }
      });

      it('creates a sandbox and returns mail that arrives during the wait, with its code', async () => {
        const client = await connect(era);
        try {
          const created: any = await client.callTool({
            name: 'create_sandbox',
            arguments: { name: `era ${era}` },
          });
          assert.ok(!created.isError, JSON.stringify(created));
          const sb = created.structuredContent;
          const waiting = client.callTool({
            name: 'wait_for_email',
            // 300 s: the mail, not the timer, ends it inside the test.
            arguments: { sandbox_id: sb.sandbox_id, timeout_seconds: 300 },
          });
          await new Promise((r) => setTimeout(r, 300));
          const transport = nodemailer.createTransport({
            host: '127.0.0.1',
            port: server.ports.smtp,
            secure: false,
            requireTLS: true,
            tls: { rejectUnauthorized: false },
            auth: { user: sb.smtp.username, pass: sb.smtp.password },
          });
          await transport.sendMail({
            from: 'Acme <no-reply@acme.example>',
            to: sb.email_address,
            subject: 'Confirm your Acme account',
            text: 'Welcome!\n\nYour verification code is 731904. It expires in 10 minutes.\n',
          });
          transport.close();
          const result: any = await waiting;
          assert.ok(!result.isError, JSON.stringify(result));
          assert.equal(result.structuredContent.status, 'received');
          assert.equal(result.structuredContent.email.subject, 'Confirm your Acme account');
          assert.equal(result.structuredContent.email.otp.code, '731904');
          assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);

          const timeout: any = await client.callTool({
            name: 'wait_for_email',
            arguments: {
              sandbox_id: sb.sandbox_id,
              timeout_seconds: 1,
              after: result.structuredContent.email.id,
            },
          });
          assert.ok(!timeout.isError);
          assert.equal(timeout.structuredContent.status, 'timeout');
        } finally {
          await client.close();
        }
      });
    });
  }
});
