// A burst of 2,000 new REST waits at once (over 40 keys, 50 each), on both stores: the 500 whose match is
// already captured get it, the 1,500 still waiting all get the one arrival that matches them, and none is
// lost, refused or answered twice while they are let in a slice at a time. How long the burst holds the event
// loop is measured in bench/waits.ts, not here.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Agent, fetch as undiciFetch } from 'undici';
import { sendRecorded } from '../helpers/captureClient.ts';
import { eventually } from '../helpers/poll.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

const WAITS = 2_000;
const ALREADY = 500;
const PER_KEY = 50;

describeEachStore('a burst of 2,000 waits', (getStore) => {
  let server: TestServer;
  let agent: Agent;

  before(async () => {
    // All 2,000 come from one address, as from a CI runner's test process.
    server = await startTestServer(getStore(), { API_MAX_CONNECTIONS_PER_IP: String(WAITS + 100) });
    agent = new Agent({ connections: WAITS + 10, keepAliveTimeout: 60_000, pipelining: 0 });
  });
  after(async () => {
    await agent.close();
    await server.close();
  });

  it(
    'every wait is answered with its match: the 500 already there, the 1,500 by one arrival',
    { timeout: 300_000 },
    async () => {
      const ws = await server.workspace();
      const keys = [ws.key];
      while (keys.length < WAITS / PER_KEY) {
        const res = await ws.api('/keys', {
          method: 'POST',
          body: JSON.stringify({ label: `burst-${keys.length}` }),
        });
        keys.push(((await res.json()) as { key: string }).key);
      }
      const sandbox = await ws.createSandbox({ name: 'burst' });
      const already = await sendRecorded(server.ports.capture, sandbox.id, {
        method: 'POST',
        path: '/already',
      });

      const waits = Array.from({ length: WAITS }, (_, i) => {
        const path = i % (WAITS / ALREADY) === 0 ? '/already' : '/later';
        const url = `${server.apiUrl}/api/v1/sandboxes/${sandbox.id}/requests/wait?pathContains=${path}&timeoutSeconds=240`;
        return undiciFetch(url, {
          headers: { authorization: `Bearer ${keys[i % keys.length]}` },
          dispatcher: agent,
        }).then(async (res) => ({
          path,
          status: res.status,
          id: res.status === 200 ? ((await res.json()) as { id: string }).id : await res.text(),
        }));
      });

      // The 1,500 without a match yet are all open before the arrival is sent.
      await eventually(
        () => `${WAITS - ALREADY} open waits (${server.core.waits.active()} so far)`,
        () => server.core.waits.active() >= WAITS - ALREADY,
        240_000,
      );
      const later = await sendRecorded(server.ports.capture, sandbox.id, { method: 'POST', path: '/later' });
      const answers = await Promise.all(waits);

      const wrong = answers.filter(
        (a) => a.status !== 200 || a.id !== (a.path === '/already' ? already.requestId : later.requestId),
      );
      assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} of ${WAITS} waits answered otherwise`);
      assert.equal(answers.filter((a) => a.path === '/already').length, ALREADY);
      await eventually('every wait released', () => server.core.waits.active() === 0);
    },
  );
});
