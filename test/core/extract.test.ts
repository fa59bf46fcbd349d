// OTP and link extraction (design section 6): precision and recall over the fixture corpus, the
// negative rules one by one, grouped codes, the pattern override, ambiguity, and linear-time inputs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { AppError } from '../../src/core/errors.ts';
import { extractLinks, extractOtp, type OtpResult } from '../../src/core/extract/index.ts';

interface CorpusItem {
  id: string;
  description: string;
  subject: string | null;
  text: string | null;
  html: string | null;
  expected: { code: string | null; status?: 'ambiguous' };
  expectedLinks?: Array<{ urlContains: string; kind: string }>;
}

const corpus = JSON.parse(
  readFileSync(new URL('../fixtures/otp/corpus.json', import.meta.url), 'utf8'),
) as CorpusItem[];

const otpOf = (item: CorpusItem): OtpResult =>
  extractOtp({ subject: item.subject, text: item.text, html: item.html });

/** Codes among the candidates, so a rule can be checked without depending on the threshold. */
const candidateCodes = (text: string): string[] => extractOtp({ text }).candidates.map((c) => c.code);

describe('OTP corpus', () => {
  it('has at least 40 realistic messages with unique ids', () => {
    assert.ok(corpus.length >= 40, `corpus has ${corpus.length} items`);
    assert.equal(new Set(corpus.map((c) => c.id)).size, corpus.length);
    assert.ok(corpus.some((c) => c.expected.code === null));
    assert.ok(corpus.some((c) => c.expected.status === 'ambiguous'));
  });

  it('finds the expected code with precision >= 0.95 and recall >= 0.85', () => {
    let returned = 0;
    let correct = 0;
    let expected = 0;
    let recalled = 0;
    const misses: string[] = [];
    for (const item of corpus) {
      const result = otpOf(item);
      if (result.code !== null) {
        returned++;
        if (result.code === item.expected.code) correct++;
      }
      if (item.expected.code !== null) {
        expected++;
        if (result.code === item.expected.code) recalled++;
      }
      if (result.code !== item.expected.code) {
        misses.push(`${item.id}: expected ${item.expected.code}, got ${result.status} ${result.code}`);
      }
    }
    const precision = returned === 0 ? 1 : correct / returned;
    const recall = expected === 0 ? 1 : recalled / expected;
    console.log(
      `OTP corpus: ${corpus.length} messages, precision ${precision.toFixed(3)} (${correct}/${returned}), ` +
        `recall ${recall.toFixed(3)} (${recalled}/${expected})`,
    );
    for (const miss of misses) console.log(`  miss ${miss}`);
    assert.ok(precision >= 0.95, `precision ${precision}`);
    assert.ok(recall >= 0.85, `recall ${recall}`);
  });

  it('reports the genuinely ambiguous messages as ambiguous, with their candidates', () => {
    for (const item of corpus.filter((c) => c.expected.status === 'ambiguous')) {
      const result = otpOf(item);
      assert.equal(result.status, 'ambiguous', item.id);
      assert.equal(result.code, null);
      assert.ok(result.candidates.length >= 2, item.id);
    }
  });

  it('finds every expected link with its kind', () => {
    for (const item of corpus) {
      if (item.expectedLinks === undefined) continue;
      const links = extractLinks({ text: item.text, html: item.html });
      for (const want of item.expectedLinks) {
        const link = links.find((l) => l.url.includes(want.urlContains));
        assert.ok(link !== undefined, `${item.id}: no link containing ${want.urlContains}`);
        assert.equal(link.kind, want.kind, `${item.id}: ${link.url} ("${link.text}")`);
      }
    }
  });

  it('returns well-formed results for every message', () => {
    for (const item of corpus) {
      const result = otpOf(item);
      assert.ok(result.confidence >= 0 && result.confidence <= 1);
      assert.ok(result.candidates.length <= 5);
      const confidences = result.candidates.map((c) => c.confidence);
      assert.deepEqual(
        confidences,
        [...confidences].sort((a, b) => b - a),
      );
      if (result.status === 'found') {
        assert.equal(result.code, result.candidates[0]?.code);
        assert.ok(result.source !== null && result.context !== null);
      } else {
        assert.equal(result.code, null);
      }
    }
  });
});

