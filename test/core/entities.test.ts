// HTML character references in mail text and hrefs, decoded as browsers decode them: every named reference,
// numeric ones, and the legacy forms without a semicolon, which attribute values keep as written before `=`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeAttribute, decodeEntities } from '../../src/core/extract/entities.ts';
import { extractLinks, extractOtp } from '../../src/core/extract/index.ts';
import { htmlToText } from '../../src/core/text/htmlToText.ts';

describe('HTML character references', () => {
  it('decodes named references beyond the common few, case-sensitively', () => {
    assert.equal(decodeEntities('&Oacute;scar &oacute;'), 'Óscar ó');
    assert.equal(decodeEntities('2 &times; 3'), '2 × 3');
    assert.equal(decodeEntities('Madrid &rarr; Lisboa'), 'Madrid → Lisboa');
    assert.equal(decodeEntities('&frac12; price &minus;5'), '½ price −5');
    assert.equal(decodeEntities('&Eacute;t&eacute; &hearts; &NotANamedRef;'), 'Été ♥ &NotANamedRef;');
  });

  it('decodes decimal and hex references, invalid code points becoming U+FFFD', () => {
    assert.equal(decodeEntities('&#233;&#xE9;&#XE9;&#x1F600;'), 'ééé😀');
    assert.equal(decodeEntities('&#0;&#xD800;&#x110000;'), '\ufffd\ufffd\ufffd');
    // Windows-1252 numbers, as browsers read them.
    assert.equal(decodeEntities('&#150;&#128;'), '–€');
  });

  it('decodes legacy references without a semicolon in text, and leaves a bare & alone', () => {
    assert.equal(decodeEntities('&copy 2024 AT&T'), '© 2024 AT&T');
    assert.equal(decodeEntities('a &amp b &lt c'), 'a & b < c');
    assert.equal(decodeEntities('caf&eacute!'), 'café!');
    assert.equal(decodeEntities('fish & chips &; &#; &#x;'), 'fish & chips &; &#; &#x;');
  });

  it('keeps a legacy reference before = or a letter in attribute values, as a query string needs', () => {
    assert.equal(
      decodeAttribute('https://x.example/?a=1&copy=2&amp;b=3'),
      'https://x.example/?a=1&copy=2&b=3',
    );
    assert.equal(decodeAttribute('?q=&lt;&notit'), '?q=<&notit');
    const [link] = extractLinks({
      html: '<a href="https://x.example/r?id=7&reg=1&amp;t=2">R&eacute;initialiser</a>',
    });
    assert.deepEqual(link && { url: link.url, text: link.text }, {
      url: 'https://x.example/r?id=7&reg=1&t=2',
      text: 'Réinitialiser',
    });
  });

  it('feeds decoded text to previews and OTP extraction', () => {
    assert.equal(htmlToText('<p>&Oacute;rdenes: 2&times;1 &rarr; &frac12;</p>'), 'Órdenes: 2×1 → ½');
    const result = extractOtp({ html: '<p>Votre code&nbsp;: <b>&#52;&#56;&#49;&#50;&#57;&#55;</b></p>' });
    assert.equal(result.code, '481297');
  });
});
