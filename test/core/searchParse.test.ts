// The `search=` language on its own (src/core/search): what each form parses to, the tsquery it becomes, the
// refusals with their position and hint, and fuzzed input, which only ever parses or is refused as invalid_input.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isAppError } from '../../src/core/errors.ts';
import { searchDocument } from '../../src/core/search/document.ts';
import { compileSearch } from '../../src/core/search/index.ts';
import { parseInstant, parseSearch, searchOperators } from '../../src/core/search/parse.ts';
import { searchTokens } from '../../src/core/search/tokens.ts';

/** The search's refusal message (the one field error's), or a failure when it parses. */
function refusal(search: string, stream: 'messages' | 'requests' = 'messages'): string {
  try {
    parseSearch(search, stream);
  } catch (err) {
    assert.ok(isAppError(err), `an AppError, got ${String(err)}`);
    assert.equal(err.code, 'invalid_input');
    assert.equal(err.errors?.length, 1);
    assert.equal(err.errors?.[0]?.path, 'search');
    return err.errors?.[0]?.message ?? '';
  }
  assert.fail(`${JSON.stringify(search)} was expected to be refused`);
}

describe('search tokens', () => {
  it('are lower-cased runs of letters and digits in any script', () => {
    assert.deepEqual(searchTokens('Grüße, Köln! no-reply@ACME.example 42x'), [
      'grüße',
      'köln',
      'no',
      'reply',
      'acme',
      'example',
      '42x',
    ]);
    assert.deepEqual(searchTokens('東京 — ok'), ['東京', 'ok']);
  });

  it('are cut to 64 characters', () => {
    assert.equal(searchTokens('a'.repeat(100))[0], 'a'.repeat(64));
  });

  it('are cut to 64 code points, never inside a surrogate pair, however long the run', () => {
    // Astral letters (𝒜, two UTF-16 units each) before and across the cut; a run of 5,000 characters.
    const astral = '𝒜'.repeat(40) + 'b'.repeat(40);
    assert.equal(searchTokens(astral)[0], '𝒜'.repeat(40) + 'b'.repeat(24));
    assert.equal(searchTokens('b' + '𝒜'.repeat(70))[0], 'b' + '𝒜'.repeat(63));
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 60, maxLength: 300 }), (text) => {
        for (const token of searchTokens(text)) {
          assert.ok(Array.from(token).length <= 64, token);
          assert.equal(token.isWellFormed(), true, token);
        }
      }),
    );
    assert.equal(searchTokens('x'.repeat(5_000))[0]?.length, 64);
  });
});

describe('parseSearch', () => {
  it('reads words, phrases, exclusions and every operator', () => {
    const terms = parseSearch(
      'invoice "big sale" -spam FROM:acme to:"ann smith" subject:q3 has:attachment is:unread before:2026-02-01 after:2026-01-01T10:00:00+01:00',
      'messages',
    );
    assert.deepEqual(terms, [
      { kind: 'text', field: undefined, words: ['invoice'], phrase: false, negated: false },
      { kind: 'text', field: undefined, words: ['big', 'sale'], phrase: true, negated: false },
      { kind: 'text', field: undefined, words: ['spam'], phrase: false, negated: true },
      { kind: 'text', field: 'from', words: ['acme'], phrase: false, negated: false },
      { kind: 'text', field: 'to', words: ['ann', 'smith'], phrase: true, negated: false },
      { kind: 'text', field: 'subject', words: ['q3'], phrase: false, negated: false },
      { kind: 'hasAttachment', negated: false },
      { kind: 'isRead', value: false, negated: false },
      { kind: 'before', at: new Date('2026-02-01T00:00:00Z'), negated: false },
      { kind: 'after', at: new Date('2026-01-01T09:00:00Z'), negated: false },
    ]);
  });

  it('a blank search has no terms', () => {
    assert.deepEqual(parseSearch(' \t\n ', 'messages'), []);
    assert.equal(compileSearch('   ', 'messages'), undefined);
    assert.equal(compileSearch(undefined, 'messages'), undefined);
  });

  it('refuses with the character it is at and what to do', () => {
    assert.match(
      refusal('ok "open'),
      /^A quote is not closed at character 4: end the phrase with a closing "$/,
    );
    assert.match(
      refusal('a sender:x'),
      /^Unknown operator "sender:" at character 3: the operators are from: to: subject: has:attachment is:unread is:read before: after:; to search for the text itself, put it in quotes/,
    );
    assert.match(refusal('https://example.test'), /Unknown operator "https:" at character 1/);
    assert.match(
      refusal('after:2026-1-5'),
      /"2026-1-5" is not a date at character 7: write after:2026-01-31/,
    );
    assert.match(refusal('before:2026-02-29'), /is not a date/);
    assert.match(refusal('before:9999-12-31T23:00:00-14:00'), /is not a date/);
    assert.match(refusal('is:flagged'), /use is:unread or is:read/);
    assert.match(refusal('has:link'), /has:attachment/);
    assert.match(refusal('x - y'), /"-" with nothing after it at character 3/);
    assert.match(refusal('subject:'), /"subject:" needs a value at character 9/);
    assert.match(refusal('""'), /An empty phrase finds nothing/);
    assert.match(refusal('!!'), /has no letters or digits/);
    assert.match(
      refusal('to:bob', 'requests'),
      /"to:" does not apply to requests.*is:unread is:read before: after:$/,
    );
    assert.match(refusal('x'.repeat(501)), /too long/);
    assert.match(
      refusal(Array.from({ length: 33 }, (_, i) => `w${i}`).join(' ')),
      /Too many terms at character/,
    );
  });

  it('lists the operators of each stream', () => {
    assert.deepEqual(searchOperators('requests'), ['is:unread', 'is:read', 'before:', 'after:']);
  });
});

