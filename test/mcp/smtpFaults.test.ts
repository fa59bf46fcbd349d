// set_smtp_faults and list_smtp_sessions through the MCP SDK client, over Streamable HTTP (in-process core) and
// over stdio (the REST-backed remote backend): a 451-then-accept script a retrying sender gets past, both
// sessions read back, and a script that cannot work refused as an isError naming the argument.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { cleanupProcesses } from '../helpers/process.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { connectHttp, fails, ok, sendMail } from './client.ts';
import { startStdio } from './stdioClient.ts';

const T = { timeout: 60_000 };

describeEachStore('SMTP fault tools over the MCP SDK client', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let http: Client;
  let stdio: Client;

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace('smtp-faults');
    http = await connectHttp(server.apiUrl, ws.key);
    // A generous start: the child compiles the sources on a machine that may be busy (not a timing assertion).
    stdio = (
      await startStdio([], { SANDTRAP_URL: server.apiUrl, SANDTRAP_API_KEY: ws.key }, { timeoutMs: 90_000 })
    ).client;
  });
  after(async () => {
    await http?.close().catch(() => undefined);
    await stdio?.close().catch(() => undefined);
    await cleanupProcesses();
    await server.close();
  });

  for (const [door, client] of [
    ['Streamable HTTP', () => http],
    ['stdio', () => stdio],
  ] as const) {
    it(`${door}: 451 then accept, and list_smtp_sessions shows both attempts`, T, async () => {
      const sb = await ok(client(), 'create_sandbox', { name: `faults ${door}` });
      const set = await ok(client(), 'set_smtp_faults', {
        sandbox_id: sb.sandbox_id,
        faults: [
          {
            stage: 'rcpt',
            match: '*@example.com',
            reply: { code: 451, text: '4.3.0 Try again later' },
            times: 1,
          },
          { stage: 'data', delay_ms: 10 },
        ],
      });
      assert.deepEqual(
        set.faults.map((f: Record<string, unknown>) => [f.stage, f.remaining, f.delay_ms]),
        [
          ['rcpt', 1, undefined],
          ['data', null, 10],
        ],
      );
      const mail = { from: 'app@sender.test', to: 'user@example.com', subject: 'via mcp', text: 'x' };
      await assert.rejects(sendMail(server.ports.smtp, sb, mail), (e: { responseCode?: number }) => {
        assert.equal(e.responseCode, 451);
        return true;
      });
      await sendMail(server.ports.smtp, sb, mail);
      const listed = await ok(client(), 'list_smtp_sessions', { sandbox_id: sb.sandbox_id });
      const [retry, first] = listed.sessions as Array<Record<string, any>>;
      const rcpt = (s: Record<string, any> | undefined) =>
        s?.events.find((e: Record<string, any>) => e.stage === 'rcpt');
      assert.deepEqual(rcpt(first).fault, { index: 0, action: 'reply' });
      assert.equal(rcpt(first).reply.code, 451);
      assert.equal(rcpt(retry).fault, null);
      const data = retry?.events.find((e: Record<string, any>) => e.stage === 'data');
      assert.deepEqual(data.fault, { index: 1, action: 'delay' });
      assert.equal(data.reply.code, 250);
      const emails = await ok(client(), 'list_emails', { sandbox_id: sb.sandbox_id });
      assert.equal(emails.emails.length, 1);
    });

    it(`${door}: a script that cannot work is an isError naming the argument`, T, async () => {
      const sb = await ok(client(), 'create_sandbox', { name: `bad faults ${door}` });
      const unknownStage = await fails(client(), 'set_smtp_faults', {
        sandbox_id: sb.sandbox_id,
        faults: [{ stage: 'quit', drop: true }],
      });
      assert.match(unknownStage, /INVALID_INPUT/);
      // Refused by the tool schema (core's stage list), which names the argument its own way.
      assert.match(unknownStage, /faults\.0\.stage: must be one of connect, ehlo/);
      const shadowed = await fails(client(), 'set_smtp_faults', {
        sandbox_id: sb.sandbox_id,
        faults: [
          { stage: 'data', delay_ms: 5 },
          { stage: 'data', drop: true },
        ],
      });
      assert.match(shadowed, /faults\[1\].*can never match/);
      const twoActions = await fails(client(), 'set_smtp_faults', {
        sandbox_id: sb.sandbox_id,
        faults: [{ stage: 'mail', delay_ms: 5, drop: true }],
      });
      assert.match(twoActions, /faults\[0\]\.drop/);
      const cleared = await ok(client(), 'set_smtp_faults', { sandbox_id: sb.sandbox_id, faults: [] });
      assert.deepEqual(cleared.faults, []);
    });
  }
});