describe('extractOtp negative rules', () => {
  it('drops years in dates and copyright lines', () => {
    const codes = candidateCodes(
      'Your code is 482913.\nSent on March 4, 2025.\n© 2024 Example Inc.\nMember since 2019.',
    );
    assert.deepEqual(codes, ['482913']);
    assert.equal(extractOtp({ text: 'Member since 2019. Season 2025 starts soon.' }).status, 'not_found');
  });

  it('drops times and dates', () => {
    assert.deepEqual(
      candidateCodes('The sale starts at 10:45 and ends at 23:59:59 on 2025-03-04 or 04.03.2025.'),
      [],
    );
    assert.equal(extractOtp({ text: 'Sign-in at 09:41 on 12/03/2025. Code: 661530' }).code, '661530');
  });

  it('drops prices in any currency', () => {
    const text = 'Total $1234, or 1234 €, USD 4999, 4.999,00 €, R$ 1.299,90, 12800円, £2500, 4990 JPY.';
    assert.deepEqual(candidateCodes(text), []);
    assert.equal(extractOtp({ text: 'Confirm your payment of €49.99 with code 7731.' }).code, '7731');
  });

  it('drops phone numbers', () => {
    const text =
      'Call +1 (415) 555-0132, +44 20 7946 0321, 0800 123 4567, 01 23 45 67 89 or 1-800-555-0199 today.';
    assert.deepEqual(candidateCodes(text), []);
    assert.equal(
      extractOtp({ text: 'Your code is 448120. Questions? Call +1 (415) 555-0132.' }).code,
      '448120',
    );
  });

  it('scores order, invoice, ticket and account numbers down', () => {
    for (const text of [
      'Order #5512093 has shipped.',
      'Order number: 5512093',
      'Invoice INV-2025-00123 is attached.',
      'Ticket #4821 was updated.',
      'Your account number is 44120983.',
      'Customer ID: 88412093',
      'Bestellnummer: 30214455',
      'ご注文番号：20250304',
    ]) {
      assert.equal(extractOtp({ text }).status, 'not_found', text);
    }
    assert.equal(extractOtp({ text: 'For order 5512093, your verification code is 771204.' }).code, '771204');
  });

  it('drops hex colours', () => {
    const codes = candidateCodes('Your code is 482913. Brand colours: #204060, #A1B2C3 and #a1b2c3.');
    assert.deepEqual(codes, ['482913']);
  });

  it('drops numbers inside URLs and email addresses', () => {
    const text = 'Open https://example.com/verify/482913?code=771204 or write to user4821@example.com.';
    assert.deepEqual(candidateCodes(text), []);
    assert.deepEqual(candidateCodes('See www.example.com/tickets/551203 and example.org/p/88213'), []);
  });

  it('drops the last four digits of a card, but not the code after them', () => {
    assert.deepEqual(candidateCodes('Your card ending in 4417 was charged. Visa •••• 8812, ****1234.'), []);
    assert.equal(extractOtp({ text: 'Your passcode for the card ending in 4417 is 604215.' }).code, '604215');
  });

  it('drops postcodes and numbers that are part of longer digit runs', () => {
    assert.deepEqual(candidateCodes('Example, 548 Market St, San Francisco, CA 94104'), []);
    assert.equal(extractOtp({ text: 'Your code is 1234567890123' }).status, 'not_found');
    assert.deepEqual(candidateCodes('Tracking 00340434161094042557 and SKU-12345'), []);
  });

  it('ignores promo codes and letter+digit strings that are not near a code word', () => {
    assert.equal(extractOtp({ text: 'Use promo code WELCOME10 for 10% off.' }).status, 'not_found');
    assert.equal(
      extractOtp({ text: 'The Example TV QN65Q80C ships with an AB12CD remote.' }).status,
      'not_found',
    );
  });
});

