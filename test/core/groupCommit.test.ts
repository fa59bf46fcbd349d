// GroupCommit alone: batching by turn and in-flight wait, maxItems/maxBytes, concurrency, per-item retry (none
// when the store refuses the whole batch).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GroupCommit, type GroupCommitOptions } from '../../src/core/store/groupCommit.ts';

/** One turn of the event loop: every setImmediate queued before this one has run. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Waits (turn by turn, bounded) until `cond` holds. */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (cond()) return;
    await turn();
  }
  assert.fail(`timed out waiting until ${what}`);
}

const defaults: GroupCommitOptions<string> = {
  maxItems: 1000,
  maxBytes: 1_000_000,
  sizeOf: (s) => s.length,
  concurrency: 1,
};

/** A writer whose write answers at once with `<item>:ok` for each item and records every batch. */
function instantWriter(options: Partial<GroupCommitOptions<string>> = {}) {
  const batches: string[][] = [];
  const gc = new GroupCommit<string, string>(
    async (items) => {
      batches.push([...items]);
      return items.map((i) => `${i}:ok`);
    },
    { ...defaults, ...options },
  );
  return { gc, batches };
}

/** A writer whose writes stay in flight until the test releases them, one by one. */
function heldWriter(options: Partial<GroupCommitOptions<string>> = {}) {
  const batches: string[][] = [];
  const held: Array<{ items: string[]; release(): void; fail(err: unknown): void }> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const gc = new GroupCommit<string, string>(
    (items) => {
      batches.push([...items]);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      return new Promise<string[]>((resolve, reject) => {
        held.push({
          items: [...items],
          release: () => {
            inFlight--;
            resolve(items.map((i) => `${i}:ok`));
          },
          fail: (err) => {
            inFlight--;
            reject(err);
          },
        });
      });
    },
    { ...defaults, ...options },
  );
  return {
    gc,
    batches,
    held,
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
  };
}

