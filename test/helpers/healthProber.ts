// A /healthz prober on its own thread: while a test keeps the server busy with a hostile capture, it measures
// how long the server's event loop takes to answer someone else (timestamps comparable across threads).
import { Worker } from 'node:worker_threads';

export interface Probe {
  /** performance.timeOrigin + performance.now(): comparable across threads. */
  start: number;
  end: number;
  status: number;
}

/**
 * Probes GET /healthz one request after another from a worker thread, whose clock and event loop the
 * server cannot stall, and reports each probe as it ends.
 */
export function healthProber(url: string) {
  const worker = new Worker(
    `
    const { parentPort, workerData } = require('node:worker_threads');
    const http = require('node:http');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const clock = () => performance.timeOrigin + performance.now();
    let stopping = false;
    parentPort.on('message', () => { stopping = true; });
    const probe = () => new Promise((resolve) => {
      const start = clock();
      const req = http.get(workerData.url, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ start, end: clock(), status: res.statusCode }));
      });
      req.on('error', () => resolve({ start, end: clock(), status: 0 }));
    });
    (async () => {
      while (!stopping) {
        parentPort.postMessage(await probe());
        await new Promise((r) => setTimeout(r, 2));
      }
      agent.destroy();
      parentPort.postMessage('done');
    })();
    `,
    { eval: true, workerData: { url } },
  );
  const probes: Probe[] = [];
  const waiters: Array<() => void> = [];
  let onDone: () => void = () => {};
  const done = new Promise<void>((resolve) => (onDone = resolve));
  worker.on('message', (m: Probe | 'done') => {
    if (m === 'done') return onDone();
    probes.push(m);
    for (const w of waiters.splice(0)) w();
  });
  /** Resolves once a probe that started after `at` has ended. */
  const probedAfter = async (at: number) => {
    while (!probes.some((p) => p.start > at)) await new Promise<void>((r) => waiters.push(r));
  };
  return {
    probes,
    started: probedAfter(0),
    /** Waits for one probe after `windowEnd`, stops, and returns every probe. */
    async stop(windowEnd: number): Promise<Probe[]> {
      await probedAfter(windowEnd);
      worker.postMessage('stop');
      await done;
      await worker.terminate();
      return probes;
    },
  };
}
