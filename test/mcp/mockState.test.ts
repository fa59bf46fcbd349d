// The MCP side of issue 40's mock rules: set_mock_rules takes faults, times, scenarios and callbacks (a bad
// one is an isError naming the argument), and mock_state reads and resets scenario states per key.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectHttp, fails, ok } from './client.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

const T = { timeout: 60_000 };

describeEachStore('MCP: mock rules with state', (getStore) => {
  let server: TestServer;
  let client: Client;

  before(async () => {
    server = await startTestServer(getStore());
    const ws = await server.workspace();
    client = await connectHttp(server.apiUrl, ws.key);
  });
  after(async () => {
    await client.close();
    await server.close();
  });

  it('sets stateful rules, refuses a bad fault by name, reads and resets the states', T, async () => {
    const sandbox = await ok(client, 'create_sandbox', { name: 'mcp state' });
    const refused = await fails(client, 'set_mock_rules', {
      sandbox_id: sandbox.sandbox_id,
      rules: [{ pattern: '/x', fault: 'explode' }],
    });
    assert.match(refused, /rules\[0\]\.fault/);
    assert.match(refused, /unknown fault "explode"/);
    const set = await ok(client, 'set_mock_rules', {
      sandbox_id: sandbox.sandbox_id,
      rules: [
        {
          method: 'POST',
          pattern: '/orders/{id}',
          status_code: 201,
          scenario: 'order',
          state_key: 'path.id',
          required_state: 'Started',
          new_state: 'created',
          times: 5,
        },
        { method: 'POST', pattern: '/orders/{id}', status_code: 409 },
      ],
    });
    assert.equal(set.mock_rules[0].state_key, 'path.id');
    assert.equal(set.mock_rules[0].times, 5);
    const url = `http://127.0.0.1:${server.ports.capture}/${sandbox.sandbox_id}/orders/3`;
    const statuses = [];
    for (let i = 0; i < 2; i++) statuses.push((await fetch(url, { method: 'POST' })).status);
    assert.deepEqual(statuses, [201, 409]);
    const state = await ok(client, 'mock_state', { sandbox_id: sandbox.sandbox_id });
    assert.deepEqual(state.scenarios, [{ scenario: 'order', key: '3', state: 'created' }]);
    assert.deepEqual(state.callbacks, []);
    const reset = await ok(client, 'mock_state', { sandbox_id: sandbox.sandbox_id, reset_scenarios: true });
    assert.deepEqual(reset.scenarios, []);
    assert.equal((await fetch(url, { method: 'POST' })).status, 201);
  });
});
