// The parse pool: a message parsed on a worker thread has the same fields as one parsed inline, and its bytes
// come back whole, whether they went by transfer (a buffer of their own) or by copy (a slice of a shared slab).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseMessage } from '../../src/core/mail/parseMessage.ts';
import { createMessageParser } from '../../src/core/mail/parsePool.ts';

const message = (n: number) =>
  [
    'From: "Sender" <sender@example.test>',
    `To: to${n}@example.test`,
    `Subject: pooled ${n} =?utf-8?q?caf=C3=A9?=`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/alternative; boundary="b"',
    '',
    '--b',
    'Content-Type: text/plain; charset=utf-8',
    '',
    `Hello ${n} ${'x'.repeat(5000)}`,
    '--b',
    'Content-Type: text/html; charset=utf-8',
    '',
    `<p>Hello ${n}</p>`,
    '--b--',
    '',
  ].join('\r\n');

describe('parse pool', () => {
  it('parses on a worker with the same fields as inline, and hands the transferred bytes back', async () => {
    const pooled = createMessageParser({ poolFromBytes: 0 });
    const results = await Promise.all(
      Array.from({ length: 8 }, async (_, n) => {
        const source = new TextEncoder().encode(message(n));
        const expected = Uint8Array.from(source);
        const out = await pooled(source, 'env@example.test');
        // The caller's view went to the worker by transfer; the bytes came back unchanged.
        assert.equal(source.byteLength, 0);
        assert.deepEqual(out.raw, expected);
        assert.deepEqual(out.parsed, await parseMessage(expected, 'env@example.test'));
        return out.parsed.subject;
      }),
    );
    assert.deepEqual(
      results,
      Array.from({ length: 8 }, (_, n) => `pooled ${n} café`),
    );
  });

  it('copies bytes that share their buffer with others, leaving the others intact', async () => {
    const pooled = createMessageParser({ poolFromBytes: 0 });
    const slab = new TextEncoder().encode(`${message(1)}${message(2)}`);
    const first = slab.subarray(0, message(1).length);
    const out = await pooled(first, null);
    assert.equal(first.byteLength, message(1).length);
    assert.equal(slab.byteLength, message(1).length + message(2).length);
    assert.equal(out.parsed.subject, 'pooled 1 café');
    assert.deepEqual(out.raw, first);
  });

  it('copies a Buffer from Buffer.concat (Node will not transfer its pool), leaving it intact', async () => {
    const pooled = createMessageParser({ poolFromBytes: 0 });
    const text = message(4);
    const source = Buffer.concat([Buffer.from(text.slice(0, 100)), Buffer.from(text.slice(100))]);
    const out = await pooled(source, null);
    assert.equal(source.toString(), text);
    assert.equal(Buffer.from(out.raw).toString(), text);
    assert.equal(out.parsed.subject, 'pooled 4 café');
  });

  it('parses below the threshold inline and leaves the caller its bytes', async () => {
    const inline = createMessageParser({ poolFromBytes: 1_000_000 });
    const source = new TextEncoder().encode(message(3));
    const out = await inline(source, null);
    assert.equal(out.raw, source);
    assert.equal(out.parsed.subject, 'pooled 3 café');
  });
});