describe('extractOtp codes and scoring', () => {
  it('reads codes written with a space or a dash as one code', () => {
    assert.equal(extractOtp({ text: 'Your verification code: 482 913' }).code, '482913');
    assert.equal(extractOtp({ text: 'Your verification code: 482-913' }).code, '482913');
    assert.equal(extractOtp({ text: 'Your verification code: 4821 9912' }).code, '48219912');
    assert.equal(extractOtp({ text: 'Your verification code: 482\u00a0913' }).code, '482913');
    assert.equal(extractOtp({ text: 'Your verification code: X7K-92P' }).code, 'X7K92P');
    assert.equal(extractOtp({ text: 'Your verification code: AB12 CD34' }).code, 'AB12CD34');
  });

  it('finds letter+digit codes only next to a code word', () => {
    assert.equal(extractOtp({ text: 'Your sign-in code is AB12CD' }).code, 'AB12CD');
    assert.equal(extractOtp({ text: 'Model AB12CD is back in stock.' }).status, 'not_found');
  });

  it('scores up bold or large HTML, a line of its own, and the subject', () => {
    const bold = extractOtp({ html: '<p>Enter this in the app:</p><p><b>661530</b></p>' });
    const plain = extractOtp({ text: 'Enter this in the app: 661530 and carry on' });
    assert.equal(bold.code, '661530');
    assert.ok(bold.confidence > (plain.candidates[0]?.confidence ?? 0));
    const both = extractOtp({ subject: '482913 is your code', text: 'Use 482913 to sign in.' });
    const subjectOnly = extractOtp({ subject: '482913 is your code', text: 'Use the code in the subject.' });
    assert.ok(both.confidence > subjectOnly.confidence);
    assert.equal(subjectOnly.code, '482913');
    assert.equal(subjectOnly.source, 'subject');
  });

  it('understands code words in other languages', () => {
    for (const [text, code] of [
      ['Votre code de vérification est : 284615', '284615'],
      ['Ihr Bestätigungscode lautet 908172', '908172'],
      ['Tu código de verificación es 662910.', '662910'],
      ['Seu código de segurança é 4471', '4471'],
      ['Il tuo codice di verifica è 830174', '830174'],
      ['Je verificatiecode is 551208', '551208'],
      ['認証コード：７３９２０１', '739201'],
      ['您的验证码是482193，5分钟内有效', '482193'],
    ] as const) {
      assert.equal(extractOtp({ text }).code, code, text);
    }
  });

  it('respects minDigits and maxDigits and refuses impossible values', () => {
    assert.equal(extractOtp({ text: 'Your code: 4821' }, { minDigits: 6 }).status, 'not_found');
    assert.equal(extractOtp({ text: 'Your code: 1234567890' }, { maxDigits: 10 }).code, '1234567890');
    assert.throws(() => extractOtp({ text: 'x' }, { minDigits: 0 }), AppError);
    assert.throws(() => extractOtp({ text: 'x' }, { minDigits: 8, maxDigits: 4 }), /minDigits/);
  });

  it('is ambiguous when the top two candidates are close', () => {
    const result = extractOtp({ text: 'Code for the iPad: 120934\nCode for the laptop: 887120' });
    assert.equal(result.status, 'ambiguous');
    assert.equal(result.code, null);
    assert.deepEqual(result.candidates.map((c) => c.code).sort(), ['120934', '887120']);
  });

  it('is not_found for empty or missing parts', () => {
    assert.equal(extractOtp({}).status, 'not_found');
    assert.equal(extractOtp({ subject: null, text: '', html: '   ' }).status, 'not_found');
  });
});

describe('extractOtp pattern override', () => {
  it('returns the first match of its single group with confidence 1', () => {
    const result = extractOtp(
      { subject: 'Hello', text: 'Order 5512093\nPIN=0042 and PIN=9999' },
      { pattern: 'PIN=([0-9]{4})' },
    );
    assert.equal(result.status, 'found');
    assert.equal(result.code, '0042');
    assert.equal(result.confidence, 1);
    assert.equal(result.source, 'text');
    assert.match(result.context ?? '', /PIN=0042/);
  });

  it('searches the subject first and the visible HTML last', () => {
    assert.equal(extractOtp({ subject: 'ref ZX-1', text: 'ref ZX-2' }, { pattern: 'ZX-(\\d)' }).code, '1');
    const html = extractOtp({ html: '<p>token: <b>abc-77</b></p>' }, { pattern: 'token: ([a-z]+-[0-9]+)' });
    assert.equal(html.code, 'abc-77');
    assert.equal(html.source, 'html');
  });

  it('is not_found when nothing matches', () => {
    const result = extractOtp({ text: 'Your code is 482913' }, { pattern: 'PIN=(\\d+)' });
    assert.equal(result.status, 'not_found');
    assert.deepEqual(result.candidates, []);
  });

  it('refuses patterns without exactly one capture group', () => {
    for (const pattern of ['PIN=[0-9]{4}', '(PIN)=([0-9]{4})']) {
      assert.throws(
        () => extractOtp({ text: 'PIN=0042' }, { pattern }),
        (err: unknown) =>
          err instanceof AppError &&
          err.code === 'invalid_input' &&
          /exactly one capture group/.test(err.message),
      );
    }
    assert.equal(extractOtp({ text: 'PIN=0042' }, { pattern: '(?:PIN|pin)=([0-9]{4})' }).code, '0042');
  });

  it('refuses expressions RE2 cannot compile, saying why', () => {
    assert.throws(
      () => extractOtp({ text: 'x' }, { pattern: '(?<=PIN=)(\\d+)' }),
      (err: unknown) =>
        err instanceof AppError && /not a valid RE2/.test(err.message) && /lookbehind/.test(err.message),
    );
    assert.throws(() => extractOtp({ text: 'x' }, { pattern: '(\\d+' }), /not a valid RE2/);
    assert.throws(() => extractOtp({ text: 'x' }, { pattern: '' }), /empty/);
  });
});

