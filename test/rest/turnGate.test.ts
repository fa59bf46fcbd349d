// The API's turn gate on a clock the test moves: requests pass straight through while the turn has time,
// queue once it has spent its slice, and are then let in one turn after another, in arrival order, each turn
// letting in as many as fit. Turns are counted by a setImmediate ticker, so the assertions are about which
// turn ran what, never how long anything took. The burst through the real server is test/rest/waitBurst.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTurnGate } from '../../src/rest/turnGate.ts';

/** Counts event-loop turns until stopped: `turn()` is the number of check phases seen so far. */
function turnCounter() {
  let turns = 0;
  let running = true;
  const tick = () => {
    turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return { turn: () => turns, stop: () => (running = false) };
}

const flushTurns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe('turn gate', () => {
  it('lets requests straight through while the turn has time', () => {
    let now = 0;
    const gate = createTurnGate(10, () => now);
    const ran: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      gate.enter(() => ran.push(name));
      now += 3;
    }
    assert.deepEqual(ran, ['a', 'b', 'c']);
    assert.equal(gate.waiting(), 0);
  });

  it('queues once the slice is spent, then lets each in on a later turn, in arrival order', async () => {
    let now = 0;
    const gate = createTurnGate(10, () => now);
    const turns = turnCounter();
    const ran: Array<{ name: string; turn: number }> = [];
    // Each request takes a whole slice: after the first, every one must wait for a turn of its own.
    const request = (name: string) => () => {
      ran.push({ name, turn: turns.turn() });
      now += 12;
    };
    for (const name of ['a', 'b', 'c', 'd']) gate.enter(request(name));
    assert.deepEqual(
      ran.map((r) => r.name),
      ['a'],
    );
    assert.equal(gate.waiting(), 3);
    await flushTurns(10);
    turns.stop();
    assert.deepEqual(
      ran.map((r) => r.name),
      ['a', 'b', 'c', 'd'],
    );
    const turnOf = ran.map((r) => r.turn);
    for (let i = 1; i < turnOf.length; i++)
      assert.ok((turnOf[i] as number) > (turnOf[i - 1] as number), `turns ${turnOf.join(', ')}`);
    assert.equal(gate.waiting(), 0);
  });

  it('lets in as many queued requests as fit in one turn', async () => {
    let now = 0;
    const gate = createTurnGate(10, () => now);
    const turns = turnCounter();
    const ran: Array<{ name: string; turn: number }> = [];
    gate.enter(() => (now += 11)); // spends the first turn's slice
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) {
      gate.enter(() => {
        ran.push({ name, turn: turns.turn() });
        now += 4; // three fit in a 10 ms slice (0, 4, 8), the fourth waits
      });
    }
    await flushTurns(10);
    turns.stop();
    const byTurn = new Map<number, string[]>();
    for (const r of ran) byTurn.set(r.turn, [...(byTurn.get(r.turn) ?? []), r.name]);
    assert.deepEqual(
      [...byTurn.values()],
      [
        ['a', 'b', 'c'],
        ['d', 'e', 'f'],
      ],
    );
  });

  it("counts a let-in request's promise chain against the slice before letting in the next", async () => {
    let now = 0;
    const gate = createTurnGate(10, () => now);
    const turns = turnCounter();
    const ran: Array<{ name: string; turn: number }> = [];
    gate.enter(() => (now += 11)); // spends the first turn's slice
    for (const name of ['a', 'b', 'c', 'd']) {
      gate.enter(() => {
        ran.push({ name, turn: turns.turn() });
        // Its work happens after a few awaits, as a route's does after its hooks: the next request must not
        // be let in before this has run, or the slice would count nothing of it.
        void (async () => {
          await null;
          await null;
          await null;
          now += 6;
        })();
      });
    }
    await flushTurns(10);
    turns.stop();
    const byTurn = new Map<number, string[]>();
    for (const r of ran) byTurn.set(r.turn, [...(byTurn.get(r.turn) ?? []), r.name]);
    assert.deepEqual(
      [...byTurn.values()],
      [
        ['a', 'b'],
        ['c', 'd'],
      ],
    );
  });

  it('a newcomer does not jump a queue that is draining, even when the turn has time', async () => {
    let now = 0;
    const gate = createTurnGate(10, () => now);
    const ran: string[] = [];
    const slow = (name: string) => () => {
      ran.push(name);
      now += 11;
    };
    gate.enter(slow('first'));
    gate.enter(slow('q1'));
    gate.enter(slow('q2'));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(ran, ['first', 'q1']);
    // Back to the start of this turn's slice: it has time, but q2 came first.
    now -= 11;
    gate.enter(() => ran.push('newcomer'));
    assert.deepEqual(ran, ['first', 'q1']);
    await flushTurns(3);
    assert.deepEqual(ran, ['first', 'q1', 'q2', 'newcomer']);
  });
});
