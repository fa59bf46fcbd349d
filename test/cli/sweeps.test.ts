// The server's periodic work (src/cli/sweeps.ts) as a schedule: one maintenance at a time whichever timer
// started it, the store's maintenance and the grown check between sweep ticks, and a stop that waits for a run
// in progress (the store closes right after it) and starts no new one. The core's two calls are stand-ins that record when they run;
// what they do to a store is tested in test/store/maintenance.test.ts and test/cli/storeMaintenance.test.ts.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { pino } from 'pino';
import { startSweeps } from '../../src/cli/sweeps.ts';
import { eventually } from '../helpers/poll.ts';

const logger = pino({ level: 'silent' });

/** A promise the test resolves when it chooses. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** One turn of the event loop: whatever was already due has run. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A core whose maintenance waits for `maintenance` (and whose sweep for `sweep`), recording every call in
 * order; by default both pass at once, a timer turn later.
 */
function recordingCore(gates: { maintenance?: Promise<void>; sweep?: Promise<void> } = {}) {
  const calls: Array<{ kind: 'full' | 'grown'; ended: boolean }> = [];
  let running = 0;
  let mostAtOnce = 0;
  const maintain = async (kind: 'full' | 'grown') => {
    const call = { kind, ended: false };
    calls.push(call);
    mostAtOnce = Math.max(mostAtOnce, ++running);
    await (gates.maintenance ?? sleep(1));
    running--;
    call.ended = true;
    return { analyzed: [], vacuumed: [] };
  };
  return {
    calls,
    mostAtOnce: () => mostAtOnce,
    core: {
      sweep: async () => {
        await gates.sweep;
        return { ran: true, expiredSandboxes: 0, purgedMessages: 0, purgedRequests: 0 };
      },
      maintainStore: () => maintain('full'),
      analyzeGrownTables: () => maintain('grown'),
      oauth: { sweepClients: async () => undefined },
    },
  };
}

test('one maintenance at a time, whichever timer started it; grown checks run between sweep ticks', async () => {
  const r = recordingCore();
  const sweeps = startSweeps(r.core as never, logger, { intervalSeconds: 0.06, grownCheckMs: 5 });
  try {
    const count = (kind: 'full' | 'grown') => r.calls.filter((c) => c.kind === kind).length;
    await eventually(
      () => `three of each (full ${count('full')}, grown ${count('grown')})`,
      () => count('full') >= 3 && count('grown') >= 3,
      20_000,
      10,
    );
  } finally {
    await sweeps.stop();
  }
  assert.equal(r.mostAtOnce(), 1, 'two maintenance runs overlapped');
});

test('between sweep ticks the store is maintained, then checked for tables that outgrew their statistics', async () => {
  const r = recordingCore();
  // One sweep tick, at the start: every later run comes from the frequent timer.
  const sweeps = startSweeps(r.core as never, logger, { intervalSeconds: 3600, grownCheckMs: 5 });
  try {
    await eventually(
      () => `seven runs (${r.calls.length})`,
      () => r.calls.length >= 7,
      20_000,
      10,
    );
  } finally {
    await sweeps.stop();
  }
  const kinds = r.calls.map((c) => c.kind);
  assert.equal(kinds[0], 'full', 'the sweep tick at the start');
  const between = kinds.slice(1);
  assert.ok(between.length >= 6, `only ${between.length} runs between ticks`);
  // Pairs: the maintenance (which the embedded store keeps in small batches), then the grown check.
  for (let i = 0; i + 1 < between.length; i += 2)
    assert.deepEqual(between.slice(i, i + 2), ['full', 'grown']);
});

test('stop waits for a maintenance in progress, so the store is not closed under it', async () => {
  const maintenance = gate();
  const r = recordingCore({ maintenance: maintenance.opened });
  // The first sweep tick runs at once and starts the full maintenance, which runs until the gate opens.
  const sweeps = startSweeps(r.core as never, logger, { intervalSeconds: 3600, grownCheckMs: 3_600_000 });
  await eventually('the maintenance to start', () => r.calls.length === 1, 20_000, 10);
  let stopped = false;
  const stopping = sweeps.stop().then(() => (stopped = true));
  for (let i = 0; i < 10; i++) await turn();
  assert.equal(stopped, false, 'stop returned while the maintenance was still running');
  maintenance.open();
  await stopping;
  assert.deepEqual(r.calls, [{ kind: 'full', ended: true }]);
});

test('a stop during a sweep starts no maintenance after it', async () => {
  const sweep = gate();
  const r = recordingCore({ sweep: sweep.opened });
  const sweeps = startSweeps(r.core as never, logger, { intervalSeconds: 3600, grownCheckMs: 3_600_000 });
  // The first tick's sweep is in progress until the gate opens; the stop comes first.
  const stopping = sweeps.stop();
  sweep.open();
  await stopping;
  for (let i = 0; i < 10; i++) await turn();
  assert.deepEqual(r.calls, []);
});
