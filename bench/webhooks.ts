// Webhook delivery latency (issue 37): from a capture's reply (its commit acknowledged) to the signed webhook
// POST reaching a receiver on this machine, one capture at a time, on the embedded store and (--pg) on
// PostgreSQL with the capture on one process and the webhook sender on either of two. Design section 9 names
// no target: 1 s is ours (Mailpit sends at most one webhook a second).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freshDatabase } from './lib/pg.ts';
import { startSandtrap, type BenchServer } from './lib/sandtrap.ts';
import { latencyRows, report, type Row } from './lib/report.ts';

const usePg = process.argv.includes('--pg');
const ROUNDS = 200;
/** Wake-ups come from the commit's event; this bounds one delivery, not the row. */
const DELIVERY_TIMEOUT_MS = 30_000;

async function api(server: BenchServer, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server.apiUrl}/api/v1${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/** A receiver that notes when each request id's webhook arrived (it does not verify: that is tested). */
async function receiver() {
  const arrived = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(204).end();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { id?: string } };
      const id = event.data?.id;
      if (id === undefined || arrived.has(id)) return;
      arrived.set(id, at);
      waiters.get(id)?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrival(id: string): Promise<number> {
      const at = arrived.get(id);
      if (at !== undefined) return Promise.resolve(at);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no webhook for ${id}`)), DELIVERY_TIMEOUT_MS);
        waiters.set(id, () => {
          clearTimeout(timer);
          resolve(arrived.get(id) as number);
        });
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function latency(captureOn: BenchServer, hookOn: BenchServer): Promise<number[]> {
  const hooks = await receiver();
  try {
    const sandbox = await api(hookOn, '/sandboxes', { name: 'webhook-bench' });
    await api(hookOn, '/webhooks', { url: hooks.url, sandboxId: sandbox.id, events: ['request.received'] });
    const samples: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const res = await fetch(`http://127.0.0.1:${captureOn.ports.capture}/${sandbox.id}/wh-${i}`, {
        method: 'POST',
        body: '{}',
      });
      await res.arrayBuffer();
      const committedAt = performance.now();
      const id = res.headers.get('x-sandtrap-request-id');
      if (id === null) throw new Error(`capture answered ${res.status} without a request id`);
      samples.push(Math.max(0, (await hooks.arrival(id)) - committedAt));
    }
    return samples.sort((a, b) => a - b);
  } finally {
    await hooks.close();
  }
}

const rows: Row[] = [];
const single = await startSandtrap();
try {
  rows.push(
    ...latencyRows(
      'webhook delivery, capture committed to receiver (embedded)',
      await latency(single, single),
      1_000,
    ),
  );
} finally {
  await single.stop();
}

if (usePg) {
  const fresh = await freshDatabase();
  const a = await startSandtrap({ DATABASE_URL: fresh.url });
  const b = await startSandtrap({ DATABASE_URL: fresh.url }, a.key);
  try {
    rows.push(
      ...latencyRows(
        'webhook delivery, capture committed to receiver (PostgreSQL, two processes)',
        await latency(a, b),
        1_000,
      ),
    );
  } finally {
    await Promise.all([a.stop(), b.stop()]);
    await fresh.drop();
  }
}

report('webhooks', rows);
