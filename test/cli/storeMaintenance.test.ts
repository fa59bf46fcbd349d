// A running embedded server analyzes its store on its own (it has no autovacuum): after enough captures, the
// next sweep tick runs ANALYZE and logs it.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { sendCapture } from '../helpers/captureClient.ts';
import { cleanupProcesses, startServerProcess } from '../helpers/process.ts';

after(cleanupProcesses);

test('serve on the embedded store analyzes the requests table once enough were captured', async () => {
  const server = await startServerProcess({ env: { SWEEP_INTERVAL_SECONDS: '1', LOG_LEVEL: 'info' } });
  const key = (await server.waitForLine(/^API key: (stk_\w+)$/)).slice('API key: '.length);
  await server.waitHealthy();
  const res = await fetch(`${server.apiUrl}/api/v1/sandboxes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'maintenance' }),
  });
  assert.equal(res.status, 201);
  const { id } = (await res.json()) as { id: string };
  for (let i = 0; i < 120; i++) {
    const got = await sendCapture(server.ports.capture, {
      method: 'POST',
      path: `/${id}/hook/${i}`,
      body: '{}',
    });
    assert.equal(got.status, 200);
  }
  const analyzed = () =>
    server
      .logs()
      .find(
        (l) =>
          l.msg === 'embedded store vacuumed and analyzed the tables that changed' &&
          (l.maintenance as { analyzed: string[] }).analyzed.includes('requests'),
      );
  const deadline = Date.now() + 10_000;
  while (analyzed() === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const line = analyzed();
  assert.ok(line, `no maintenance log line; logs: ${server.stderr.slice(-2000)}`);
  assert.equal(typeof line.ms, 'number');
  assert.equal(await server.stop(), 0);
});