describe('GroupCommit', () => {
  it('items submitted in the same event-loop turn share one write, and each caller gets its own result', async () => {
    const { gc, batches } = instantWriter();
    const results = await Promise.all(['a', 'b', 'c', 'd'].map((i) => gc.submit(i)));
    assert.deepEqual(batches, [['a', 'b', 'c', 'd']]);
    assert.deepEqual(results, ['a:ok', 'b:ok', 'c:ok', 'd:ok']);
    assert.equal(gc.pending(), 0);
  });

  it("each caller gets the result at its own item's position in the batch (50 items, awaited in reverse)", async () => {
    // The write answers per item with something derived from the item itself, so a mix-up shows.
    const gc = new GroupCommit<number, number>(async (items) => items.map((n) => n * n), {
      maxItems: 1000,
      maxBytes: 1_000_000,
      sizeOf: () => 1,
      concurrency: 1,
    });
    const inputs = Array.from({ length: 50 }, (_, i) => 50 - i);
    const promises = inputs.map((n) => gc.submit(n));
    // Awaited in reverse: every promise still holds its own caller's result.
    for (let i = inputs.length - 1; i >= 0; i--) {
      assert.equal(await promises[i], (inputs[i] as number) ** 2);
    }
  });

  it('items submitted while a batch is in flight wait, then go together in the next batch, in submit order', async () => {
    const w = heldWriter();
    const first = w.gc.submit('a');
    await until(() => w.batches.length === 1, 'the first batch is written');
    assert.deepEqual(w.batches, [['a']]);
    // Submitted over several turns while 'a' is being committed.
    const later = [w.gc.submit('b')];
    await turn();
    later.push(w.gc.submit('c'));
    await turn();
    later.push(w.gc.submit('d'), w.gc.submit('e'));
    await turn();
    await turn();
    assert.equal(w.batches.length, 1, 'no second write while the first is in flight (concurrency 1)');
    assert.equal(w.gc.pending(), 5, 'four queued items plus one batch in flight');
    (w.held[0] as { release(): void }).release();
    assert.equal(await first, 'a:ok');
    await until(() => w.batches.length === 2, 'the second batch is written');
    assert.deepEqual(w.batches[1], ['b', 'c', 'd', 'e']);
    assert.equal(w.gc.pending(), 1, 'only the second batch, in flight');
    (w.held[1] as { release(): void }).release();
    assert.deepEqual(await Promise.all(later), ['b:ok', 'c:ok', 'd:ok', 'e:ok']);
    assert.equal(w.batches.length, 2);
    assert.equal(w.gc.pending(), 0);
  });

  it('maxItems splits a burst into batches of at most that many, in order', async () => {
    const { gc, batches } = instantWriter({ maxItems: 3 });
    const items = ['0', '1', '2', '3', '4', '5', '6'];
    const results = await Promise.all(items.map((i) => gc.submit(i)));
    assert.deepEqual(batches, [['0', '1', '2'], ['3', '4', '5'], ['6']]);
    assert.deepEqual(
      results,
      items.map((i) => `${i}:ok`),
    );
  });

  it('maxBytes splits batches by sizeOf; a batch may fill it exactly', async () => {
    const { gc, batches } = instantWriter({ maxBytes: 10 });
    const items = ['aaaa', 'bbbb', 'cc', 'ddddd', 'eeeee', 'f'];
    const results = await Promise.all(items.map((i) => gc.submit(i)));
    // 4+4+2 = 10 fits exactly; 5+5 = 10 fits; 'f' would make 11.
    assert.deepEqual(batches, [['aaaa', 'bbbb', 'cc'], ['ddddd', 'eeeee'], ['f']]);
    assert.deepEqual(
      results,
      items.map((i) => `${i}:ok`),
    );
    for (const b of batches) assert.ok(b.join('').length <= 10, `batch ${JSON.stringify(b)} within maxBytes`);
  });

  it('a single item bigger than maxBytes still goes, alone', async () => {
    const { gc, batches } = instantWriter({ maxBytes: 10 });
    const big = 'x'.repeat(25);
    const results = await Promise.all(['s', big, 't', 'u'].map((i) => gc.submit(i)));
    assert.deepEqual(batches, [['s'], [big], ['t', 'u']]);
    assert.deepEqual(results, ['s:ok', `${big}:ok`, 't:ok', 'u:ok']);
  });

  it('concurrency 2: two writes are in flight at once, never a third', async () => {
    const w = heldWriter({ maxItems: 1, concurrency: 2 });
    const items = ['a', 'b', 'c', 'd', 'e'];
    const promises = items.map((i) => w.gc.submit(i));
    assert.equal(w.gc.pending(), 5);
    await until(() => w.batches.length === 2, 'two batches are written');
    await turn();
    await turn();
    assert.equal(w.batches.length, 2, 'a third write waits for a free slot');
    assert.equal(w.inFlight(), 2);
    assert.equal(w.gc.pending(), 5, 'three queued plus two in flight');
    // Finishing the second write (not the first) frees a slot for the next batch.
    (w.held[1] as { release(): void }).release();
    await until(() => w.batches.length === 3, 'the third batch takes the freed slot');
    assert.equal(w.inFlight(), 2);
    for (let i = 0; i < items.length; i++) {
      await until(() => w.held.length > i, `write ${i + 1} is in flight`);
      if (i !== 1) (w.held[i] as { release(): void }).release();
    }
    assert.deepEqual(
      await Promise.all(promises),
      items.map((i) => `${i}:ok`),
    );
    assert.deepEqual(w.batches, [['a'], ['b'], ['c'], ['d'], ['e']]);
    assert.equal(w.maxInFlight(), 2);
    assert.equal(w.gc.pending(), 0);
  });

  it('concurrency 2 with batching: the second slot takes everything queued, and a third batch waits', async () => {
    const w = heldWriter({ concurrency: 2 });
    const p1 = w.gc.submit('a');
    await until(() => w.batches.length === 1, 'the first batch is written');
    const p2 = [w.gc.submit('b'), w.gc.submit('c')];
    await until(() => w.batches.length === 2, 'the second batch is written in the free slot');
    const p3 = [w.gc.submit('d'), w.gc.submit('e')];
    await turn();
    await turn();
    assert.equal(w.batches.length, 2, 'both slots busy: d and e wait');
    (w.held[0] as { release(): void }).release();
    await until(() => w.batches.length === 3, 'the third batch is written');
    (w.held[1] as { release(): void }).release();
    (w.held[2] as { release(): void }).release();
    assert.equal(await p1, 'a:ok');
    assert.deepEqual(await Promise.all(p2), ['b:ok', 'c:ok']);
    assert.deepEqual(await Promise.all(p3), ['d:ok', 'e:ok']);
    assert.deepEqual(w.batches, [['a'], ['b', 'c'], ['d', 'e']]);
    assert.equal(w.maxInFlight(), 2);
  });

  it('a batch whose write throws is retried item by item: only the bad item rejects, with its own error', async () => {
    const batches: string[][] = [];
    const gc = new GroupCommit<string, string>(async (items) => {
      batches.push([...items]);
      if (items.includes('bad')) {
        throw new Error(items.length > 1 ? 'the whole batch failed' : 'bad is bad');
      }
      return items.map((i) => `${i}:ok`);
    }, defaults);
    const settled = await Promise.allSettled(['a', 'bad', 'c'].map((i) => gc.submit(i)));
    assert.deepEqual(batches, [['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
    assert.deepEqual(settled[0], { status: 'fulfilled', value: 'a:ok' });
    assert.deepEqual(settled[2], { status: 'fulfilled', value: 'c:ok' });
    assert.equal(settled[1]?.status, 'rejected');
    assert.equal(((settled[1] as PromiseRejectedResult).reason as Error).message, 'bad is bad');
    // The writer goes on: the next item is written normally.
    assert.equal(await gc.submit('next'), 'next:ok');
    assert.deepEqual(batches.at(-1), ['next']);
  });

  it('a batch that fails only as a whole (each item alone succeeds) answers every item', async () => {
    const batches: string[][] = [];
    const gc = new GroupCommit<string, string>(async (items) => {
      batches.push([...items]);
      if (items.length > 1) throw new Error('transient');
      return items.map((i) => `${i}:ok`);
    }, defaults);
    assert.deepEqual(await Promise.all(['x', 'y'].map((i) => gc.submit(i))), ['x:ok', 'y:ok']);
    assert.deepEqual(batches, [['x', 'y'], ['x'], ['y']]);
  });

  it('a batch the store refuses as a whole (failsEveryItem: a full disk) rejects every item, none retried', async () => {
    const full = new Error('disk full');
    const batches: string[][] = [];
    const gc = new GroupCommit<string, string>(
      async (items) => {
        batches.push([...items]);
        throw full;
      },
      { ...defaults, failsEveryItem: (err) => err === full },
    );
    const settled = await Promise.allSettled(['a', 'b', 'c'].map((i) => gc.submit(i)));
    assert.deepEqual(batches, [['a', 'b', 'c']]);
    assert.deepEqual(
      settled.map((s) => (s.status === 'rejected' ? s.reason : s.value)),
      [full, full, full],
    );
    assert.equal(gc.pending(), 0);
  });

  it('a lone item whose write throws rejects with that error and is not retried', async () => {
    const err = new Error('store down');
    let calls = 0;
    const gc = new GroupCommit<string, string>(async () => {
      calls++;
      throw err;
    }, defaults);
    await assert.rejects(gc.submit('only'), (e) => e === err);
    assert.equal(calls, 1);
    assert.equal(gc.pending(), 0);
  });

  it('an idle writer writes a single item at once, alone, without waiting for more', async () => {
    const { gc, batches } = instantWriter();
    const p = gc.submit('solo');
    assert.deepEqual(batches, [], 'nothing is written synchronously inside submit');
    // The batch starts in the very next check phase: nothing else needs to arrive, no timer runs.
    await turn();
    assert.deepEqual(batches, [['solo']]);
    assert.equal(await p, 'solo:ok');
    // Idle again: the next lone item is also written on its own at once.
    const q = gc.submit('again');
    await turn();
    assert.deepEqual(batches, [['solo'], ['again']]);
    assert.equal(await q, 'again:ok');
  });

  describe('announced items', () => {
    it('a batch waits for an announced item and takes it along', async () => {
      const { gc, batches } = instantWriter({ announcedWaitMs: 10_000 });
      const a = gc.announce();
      const b = gc.submit('b');
      for (let i = 0; i < 5; i++) await turn();
      assert.deepEqual(batches, [], 'nothing written while "a" is announced');
      const results = Promise.all([b, a.submit('a')]);
      await until(() => batches.length === 1, 'the batch is written');
      assert.deepEqual(batches, [['b', 'a']]);
      assert.deepEqual(await results, ['b:ok', 'a:ok']);
    });

    it('waits at most announcedWaitMs, and the late item is still written afterwards', async (t) => {
      // Time is the subject: a mocked setTimeout, so a busy machine cannot run the 30 ms out early.
      t.mock.timers.enable({ apis: ['setTimeout'] });
      const { gc, batches } = instantWriter({ announcedWaitMs: 30 });
      const late = gc.announce();
      const b = gc.submit('b');
      for (let i = 0; i < 5; i++) await turn();
      t.mock.timers.tick(29);
      for (let i = 0; i < 5; i++) await turn();
      assert.deepEqual(batches, [], 'the batch waits for the announced item');
      t.mock.timers.tick(1);
      assert.equal(await b, 'b:ok');
      assert.deepEqual(batches, [['b']]);
      assert.equal(await late.submit('late'), 'late:ok');
      assert.deepEqual(batches, [['b'], ['late']]);
    });

    it('withdrawing an announced item ends the wait at once, and a second withdraw or submit changes nothing', async () => {
      const { gc, batches } = instantWriter({ announcedWaitMs: 10_000 });
      const a = gc.announce();
      const b = gc.submit('b');
      await turn();
      assert.deepEqual(batches, []);
      a.withdraw();
      assert.equal(await b, 'b:ok');
      a.withdraw();
      // Not counted again: a lone item after this is written without waiting.
      const c = gc.announce();
      assert.equal(await c.submit('c'), 'c:ok');
      c.withdraw();
      assert.equal(await gc.submit('d'), 'd:ok');
      assert.deepEqual(batches, [['b'], ['c'], ['d']]);
    });

    it('does not wait when announcedWaitMs is 0 (the default) or the batch is already full', async () => {
      const unset = instantWriter();
      unset.gc.announce();
      assert.equal(await unset.gc.submit('x'), 'x:ok');

      const full = instantWriter({ announcedWaitMs: 10_000, maxItems: 2 });
      full.gc.announce();
      assert.deepEqual(await Promise.all([full.gc.submit('p'), full.gc.submit('q')]), ['p:ok', 'q:ok']);
      assert.deepEqual(full.batches, [['p', 'q']]);
    });

    it('while a batch is in flight, announced items do not hold it up; the next batch waits for them', async () => {
      const w = heldWriter({ announcedWaitMs: 10_000 });
      const first = w.gc.submit('a');
      await until(() => w.batches.length === 1, 'the first batch is written');
      const pending = w.gc.announce();
      const b = w.gc.submit('b');
      (w.held[0] as { release(): void }).release();
      assert.equal(await first, 'a:ok');
      for (let i = 0; i < 5; i++) await turn();
      assert.equal(w.batches.length, 1, '"b" waits for the announced item');
      const c = pending.submit('c');
      await until(() => w.batches.length === 2, 'the second batch is written');
      assert.deepEqual(w.batches[1], ['b', 'c']);
      (w.held[1] as { release(): void }).release();
      assert.deepEqual(await Promise.all([b, c]), ['b:ok', 'c:ok']);
    });
  });
});
