// The cost of mock scenario state (issue 40): one capture at a time answered by a delay-free rule that moves
// a scenario state per key (one compare-and-set statement before the reply) against the same rule without a
// scenario, interleaved A, B, A, B so machine noise falls on both; embedded store and (--pg) PostgreSQL.
// Design section 9 names no target: the row's target is the plain rule's p50 plus 2 ms.
import { freshDatabase } from './lib/pg.ts';
import { percentile, startSandtrap, type BenchServer } from './lib/sandtrap.ts';
import { latencyRows, report, type Row } from './lib/report.ts';

const usePg = process.argv.includes('--pg');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const PER_ROUND = 100;

async function api(server: BenchServer, method: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${server.apiUrl}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

async function timed(url: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(url, { method: 'POST', body: '{}' });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return performance.now() - started;
}

async function compare(server: BenchServer, label: string): Promise<Row[]> {
  const sandbox = await api(server, 'POST', '/sandboxes', { name: 'mock-state-bench' });
  await api(server, 'PUT', `/sandboxes/${sandbox.id}/mocks`, {
    mocks: [
      {
        name: 'stateful',
        method: 'POST',
        pattern: '/s/{id}',
        statusCode: 200,
        scenario: 'order',
        stateKey: 'path.id',
        newState: 'seen',
      },
      { name: 'plain', method: 'POST', pattern: '/p/{id}', statusCode: 200 },
    ],
  });
  const base = `http://127.0.0.1:${server.ports.capture}/${sandbox.id}`;
  const plain: number[] = [];
  const stateful: number[] = [];
  for (let i = 0; i < 50; i++) await timed(`${base}/p/warm${i}`); // warm-up, not counted
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < PER_ROUND; i++) plain.push(await timed(`${base}/p/${round}-${i}`));
    // A key per request: every capture writes a state row (the worst case: an insert, not an update).
    for (let i = 0; i < PER_ROUND; i++) stateful.push(await timed(`${base}/s/${round}-${i}`));
  }
  plain.sort((a, b) => a - b);
  stateful.sort((a, b) => a - b);
  const target = percentile(plain, 50) + 2;
  return [
    ...latencyRows(`capture answered by a delay-free rule, no scenario (${label})`, plain, target),
    ...latencyRows(
      `capture answered by a delay-free rule moving a scenario state (${label})`,
      stateful,
      target,
    ),
  ];
}

const rows: Row[] = [];
const single = await startSandtrap();
try {
  rows.push(...(await compare(single, 'embedded')));
} finally {
  await single.stop();
}
if (usePg) {
  const fresh = await freshDatabase();
  const server = await startSandtrap({ DATABASE_URL: fresh.url });
  try {
    rows.push(...(await compare(server, 'PostgreSQL')));
  } finally {
    await server.stop();
    await fresh.drop();
  }
}
report('mockState', rows);
