// New waits come in a slice at a time: at most ADMISSION_SLOTS read at once, and those queued behind them are
// let in on a later event-loop turn (never from the promise chain of the ones that left, which would drain a
// burst in one turn); a queued wait whose client goes away, or a shutdown, turns it away without a slot.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMISSION_SLOTS, createAdmission } from '../../src/core/waitAdmission.ts';

const microtasks = async (n = 20) => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('wait admission', () => {
  it(`lets ${ADMISSION_SLOTS} in at once, and the next ones only after the loop went round`, async () => {
    const admission = createAdmission();
    const inside: Array<() => void> = [];
    const admittedOrder: number[] = [];
    const all = Array.from({ length: ADMISSION_SLOTS * 2 + 3 }, (_, i) =>
      admission.enter().then((leave) => {
        assert.ok(leave !== undefined);
        admittedOrder.push(i);
        inside.push(leave);
      }),
    );
    await microtasks();
    assert.equal(inside.length, ADMISSION_SLOTS);
    assert.equal(admission.queued(), ADMISSION_SLOTS + 3);

    for (const leave of inside.splice(0)) leave();
    await microtasks();
    assert.equal(inside.length, 0, 'not let in from the leavers’ promise chain');
    await nextTurn();
    await microtasks();
    assert.equal(inside.length, ADMISSION_SLOTS, 'the next slice, on the next turn');

    for (const leave of inside.splice(0)) leave();
    await nextTurn();
    await Promise.all(all);
    assert.equal(inside.length, 3);
    assert.deepEqual(
      admittedOrder,
      Array.from({ length: ADMISSION_SLOTS * 2 + 3 }, (_, i) => i),
      'first come, first in',
    );
    for (const leave of inside) leave();
  });

  it('turns away a queued caller whose signal aborts, and every queued caller at shutdown', async () => {
    const admission = createAdmission(1);
    const first = await admission.enter();
    assert.ok(first !== undefined);
    const controller = new AbortController();
    const aborted = admission.enter(controller.signal);
    const queued = admission.enter();
    controller.abort();
    assert.equal(await aborted, undefined);
    assert.equal(admission.queued(), 1);
    assert.equal(await admission.enter(AbortSignal.abort()), undefined, 'already aborted: never queued');
    admission.endAll();
    assert.equal(await queued, undefined);
    first();
    const later = await admission.enter();
    assert.ok(later !== undefined, 'the slot is free again');
  });
});
