// The preview rule on its own: whitespace runs folded to one space, trimmed, first 200 code points.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldPreview } from '../../src/core/mail/parseMessage.ts';

/** The rule written the plain way, over the whole text. */
function wholeTextPreview(text: string): string | null {
  const folded = text.replace(/\s+/g, ' ').trim();
  return folded === '' ? null : [...folded].slice(0, 200).join('');
}

describe('foldPreview', () => {
  it('folds whitespace runs of every kind to one space and trims', () => {
    assert.equal(foldPreview('  Hello\r\n\r\n\tworld\u00a0\u2028again  '), 'Hello world again');
  });

  it('is null for no text and for whitespace only', () => {
    assert.equal(foldPreview(null), null);
    assert.equal(foldPreview(''), null);
    assert.equal(foldPreview(' \r\n\t '), null);
  });

  it('cuts at 200 code points, not UTF-16 units: an emoji is one', () => {
    const preview = foldPreview('😀'.repeat(300)) ?? '';
    assert.equal([...preview].length, 200);
    assert.equal(preview, '😀'.repeat(200));
  });

  it('keeps the space when the cut falls right after a word', () => {
    assert.equal(foldPreview(`${'a'.repeat(199)}   b`), `${'a'.repeat(199)} `);
  });

  it('gives the whole-text answer for a long body', () => {
    const body = 'word \r\n'.repeat(2_000_000);
    assert.equal(foldPreview(body), wholeTextPreview(body));
  });

  it('matches the whole-text rule on random mixes of words, spaces and astral characters', () => {
    const alphabet = [' ', '\n', '\t', '\u00a0', '\u2028', 'a', 'b', 'é', '😀', '𝒳'];
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 5_000; i++) {
      const length = Math.floor(next() * (i % 2 === 0 ? 450 : 30));
      let text = '';
      for (let j = 0; j < length; j++) text += alphabet[Math.floor(next() * alphabet.length)];
      assert.equal(foldPreview(text), wholeTextPreview(text), JSON.stringify(text));
    }
  });
});
