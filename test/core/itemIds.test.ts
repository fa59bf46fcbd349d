// Captured items' ids (core/random.ts newItemId): UUIDv7s that sort in the order they were made, also within
// one millisecond and across the refills of the random pool they draw from, and never repeat.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validate, version } from 'uuid';
import { newItemId } from '../../src/core/random.ts';

describe('newItemId', () => {
  it('makes version-7 ids that sort in the order they were made and never repeat', () => {
    const ids = Array.from({ length: 20_000 }, () => newItemId());
    for (const id of ids) {
      assert.ok(validate(id), id);
      assert.equal(version(id), 7);
      assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    assert.equal(new Set(ids).size, ids.length);
    // 20,000 ids are made in far fewer milliseconds: most share one with others.
    assert.deepEqual([...ids].sort(), ids);
  });

  it('carries the time it was made in its first 48 bits', () => {
    const before = Date.now();
    const id = newItemId();
    const after = Date.now();
    const msecs = parseInt(id.replaceAll('-', '').slice(0, 12), 16);
    // Within a busy millisecond the sequence may have carried into the next one.
    assert.ok(msecs >= before && msecs <= after + 1, `${msecs} in [${before}, ${after + 1}]`);
  });
});
