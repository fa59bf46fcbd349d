// An SMTP fault step's `probability` (issue 40: "probabilities allowed but never required"): the service draws
// from its random source once per candidate step, applies the step when the draw is below the probability and
// falls through to the next step otherwise; a step with `times` as well spends a match only when it applies.
// The random source is injected, so the draws (and so the outcome) are fixed.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { systemClock } from '../../src/core/clock.ts';
import { EventBus } from '../../src/core/events.ts';
import { createSmtpFaultService } from '../../src/core/smtpFaults/service.ts';
import { insertSandbox, workspaceOf } from '../helpers/sandboxRow.ts';
import { describeEachStore } from '../helpers/stores.ts';

/** A random source that hands out `draws` in order, and fails the test if asked for more. */
function drawsOf(draws: number[]): { next: () => number; left: () => number } {
  const queue = [...draws];
  return {
    next: () => {
      const d = queue.shift();
      assert.ok(d !== undefined, 'no more draws were expected');
      return d;
    },
    left: () => queue.length,
  };
}

describeEachStore('SMTP fault probability', (getStore) => {
  it('applies a step when the draw is below its probability, else falls through to the next', async () => {
    const { db } = getStore();
    const sandboxId = await insertSandbox(db);
    const draws = drawsOf([0.7, 0.29, 0.3]);
    const faults = createSmtpFaultService(db, systemClock, new EventBus(), draws.next);
    await faults.set(await workspaceOf(db, sandboxId), sandboxId, {
      faults: [
        { stage: 'rcpt', reply: { code: 451, text: '4.3.0 Try later' }, probability: 0.3 },
        { stage: 'rcpt', reply: { code: 550, text: '5.1.1 No such user' } },
      ],
    });
    const script = await faults.script(sandboxId);
    assert.ok(script !== undefined);
    const codes = [];
    for (let i = 0; i < 3; i++) {
      const d = await faults.decide(script, 'rcpt', 'a@example.com');
      codes.push(d?.step.reply?.code);
    }
    // 0.7 ≥ 0.3: the second step; 0.29 < 0.3: the first; 0.3 ≥ 0.3: the second again.
    assert.deepEqual(codes, [550, 451, 550]);
    assert.equal(draws.left(), 0, 'one draw per decision that reached the step');
    // A stage no step names draws nothing.
    assert.equal(await faults.decide(script, 'ehlo'), undefined);
  });

  it('with times, spends a match only on a draw that applies the step', async () => {
    const { db } = getStore();
    const sandboxId = await insertSandbox(db);
    const draws = drawsOf([0.9, 0.1, 0.1]);
    const faults = createSmtpFaultService(db, systemClock, new EventBus(), draws.next);
    await faults.set(await workspaceOf(db, sandboxId), sandboxId, {
      faults: [{ stage: 'mail', drop: true, probability: 0.5, times: 1 }],
    });
    const script = await faults.script(sandboxId);
    assert.ok(script !== undefined);
    const actions = [];
    for (let i = 0; i < 3; i++) actions.push((await faults.decide(script, 'mail'))?.action ?? 'none');
    // The miss (0.9) spent nothing, so the hit (0.1) still had its one match; then it is spent.
    assert.equal(actions[0], 'none');
    assert.notEqual(actions[1], 'none');
    assert.equal(actions[2], 'none');
    const saved = await faults.get(await workspaceOf(db, sandboxId), sandboxId);
    assert.equal(saved[0]?.remaining, 0);
  });
});