describe('extraction stays linear on hostile input', () => {
  const digitsAndSpaces = (size: number): string => {
    let out = '';
    let seed = 7;
    while (out.length < size) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const len = 1 + (seed % 9);
      out += String(seed).padStart(10, '0').slice(0, len) + (seed % 5 === 0 ? '  ' : ' ');
    }
    return out;
  };

  const timed = (fn: () => unknown): number => {
    const start = performance.now();
    fn();
    return performance.now() - start;
  };

  it('handles a 200 KB body of digits and spaces in under a second', () => {
    const body = digitsAndSpaces(200_000);
    const ms = timed(() => extractOtp({ subject: 'Your code', text: body, html: `<p>${body}</p>` }));
    assert.ok(ms < 1000, `took ${ms} ms`);
  });

  it('handles other pathological shapes in under a second each', () => {
    const shapes = [
      '1-'.repeat(100_000),
      '+('.repeat(100_000),
      'code '.repeat(40_000),
      'promo code 1234 '.repeat(12_000),
      '&'.repeat(200_000),
      '&#'.repeat(100_000),
      '<a href="'.repeat(20_000),
      `<b>${'<i>'.repeat(50_000)}123456`,
      "<a x='".repeat(30_000),
      `${'A1-'.repeat(60_000)}`,
      `https://${'a'.repeat(200_000)}`,
      `${'•'.repeat(100_000)}1234`,
    ];
    for (const shape of shapes) {
      const ms = timed(() => {
        extractOtp({ text: shape, html: shape });
        extractLinks({ text: shape, html: shape });
      });
      assert.ok(ms < 1000, `${shape.slice(0, 12)}… took ${ms} ms`);
    }
  });
});

describe('extractLinks', () => {
  it('reads a and area hrefs, decoding entities, with anchor text', () => {
    const links = extractLinks({
      html:
        '<a href="https://shop.example/track?id=1&amp;lang=en">Track&nbsp;your <b>order</b></a>' +
        '<map><area href="https://shop.example/map" alt="Store map"></map>' +
        '<a href="https://shop.example/logo"><img src="logo.png" alt="Example Shop"></a>',
    });
    assert.deepEqual(links, [
      { url: 'https://shop.example/track?id=1&lang=en', text: 'Track your order', kind: 'other' },
      { url: 'https://shop.example/map', text: 'Store map', kind: 'other' },
      { url: 'https://shop.example/logo', text: 'Example Shop', kind: 'other' },
    ]);
  });

  it('skips mailto, tel, javascript, cid, in-page anchors and relative links', () => {
    const links = extractLinks({
      html:
        '<a href="mailto:help@example.com">Mail</a><a href="tel:+14155550132">Call</a>' +
        '<a href="javascript:void(0)">JS</a><a href="cid:logo@x">img</a><a href="#top">Top</a>' +
        '<a href="/relative/path">Rel</a><a href="  https://ok.example/  ">OK</a>',
    });
    assert.deepEqual(
      links.map((l) => l.url),
      ['https://ok.example/'],
    );
  });

  it('finds bare URLs in text and strips trailing punctuation', () => {
    const links = extractLinks({
      text:
        'Visit https://a.example/x. Or (https://b.example/y), <https://c.example/z>.\n' +
        'Wiki: https://en.example.org/wiki/Foo_(bar)!',
    });
    assert.deepEqual(
      links.map((l) => l.url),
      [
        'https://a.example/x',
        'https://b.example/y',
        'https://c.example/z',
        'https://en.example.org/wiki/Foo_(bar)',
      ],
    );
  });

  it('de-duplicates by URL, keeping the first place and the most telling text', () => {
    const links = extractLinks({
      html: '<a href="https://x.example/verify?token=abcdef123">click here</a>',
      text: 'Verify your email: https://x.example/verify?token=abcdef123\nhttps://x.example/other',
    });
    assert.equal(links.length, 2);
    assert.deepEqual(links[0], {
      url: 'https://x.example/verify?token=abcdef123',
      text: 'Verify your email',
      kind: 'verify',
    });
  });

  it('classifies verify, reset, magic login and unsubscribe links', () => {
    const kinds = extractLinks({
      html:
        '<a href="https://x.example/account/activate?t=123456789">Activate account</a>' +
        '<a href="https://x.example/u/1">Réinitialiser le mot de passe</a>' +
        '<a href="https://x.example/auth/callback?token=Zk3Pq9Lm2X">Sign in to Example</a>' +
        '<a href="https://x.example/magic/abc">Open</a>' +
        '<a href="https://x.example/login">Log in</a>' +
        '<a href="https://x.example/email/opt-out?u=1">Manage</a>' +
        '<a href="https://login.example.com/unsubscribe?token=abcdefgh">Unsubscribe</a>',
    }).map((l) => l.kind);
    assert.deepEqual(kinds, [
      'verify',
      'reset',
      'magic_login',
      'magic_login',
      'other',
      'unsubscribe',
      'unsubscribe',
    ]);
  });

  it('returns nothing for empty input', () => {
    assert.deepEqual(extractLinks({}), []);
    assert.deepEqual(extractLinks({ text: null, html: '' }), []);
  });
});
