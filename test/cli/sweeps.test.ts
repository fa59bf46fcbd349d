// The server's periodic work (src/cli/sweeps.ts) as a schedule: one maintenance at a time whichever timer
// started it, the store's maintenance and the grown check between sweep ticks, and a stop that waits for a run
// in progress (the store closes right after it) and starts no new one. The core's two calls are stand-ins that record when they run;
// what they do to a store is tested in test/store/maintenance.test.ts and test/cli/storeMaintenance.test.ts.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { pino } from 'pino';
import { startSweeps } from '../../src/cli/sweeps.ts';

const logger = pino({ level: 'silent' });

/** A core whose maintenance takes `maintainMs` and whose sweep takes `sweepMs`, recording every call. */
function recordingCore(maintainMs: number, sweepMs = 0) {
  const calls: Array<{ kind: 'full' | 'grown'; start: number; end?: number }> = [];
  let running = 0;
  let mostAtOnce = 0;
  const maintain = async (kind: 'full' | 'grown') => {
    const call: { kind: 'full' | 'grown'; start: number; end?: number } = { kind, start: performance.now() };
    calls.push(call);
    mostAtOnce = Math.max(mostAtOnce, ++running);
    await sleep(maintainMs);
    running--;
    call.end = performance.now();
    return { analyzed: [], vacuumed: [] };
  };
  return {
    calls,
    mostAtOnce: () => mostAtOnce,
    core: {
      sweep: async () => {
        await sleep(sweepMs);
        return { ran: true, expiredSandboxes: 0, purgedMessages: 0, purgedRequests: 0 };
      },
      maintainStore: () => maintain('full'),
      analyzeGrownTables: () => maintain('grown'),
    },
  };
}

test('one maintenance at a time, whichever timer started it; grown checks run between sweep ticks', async () => {
  const r = recordingCore(25);
  const sweeps = startSweeps(r.core as never, logger, { intervalSeconds: 0.06, grownCheckMs: 5 });
  await sleep(600);
  await sweeps.stop();
  assert.equal(r.mostAtOnce(), 1, 'two maintenance runs overlapped');
  const full = r.calls.filter((c) => c.kind === 'full').length;
  const grown = r.calls.filter((c) => c.kind === 'grown').length;
  assert.ok(full >= 3, `sweep ticks ran their maintenance ${full} times`);
  assert.ok(grown >= 3, `grown checks ran ${grown} times`);
});

test('between sweep ticks the store is maintained, then checked for tables that outgrew their statistics', async () => {
  const r = recordingCore(5);
  // One sweep tick, at the start: every later run comes from the frequent timer.
  const sweeps = startSweeps(r.core as never, logger, { intervalSeconds: 3600, grownCheckMs: 5 });
  for (let waited = 0; r.calls.length < 7 && waited < 5_000; waited += 10) await sleep(10);
  await sweeps.stop();
  const kinds = r.calls.map((c) => c.kind);
  assert.equal(kinds[0], 'full', 'the sweep tick at the start');
  const between = kinds.slice(1);
  assert.ok(between.length >= 6, `only ${between.length} runs between ticks`);
  // Pairs: the maintenance (which the embedded store keeps in small batches), then the grown check.
  for (let i = 0; i + 1 < between.length; i += 2)
    assert.deepEqual(between.slice(i, i + 2), ['full', 'grown']);
});

test('stop waits for a maintenance in progress, so the store is not closed under it', async () => {
  const r = recordingCore(300);
  // The first sweep tick runs at once and starts the full maintenance.
  const sweeps = startSweeps(r.core as never, logger, { intervalSeconds: 3600, grownCheckMs: 3_600_000 });
  for (let waited = 0; r.calls.length === 0 && waited < 2_000; waited += 10) await sleep(10);
  assert.equal(r.calls.length, 1);
  assert.equal(r.calls[0]?.end, undefined, 'the maintenance ended before the stop (a slow machine?)');
  await sweeps.stop();
  assert.ok(r.calls[0]?.end !== undefined, 'stop returned while the maintenance was still running');
});

test('a stop during a sweep starts no maintenance after it', async () => {
  const r = recordingCore(10, 1_000);
  const sweeps = startSweeps(r.core as never, logger, { intervalSeconds: 3600, grownCheckMs: 3_600_000 });
  await sleep(50);
  await sweeps.stop();
  await sleep(50);
  assert.deepEqual(r.calls, []);
});