describe('search filter', () => {
  it('makes words prefixes, phrases exact and adjacent, fields weights, exclusions last', () => {
    const filter = compileSearch('-spam "big sale" from:acme.example invoi', 'messages');
    assert.equal(filter?.match, `('big' <-> 'sale') & ('acme':B <-> 'example':*B) & 'invoi':* & !'spam':*`);
  });

  it('combines flags and dates with AND; contradictions match nothing', () => {
    assert.deepEqual(compileSearch('is:read -is:unread has:attachment', 'messages'), {
      isRead: true,
      hasAttachment: true,
    });
    assert.equal(compileSearch('is:read is:unread', 'messages')?.nothing, true);
    const dates = compileSearch(
      'after:2026-01-01 after:2026-03-01 before:2026-06-01 -after:2026-05-01',
      'messages',
    );
    assert.deepEqual(dates, {
      receivedFrom: new Date('2026-03-01T00:00:00Z'),
      receivedBefore: new Date('2026-05-01T00:00:00Z'),
    });
  });
});

describe('parseInstant', () => {
  it('reads days and ISO instants, UTC without an offset', () => {
    assert.equal(parseInstant('2026-01-31')?.toISOString(), '2026-01-31T00:00:00.000Z');
    assert.equal(parseInstant('2026-01-31T09:30')?.toISOString(), '2026-01-31T09:30:00.000Z');
    assert.equal(parseInstant('2026-01-31T09:30:15.5-05:30')?.toISOString(), '2026-01-31T15:00:15.500Z');
    for (const bad of ['0999-01-01', '2026-00-10', '2026-01-32', '2026-01-01T24:00', 'tomorrow', '1e9'])
      assert.equal(parseInstant(bad), undefined, bad);
  });
});

describe('search document', () => {
  it('keeps fields apart by a gap, with their weights', () => {
    assert.equal(
      searchDocument([
        ['A', 'Big sale'],
        ['D', 'sale now'],
      ]),
      `'big':2A 'sale':3A,5D 'now':6D`,
    );
  });

  it('keeps 256 positions of a word and the words in first-seen order', () => {
    const doc = searchDocument([['D', `${'ping '.repeat(300)}pong ping`]]);
    const [ping, pong] = doc.split(' ');
    assert.equal(ping?.split(',').length, 256);
    assert.ok(ping?.startsWith(`'ping':2D,3D,`) && ping.endsWith(',257D'), ping);
    assert.equal(pong, `'pong':302D`);
  });

  it('matches a plain model of the document on any fields', () => {
    // The writer's version avoids an array per word; this model is the definition it must keep.
    const model = (fields: Array<['A' | 'B' | 'C' | 'D', string]>) => {
      const words = new Map<string, string[]>();
      let position = 0;
      for (const [weight, text] of fields) {
        if (text === '') continue;
        position += 1;
        for (const word of searchTokens(text)) {
          position = Math.min(position + 1, 16_383);
          const at = words.get(word);
          if (at === undefined) words.set(word, [`${position}${weight}`]);
          else if (at.length < 256 && position < 16_383) at.push(`${position}${weight}`);
        }
      }
      return [...words].map(([word, at]) => `'${word}':${at.join(',')}`).join(' ');
    };
    const text = fc
      .array(
        fc.oneof(fc.constantFrom('a', 'b', 'Ab', 'ü', '1', ' ', '-', "'", 'x'.repeat(70)), fc.string()),
        {
          maxLength: 60,
        },
      )
      .map((parts) => parts.join(''));
    const repeated = fc
      .tuple(fc.constantFrom('a ', 'b c ', 'ä '), fc.integer({ min: 200, max: 400 }))
      .map(([w, n]) => w.repeat(n));
    const fields = fc.array(
      fc.tuple(fc.constantFrom('A', 'B', 'C', 'D' as const), fc.oneof(text, repeated)),
      {
        maxLength: 5,
      },
    );
    fc.assert(
      fc.property(fields, (f) => {
        assert.equal(searchDocument(f), model(f));
      }),
      { numRuns: 500 },
    );
  });
});

describe('fuzzed searches', () => {
  const piece = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom(
      '"',
      '-',
      ':',
      'from:',
      'to:',
      'subject:',
      'has:',
      'is:',
      'before:',
      'after:',
      'x:',
      ' ',
      '\u0000',
      '\ud800',
      "'",
      '\\',
      '&',
      '|',
      '!',
      '<->',
      '(',
      ')',
    ),
    fc.constantFrom('2026-01-01', '2026-02-30', '9999-12-31T23:59:59-14:00', 'attachment', 'unread'),
  );
  const search = fc.array(piece, { maxLength: 20 }).map((parts) => parts.join(''));

  it('only ever parse or throw invalid_input naming search', () => {
    fc.assert(
      fc.property(search, fc.constantFrom('messages' as const, 'requests' as const), (text, stream) => {
        try {
          const filter = compileSearch(text, stream);
          // Every word of a match is a quoted lexeme: no tsquery syntax of the input survives.
          if (filter?.match !== undefined)
            assert.match(filter.match, /^(?:[()!&<\-> ]|'[^'\\]+'(?::\*?[A-D]?)?)+$/u);
        } catch (err) {
          assert.ok(isAppError(err), `not an AppError: ${String(err)}`);
          assert.equal(err.code, 'invalid_input');
          assert.deepEqual(
            err.errors?.map((e) => e.path),
            ['search'],
          );
        }
      }),
      { numRuns: 3000 },
    );
  });
});
