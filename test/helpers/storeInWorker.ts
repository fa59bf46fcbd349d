// The embedded store opened in a worker thread, driven by SQL text from the test's thread. A store that spins
// (postgres looping inside PGlite, which runs on the thread that called it) then stalls only the worker: the test
// notices the missing answer, ends the worker and fails, instead of hanging with it.
import { Worker } from 'node:worker_threads';

export interface StoreEventLine {
  level: string;
  message: string;
}

export type StatementResult =
  | { ok: true; rows: Record<string, unknown>[] }
  | { ok: false; code: string | undefined; reason: string | undefined; message: string };

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { openStore } = await import(workerData.openStoreUrl);
  const { sql } = await import('kysely');
  const events = (event) => parentPort.postMessage({ event: { level: event.level, message: event.message } });
  const store = await openStore({ kind: 'pglite', dataDir: workerData.dataDir, onEvent: events });
  parentPort.on('message', async ({ id, text, close }) => {
    if (close) {
      await store.close();
      parentPort.postMessage({ id, result: { ok: true, rows: [] } });
      return;
    }
    try {
      const { rows } = await sql.raw(text).execute(store.db);
      parentPort.postMessage({ id, result: { ok: true, rows } });
    } catch (err) {
      parentPort.postMessage({ id, result: { ok: false, code: err.code, reason: err.reason, message: String(err.message) } });
    }
  });
  parentPort.postMessage({ ready: true });
})().catch((err) => parentPort.postMessage({ failed: String(err && err.stack || err) }));
`;

export interface StoreInWorker {
  /** Runs one statement; rejects when the worker gives no answer within `timeoutMs` (it is then ended). */
  run(text: string, timeoutMs?: number): Promise<StatementResult>;
  /** What the store logged so far (its `onEvent` lines). */
  events: StoreEventLine[];
  close(): Promise<void>;
}

export async function openStoreInWorker(dataDir: string, timeoutMs = 120_000): Promise<StoreInWorker> {
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { dataDir, openStoreUrl: new URL('../../src/core/store/openStore.ts', import.meta.url).href },
  });
  const events: StoreEventLine[] = [];
  const pending = new Map<number, (result: StatementResult) => void>();
  let nextId = 0;
  let ended = false;
  const ready = new Promise<void>((resolve, reject) => {
    worker.on(
      'message',
      (m: {
        ready?: true;
        failed?: string;
        event?: StoreEventLine;
        id?: number;
        result?: StatementResult;
      }) => {
        if (m.ready) resolve();
        else if (m.failed !== undefined) reject(new Error(`the store did not open: ${m.failed}`));
        else if (m.event !== undefined) events.push(m.event);
        else if (m.id !== undefined) pending.get(m.id)?.(m.result as StatementResult);
      },
    );
    worker.once('error', reject);
  });
  const end = async () => {
    if (ended) return;
    ended = true;
    await worker.terminate();
  };
  const ask = (message: { text?: string; close?: true }, limitMs: number): Promise<StatementResult> => {
    const id = nextId++;
    return new Promise<StatementResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        void end();
        reject(
          new Error(`the store gave no answer within ${limitMs} ms (it hangs): ${message.text ?? 'close'}`),
        );
      }, limitMs);
      pending.set(id, (result) => {
        clearTimeout(timer);
        pending.delete(id);
        resolve(result);
      });
      worker.postMessage({ id, ...message });
    });
  };
  let openTimer: NodeJS.Timeout | undefined;
  await Promise.race([
    ready,
    new Promise((_, reject) => {
      openTimer = setTimeout(() => reject(new Error('the store did not open in time')), timeoutMs);
    }),
  ]).finally(() => clearTimeout(openTimer));
  return {
    run: (text, limitMs = timeoutMs) => ask({ text }, limitMs),
    events,
    async close() {
      if (ended) return;
      await ask({ close: true }, timeoutMs);
      await end();
    },
  };
}
