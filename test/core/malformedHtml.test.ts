// Broken mail HTML read by htmlparser2's tokenizer under our line and emphasis policy: unclosed tags, '<' in text,
// comments, CDATA and quoted '>' read as a browser reads them, and where the hand-written scan went wrong, right.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { htmlTokens } from '../../src/core/extract/htmlTokens.ts';
import { extractLinks, extractOtp } from '../../src/core/extract/index.ts';
import { htmlToLines, htmlToText } from '../../src/core/text/htmlToText.ts';

describe('HTML-to-text on malformed HTML', () => {
  it('closes unclosed blocks at the next block and keeps the emphasis of an unclosed <b>', () => {
    assert.deepEqual(htmlToLines('<p>Your code<p><b>482913'), [
      { text: 'Your code', emph: [] },
      { text: '482913', emph: [[0, 6]] },
    ]);
    assert.equal(
      htmlToText('<table><tr><td>A<td>B<tr><td>C</table><ul><li>one<li>two</ul>'),
      'A\nB\nC\none\ntwo',
    );
    // A tag cut off by the end of the body is not text.
    assert.equal(htmlToText('<p>tail<b'), 'tail');
  });

  it("reads a '<' that starts no tag as text", () => {
    assert.equal(htmlToText('<div>Total: 3 < 5 and 5 > 3</div>'), 'Total: 3 < 5 and 5 > 3');
    // A tag name starts with a letter: the old scan took `<1p>` for a tag and dropped it.
    assert.equal(htmlToText('<p>Rated <1p> not a tag</p>'), 'Rated <1p> not a tag');
  });

  it('skips comments whole, markup inside them included', () => {
    assert.equal(htmlToText('<p>a<!-- <p>hidden</p> -- > still -->b</p>'), 'ab');
    assert.deepEqual(htmlToLines('<p>Code: <strong>12<!-- x -->34</strong></p>'), [
      { text: 'Code: 1234', emph: [[6, 10]] },
    ]);
    // `<!-->` is an empty comment; the old scan looked for a later `-->` and lost the rest of the body with it.
    assert.equal(htmlToText('<p>a</p><!-->b<p>c</p>'), 'a\nb\nc');
    const otp = extractOtp({ html: '<p>Hi<!--><p>Your code is <b>482913</b></p>' });
    assert.equal(otp.code, '482913');
  });

  it("skips a CDATA section whole, not only up to its first '>'", () => {
    assert.deepEqual(htmlToLines('<p>Sign-in code<![CDATA[ if a > b ]]>: <b>551204</b></p>'), [
      { text: 'Sign-in code: 551204', emph: [[14, 20]] },
    ]);
  });

  it("keeps a '>' inside a quoted attribute value in the attribute", () => {
    const html =
      '<p data-x="a<b>c">one</p><a href="https://e.com/verify?x=1>2" title="a > b">Verify your email</a> now';
    assert.equal(htmlToText(html), 'one\nVerify your email now');
    assert.deepEqual(extractLinks({ html }), [
      { url: 'https://e.com/verify?x=1>2', text: 'Verify your email', kind: 'verify' },
    ]);
  });

  it("cuts a tag whose quote never closes at the next '>', so the rest of the body is still read", () => {
    assert.deepEqual(htmlToLines('<td style="font-weight:bold>771203</td><p>Use it within 10 minutes</p>'), [
      { text: '771203', emph: [[0, 6]] },
      { text: 'Use it within 10 minutes', emph: [] },
    ]);
    assert.deepEqual(
      extractLinks({ html: '<a href="https://e.com/reset>Reset password</a><p>Ignore otherwise</p>' }),
      [{ url: 'https://e.com/reset', text: 'Reset password', kind: 'reset' }],
    );
  });

  it('drops script, style, title and noscript content, end tags inside their strings included', () => {
    assert.equal(
      htmlToText(
        '<title>Subject</title><style>p > b { color: red }</style><script>if (a < b) x("</p>")</script>' +
          '<noscript><p>enable JS</p></noscript><p>shown</p>',
      ),
      'shown',
    );
  });

  it('gives tags lower-cased names and attributes, the first of a repeated name winning, values as written', () => {
    const tokens = [...htmlTokens('<A HREF="/x?a=1&amp;b=2" href="/y" Title=t>go</A>')];
    assert.deepEqual(tokens, [
      {
        type: 'tag',
        name: 'a',
        closing: false,
        selfClosing: false,
        attrs: new Map([
          ['href', '/x?a=1&amp;b=2'],
          ['title', 't'],
        ]),
      },
      { type: 'text', text: 'go' },
      { type: 'tag', name: 'a', closing: true, selfClosing: false, attrs: new Map() },
    ]);
  });

  it('reads a text run split across tokenizer chunks as one, so an entity on the boundary still decodes', () => {
    // The tokenizer is fed 16 KiB at a time; put `&amp;` across the first boundary.
    const html = `<p>${'x'.repeat(16_384 - 5)}&amp;y</p>`;
    assert.equal(htmlToText(html), `${'x'.repeat(16_384 - 5)}&y`);
  });
});
