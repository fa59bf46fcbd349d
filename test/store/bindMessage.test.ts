// The embedded store's own encoding of a prepared statement's run: byte for byte what PGlite's protocol
// serializer writes, for random parameter lists, and what postgres reads back for awkward text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PGlite, protocol } from '@electric-sql/pglite';
import { runPreparedMessages, type WireValue } from '../../src/core/store/bindMessage.ts';

const { serialize } = protocol;

function reference(statement: string, values: WireValue[]): Buffer {
  return Buffer.concat([
    serialize.bind({ statement, values }),
    serialize.describe({ type: 'P' }),
    serialize.execute({}),
    serialize.sync(),
  ]);
}

/** A small seeded generator, so that a failure names a case that can be run again. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const PIECES = [
  'a',
  'Zürich',
  '€',
  '日本語',
  '😀',
  '\u0000',
  '\r\n',
  ' ',
  '"',
  '\\',
  '\u00ff',
  'x'.repeat(300),
];

function randomValue(next: () => number): WireValue {
  const kind = Math.floor(next() * 4);
  if (kind === 0) return null;
  if (kind === 1) {
    const length = Math.floor(next() * 12);
    return Array.from({ length }, () => PIECES[Math.floor(next() * PIECES.length)]).join('');
  }
  // Bytes, sometimes a view into the middle of a larger buffer (as Node's pooled Buffers are).
  const length = Math.floor(next() * 5000);
  const backing = new Uint8Array(length + 64);
  for (let i = 0; i < backing.length; i++) backing[i] = Math.floor(next() * 256);
  const offset = kind === 2 ? 0 : Math.floor(next() * 64);
  return backing.subarray(offset, offset + length);
}

describe('prepared statement run messages', () => {
  it('are the bytes PGlite writes, for 500 random parameter lists', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const next = generator(seed);
      const values = Array.from({ length: Math.floor(next() * 40) }, () => randomValue(next));
      const name = seed % 2 === 0 ? `sandtrap_insert_${seed}` : '';
      assert.deepEqual(runPreparedMessages(name, values), reference(name, values), `seed ${seed}`);
    }
  });

  it('are the bytes PGlite writes for no parameters, empty text and empty bytes', () => {
    for (const values of [[], [''], [new Uint8Array(0)], [null, '', new Uint8Array(0)]] as WireValue[][])
      assert.deepEqual(runPreparedMessages('s', values), reference('s', values));
  });

  it('carry text and bytes into postgres unchanged, and a lone surrogate as U+FFFD', async () => {
    const pglite = new PGlite();
    try {
      await pglite.exec('prepare echo (text, bytea, text) as select $1 as t, $2 as b, $3 as s');
      const text = 'Zürich € 日本語 😀 \r\n "quoted" \\ end';
      const bytes = new Uint8Array([0, 1, 127, 128, 254, 255]);
      const { messages } = await pglite.execProtocol(runPreparedMessages('echo', [text, bytes, 'a\ud800b']));
      const failed = messages.find((m) => m.name === 'error');
      assert.equal(failed, undefined);
      const row = messages.find((m) => m.name === 'dataRow') as unknown as { fields: (string | null)[] };
      assert.deepEqual(row.fields, [text, '\\x00017f80feff', 'a\ufffdb']);
    } finally {
      await pglite.close();
    }
  });
});
