// The parse pool's hand-off cost in one process: main-thread busy time and process CPU per 4 KB message,
// (or --size), parsed inline against parsed on the worker pool, with `--concurrency` messages in flight (like connections).
// `node bench/parseHandoff.ts [--messages=N] [--concurrency=N]`; variants run interleaved, A B A B ...
import { performance } from 'node:perf_hooks';
import { createMessageParser } from '../src/core/mail/parsePool.ts';

const arg = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const MESSAGES = arg('messages', 3000);
const CONCURRENCY = arg('concurrency', 8);
const ROUNDS = arg('rounds', 5);
/** Message size in bytes (text/plain body); 4 KB as in bench/ingest.ts by default. */
const SIZE = arg('size', 4096);

/** The same text/plain message as bench/ingest.ts sends (4 KB), or `--size` bytes of it. */
function message(i: number): Buffer {
  const head =
    `From: bench@sender.localhost\r\nTo: x@bench.localhost\r\nSubject: bench ${i}\r\n` +
    `Message-ID: <${i}.bench@bench.localhost>\r\n` +
    `Date: ${new Date().toUTCString()}\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n`;
  const line = 'The quick brown fox jumps over the lazy dog, again and again, for the benchmark.\r\n';
  let body = '';
  while (head.length + body.length + line.length <= SIZE) body += line;
  // Buffer.concat, as the SMTP listener's readData builds it.
  return Buffer.concat([Buffer.from(head), Buffer.from(body + 'x'.repeat(SIZE - head.length - body.length))]);
}

async function run(poolFromBytes: number) {
  const parse = createMessageParser({ poolFromBytes });
  let next = 0;
  const worker = async () => {
    while (next < MESSAGES) await parse(message(next++), null);
  };
  const elu0 = performance.eventLoopUtilization();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const wall = performance.now() - t0;
  const elu = performance.eventLoopUtilization(elu0);
  const cpu = process.cpuUsage(cpu0);
  return {
    rate: (MESSAGES / wall) * 1000,
    mainUs: (elu.active * 1000) / MESSAGES,
    cpuUs: (cpu.user + cpu.system) / MESSAGES,
  };
}

const variants = { inline: Infinity, pool: 0 } as const;
const results: Record<string, Array<Awaited<ReturnType<typeof run>>>> = { inline: [], pool: [] };
// Warm both paths (JIT, worker start) before measuring.
await run(Infinity);
await run(0);
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, threshold] of Object.entries(variants)) results[name]?.push(await run(threshold));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const range = (xs: number[]) => `${Math.min(...xs).toFixed(0)}..${Math.max(...xs).toFixed(0)}`;
for (const [name, rs] of Object.entries(results)) {
  const rate = rs.map((r) => r.rate);
  const main = rs.map((r) => r.mainUs);
  const cpu = rs.map((r) => r.cpuUs);
  console.log(
    `${name}: ${median(rate).toFixed(0)} msgs/s [${range(rate)}]; main thread ${median(main).toFixed(0)} µs/msg [${range(main)}]; process CPU ${median(cpu).toFixed(0)} µs/msg [${range(cpu)}] (${SIZE} B, ${CONCURRENCY} in flight, ${rs.length} rounds of ${MESSAGES})`,
  );
}
