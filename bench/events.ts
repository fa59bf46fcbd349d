// Live event benchmarks (design section 9), side by side with the waits: commit-to-event latency in one
// process (embedded store) and across two processes (PostgreSQL, with --pg), one arrival fanned out to 1,000
// open streams of its workspace, and server RSS with 10,000 open streams.
import { Agent, fetch as undiciFetch } from 'undici';
import { freshDatabase } from './lib/pg.ts';
import { latencyRows as latencyPair, report, type Row } from './lib/report.ts';
import { percentile, startSandtrap, type BenchServer } from './lib/sandtrap.ts';

const usePg = process.argv.includes('--pg');
/** The server allows 20 streams per key. */
const STREAMS_PER_KEY = 20;

async function api(server: BenchServer, path: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(`${server.apiUrl}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
  });
  return res.status === 204 ? undefined : res.json();
}

async function keys(server: BenchServer, count: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    out.push(
      (await api(server, '/keys', { method: 'POST', body: JSON.stringify({ label: `ev-${i}` }) })).key,
    );
  }
  return out;
}

/**
 * An open stream read in the background: `seen(marker)` resolves with the time the first event containing
 * `marker` arrived. Only the text is scanned; the streams carry nothing else in these runs.
 */
async function openStream(url: string, key: string, agent: Agent) {
  const waiting = new Map<string, (at: number) => void>();
  const res = await undiciFetch(url, { headers: { authorization: `Bearer ${key}` }, dispatcher: agent });
  if (res.status !== 200) throw new Error(`stream answered ${res.status}`);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let tail = '';
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      const at = performance.now();
      tail = (tail + decoder.decode(value, { stream: true })).slice(-4096);
      for (const [marker, resolve] of waiting) {
        if (tail.includes(marker)) {
          waiting.delete(marker);
          resolve(at);
        }
      }
    }
  })();
  return {
    seen: (marker: string) => new Promise<number>((resolve) => waiting.set(marker, resolve)),
    close: () => reader.cancel().catch(() => undefined),
  };
}

/** Capture committed (its reply is back) to the event on a stream of another (or the same) process. */
async function latency(streamOn: BenchServer, sendTo: BenchServer, rounds: number): Promise<number[]> {
  const sandbox = await api(streamOn, '/sandboxes', {
    method: 'POST',
    body: JSON.stringify({ name: 'lat' }),
  });
  const agent = new Agent({ connections: 4 });
  const stream = await openStream(
    `${streamOn.apiUrl}/api/v1/sandboxes/${sandbox.id}/events`,
    streamOn.key,
    agent,
  );
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const marker = `/lat-${i}"`;
    const seen = stream.seen(marker);
    const sent = await fetch(`http://127.0.0.1:${sendTo.ports.capture}/${sandbox.id}/lat-${i}`, {
      method: 'POST',
      body: '{}',
    });
    await sent.arrayBuffer();
    const committedAt = performance.now();
    samples.push(Math.max(0, (await seen) - committedAt));
  }
  await stream.close();
  await agent.close();
  return samples.sort((a, b) => a - b);
}

/** One arrival to `count` workspace streams: capture reply to the last stream's event, over `rounds` runs. */
async function fanOut(server: BenchServer, count: number, rounds: number): Promise<number[]> {
  const keyList = await keys(server, Math.ceil(count / STREAMS_PER_KEY));
  const sandbox = await api(server, '/sandboxes', { method: 'POST', body: JSON.stringify({ name: 'fan' }) });
  const agent = new Agent({ connections: count + 10 });
  const streams = [];
  for (let i = 0; i < count; i++) {
    streams.push(
      await openStream(
        `${server.apiUrl}/api/v1/events`,
        keyList[Math.floor(i / STREAMS_PER_KEY)] as string,
        agent,
      ),
    );
  }
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const marker = `/fan-${r}"`;
    const all = Promise.all(streams.map((s) => s.seen(marker)));
    const sent = await fetch(`http://127.0.0.1:${server.ports.capture}/${sandbox.id}/fan-${r}`, {
      method: 'POST',
      body: '{}',
    });
    await sent.arrayBuffer();
    const committedAt = performance.now();
    const times = await all;
    samples.push(Math.max(...times) - committedAt);
  }
  await Promise.all(streams.map((s) => s.close()));
  await agent.close();
  return samples.sort((a, b) => a - b);
}

