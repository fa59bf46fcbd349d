// The event id codec: every position comes back exactly (the whole range the store can reach), ids are of one
// shape whatever the position, another store's key reads another store's ids as unknown, and ids nobody handed
// out (other shapes, another spelling of the same bytes, a changed character) are refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventIds } from '../../src/core/liveEvents/eventIds.ts';

const key = Buffer.alloc(32, 7);
const ids = eventIds(key);

describe('event ids', () => {
  it('round-trips positions from the first to the last one the id can hold, in one shape', () => {
    const positions = [
      { xid: 0n, seq: 0n },
      { xid: 1n, seq: 1n },
      { xid: 4_294_967_296n + 731n, seq: 123_456_789n },
      { xid: 2n ** 64n - 1n, seq: 2n ** 48n - 1n },
    ];
    for (const p of positions) {
      const id = ids.format(p);
      assert.match(id, /^[A-Za-z0-9_-]{22}$/);
      assert.deepEqual(ids.parse(id), p);
      assert.deepEqual(ids.parse(` ${id} `), p, 'surrounding blanks, as a header may carry them');
    }
    assert.throws(() => ids.format({ xid: 1n, seq: 2n ** 48n }), /out of the id range/);
  });

  it('neighbouring positions give unrelated ids, and another key other ids', () => {
    const a = ids.format({ xid: 1000n, seq: 5n });
    const b = ids.format({ xid: 1000n, seq: 6n });
    let shared = 0;
    while (shared < a.length && a[shared] === b[shared]) shared++;
    assert.ok(shared < 4, `${a} and ${b} share a ${shared}-character prefix`);
    const other = eventIds(Buffer.alloc(32, 8));
    assert.notEqual(other.format({ xid: 1000n, seq: 5n }), a);
    assert.equal(other.parse(a), undefined);
  });

  it('refuses what it never handed out', () => {
    const id = ids.format({ xid: 77n, seq: 9n });
    const changed = `${id[0] === 'A' ? 'B' : 'A'}${id.slice(1)}`;
    for (const bad of ['', '77.9', `${id}x`, id.slice(1), changed, `${id.slice(0, 21)}B`]) {
      if (bad === id) continue;
      assert.equal(ids.parse(bad), undefined, bad);
    }
  });
});
