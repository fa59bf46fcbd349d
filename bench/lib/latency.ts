// Request latency through the REST API the way the list and search benches measure it: one keep-alive
// connection, one query at a time, warm-up calls first, samples sorted for percentile().
import { Agent, fetch as undiciFetch } from 'undici';
import type { BenchServer } from './sandtrap.ts';

const SAMPLES = 200;
const WARMUP = 20;
// One connection: each sample is a query on a warm socket, never a connect.
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 1 });

/** An API call on the shared connection; its JSON answer, or an error for any status from 300. */
export async function keepAliveApi(
  server: BenchServer,
  path: string,
  init: { method?: string; body?: string } = {},
): Promise<any> {
  const res = await undiciFetch(`${server.apiUrl}/api/v1${path}`, {
    ...init,
    dispatcher: agent,
    headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

/** SAMPLES timings (ms, sorted) of GET `paths()`, after WARMUP untimed calls. */
export async function latencies(server: BenchServer, paths: () => string): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await keepAliveApi(server, paths());
  const out: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const path = paths();
    const t0 = performance.now();
    await keepAliveApi(server, path);
    out.push(performance.now() - t0);
  }
  return out.sort((a, b) => a - b);
}

/** Closes the shared connection, so the bench's process can exit. */
export function closeKeepAlive(): Promise<void> {
  return agent.close();
}