/** Server RSS with `count` streams open (idle), and the time one arrival takes to reach all of them. */
async function openStreams(server: BenchServer, count: number) {
  const keyList = await keys(server, Math.ceil(count / STREAMS_PER_KEY));
  const sandbox = await api(server, '/sandboxes', { method: 'POST', body: JSON.stringify({ name: 'many' }) });
  const baseline = server.rssBytes();
  const agent = new Agent({ connections: count + 10 });
  const streams = [];
  for (let i = 0; i < count; i++) {
    streams.push(
      openStream(`${server.apiUrl}/api/v1/events`, keyList[Math.floor(i / STREAMS_PER_KEY)] as string, agent),
    );
    if (i % 250 === 249) await Promise.all(streams.slice(-250));
  }
  const open = await Promise.all(streams);
  await new Promise((r) => setTimeout(r, 2000));
  const rss = server.rssBytes();
  const all = Promise.all(open.map((s) => s.seen('/many"')));
  const sent = await fetch(`http://127.0.0.1:${server.ports.capture}/${sandbox.id}/many`, { method: 'POST' });
  await sent.arrayBuffer();
  const t0 = performance.now();
  const reachedMs = Math.max(...(await all)) - t0;
  await Promise.all(open.map((s) => s.close()));
  await agent.close();
  return { rss, baseline, reachedMs };
}

const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
const rows: Row[] = [];

function latencyRows(where: string, sorted: number[], targetMs: number): void {
  rows.push(...latencyPair(`commit to event, ${where}`, sorted, targetMs));
}

function fanOutRow(store: string, sorted: number[]): void {
  const p50 = percentile(sorted, 50);
  rows.push({
    workload: `one arrival to 1,000 streams, all delivered, p50 (${store})`,
    target: '<= 100 ms',
    measured: `${fmt(p50)} (max ${fmt(sorted.at(-1) ?? NaN)})`,
    met: p50 <= 100,
  });
}

function openRow(store: string, open: Awaited<ReturnType<typeof openStreams>>): void {
  const mb = open.rss / 1024 / 1024;
  rows.push({
    workload: `10,000 open streams, server RSS (${store})`,
    target: '< 600 MB',
    measured: `${mb.toFixed(0)} MB (idle ${(open.baseline / 1024 / 1024).toFixed(0)} MB); one arrival reached all in ${open.reachedMs.toFixed(0)} ms`,
    met: mb < 600,
  });
}

const single = await startSandtrap();
try {
  latencyRows('one process (embedded)', await latency(single, single, 200), 5);
  fanOutRow('embedded', await fanOut(single, 1_000, 20));
  openRow('embedded', await openStreams(single, 10_000));
} finally {
  await single.stop();
}

if (usePg) {
  const fresh = await freshDatabase();
  const a = await startSandtrap({ DATABASE_URL: fresh.url });
  const b = await startSandtrap({ DATABASE_URL: fresh.url }, a.key);
  try {
    latencyRows('one process (PostgreSQL)', await latency(a, a, 200), 5);
    latencyRows('two processes (PostgreSQL)', await latency(a, b, 200), 50);
    fanOutRow('PostgreSQL', await fanOut(a, 1_000, 20));
    openRow('PostgreSQL', await openStreams(a, 10_000));
  } finally {
    await Promise.all([a.stop(), b.stop()]);
    await fresh.drop();
  }
}

report('events', rows);
