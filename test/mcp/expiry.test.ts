// The MCP wait tools at a sandbox's expiry, through both doors (Streamable HTTP, and the stdio process that
// reaches the server over REST): a wait open when the server's clock passes expiresAt ends at once with an
// isError result that says the sandbox expired and to create a new one; a wait started after says the same.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { cleanupProcesses } from '../helpers/process.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { connectHttp, fails, ok, waitUntil, WITH_PROGRESS } from './client.ts';
import { startStdio } from './stdioClient.ts';

const T = { timeout: 40_000 };
const EXPIRED_HINT =
  /^The sandbox expired at \d{4}-[\d-]+T[\d:.]+Z; [^.]+\. Create a new sandbox with create_sandbox/;

describeEachStore('MCP waits at a sandbox expiry', (getStore) => {
  let server: TestServer;
  let http: Client;
  let stdio: Client;

  before(async () => {
    server = await startTestServer(getStore(), { SWEEP_INTERVAL_SECONDS: '86400' });
    const ws = await server.workspace();
    http = await connectHttp(server.apiUrl, ws.key);
    stdio = (await startStdio([], { SANDTRAP_URL: server.apiUrl, SANDTRAP_API_KEY: ws.key })).client;
  });
  after(async () => {
    await http?.close().catch(() => undefined);
    await stdio?.close().catch(() => undefined);
    await cleanupProcesses();
    server.api.server.closeAllConnections();
    await server.close();
  });

  for (const door of ['http', 'stdio'] as const) {
    for (const tool of ['wait_for_email', 'wait_for_request'] as const) {
      it(`[${door}] ${tool} open at the expiry ends with status sandbox_expired`, T, async () => {
        const client = door === 'http' ? http : stdio;
        const sb = await ok(client, 'create_sandbox', { name: 'short-lived', ttl_minutes: 1 });
        const pending = ok(client, tool, { sandbox_id: sb.sandbox_id, timeout_seconds: 120 }, WITH_PROGRESS);
        await waitUntil(() => server.core.waits.active() === 1, 'the open wait');
        server.clock.advance(61_000);
        try {
          // A result, not an error: the wait did its job, and the agent is told what happened and what next.
          const ended = await pending;
          assert.equal(ended.status, 'sandbox_expired');
          assert.match(ended.hint, EXPIRED_HINT);
          assert.equal(server.core.waits.active(), 0);
          // A wait started now ends the same way, before it opens.
          const late = await ok(client, tool, { sandbox_id: sb.sandbox_id, timeout_seconds: 5 });
          assert.equal(late.status, 'sandbox_expired');
          // get_sandbox says it expired rather than that it never was.
          assert.match(
            await fails(client, 'get_sandbox', { sandbox_id: sb.sandbox_id }),
            /^NOT_FOUND: The sandbox expired at /,
          );
        } finally {
          server.clock.advance(-61_000);
        }
      });
    }
  }
});
