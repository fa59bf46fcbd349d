// extract_from_body (design sections 6 and 7): every mode on an email and on a captured request,
// the JSONPath subset and its refusal of prototype keys, and the errors for invalid patterns.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/core/errors.ts';
import {
  emailItemOf,
  extractFromBody,
  requestItemOf,
  type EmailItem,
  type RequestItem,
} from '../../src/core/extract/index.ts';

const email: EmailItem = {
  kind: 'email',
  subject: 'Your Example code is 482913',
  text:
    'Hi Sam,\nYour code is 482913.\nVerify: https://app.example.com/verify?token=abc123def\n' +
    'Order 5512093, order 5512094.',
  html:
    '<p>Your code is <b>482913</b>.</p><p><a href="https://app.example.com/verify?token=abc123def">Verify email</a></p>' +
    '<p><a href="https://app.example.com/unsubscribe?u=9">Unsubscribe</a></p>',
  headers: [
    { name: 'From', value: 'Example <no-reply@example.com>' },
    { name: 'Received', value: 'from a.example' },
    { name: 'received', value: 'from b.example' },
  ],
};

const request: RequestItem = {
  kind: 'request',
  body: '{"data":{"token":"tok_123","url":"https:\\/\\/hooks.example.com\\/cb?id=7"},"items":[{"id":1},{"id":2,"child":{"id":3}}],"odd.key":"v"}',
  json: {
    data: { token: 'tok_123', url: 'https://hooks.example.com/cb?id=7' },
    items: [{ id: 1 }, { id: 2, child: { id: 3 } }],
    'odd.key': 'v',
  },
  headers: [
    { name: 'Content-Type', value: 'application/json' },
    { name: 'X-Signature', value: 'sha256=aa' },
    { name: 'x-signature', value: 'sha256=bb' },
  ],
  form: [],
};

const invalid = (pattern: RegExp) => (err: unknown) =>
  err instanceof AppError && err.code === 'invalid_input' && pattern.test(err.message);

describe('extractFromBody: links', () => {
  it('lists an email’s links with kinds, anchor text first', () => {
    const result = extractFromBody(email, { mode: 'links' });
    assert.equal(result.status, 'found');
    assert.deepEqual(result.matches, [
      { value: 'https://app.example.com/verify?token=abc123def', context: 'Verify email', kind: 'verify' },
      { value: 'https://app.example.com/unsubscribe?u=9', context: 'Unsubscribe', kind: 'unsubscribe' },
    ]);
  });

  it('reads only the requested part', () => {
    const text = extractFromBody(email, { mode: 'links', part: 'text' });
    assert.deepEqual(
      text.matches.map((m) => m.value),
      ['https://app.example.com/verify?token=abc123def'],
    );
    assert.equal(extractFromBody(email, { mode: 'links', part: 'subject' }).status, 'not_found');
  });

  it('finds URLs in a request body, including JSON-escaped ones', () => {
    const result = extractFromBody(request, { mode: 'links' });
    assert.deepEqual(
      result.matches.map((m) => m.value),
      ['https://hooks.example.com/cb?id=7'],
    );
    const html = extractFromBody(
      { kind: 'request', body: '<a href="https://x.example/reset?token=1234567">Reset password</a>' },
      { mode: 'links' },
    );
    assert.deepEqual(html.matches, [
      { value: 'https://x.example/reset?token=1234567', context: 'Reset password', kind: 'reset' },
    ]);
  });
});

describe('extractFromBody: regex', () => {
  it('returns group 1 of every match with context', () => {
    const result = extractFromBody(email, { mode: 'regex', pattern: 'order ([0-9]+)' });
    assert.deepEqual(
      result.matches.map((m) => m.value),
      ['5512094'],
    );
    const ci = extractFromBody(email, { mode: 'regex', pattern: '(?i)order ([0-9]+)' });
    assert.deepEqual(
      ci.matches.map((m) => m.value),
      ['5512093', '5512094'],
    );
    assert.match(ci.matches[0]?.context ?? '', /Order 5512093, order/);
  });

  it('returns the whole match when there is no group', () => {
    const result = extractFromBody(request, { mode: 'regex', pattern: 'tok_[0-9]+' });
    assert.deepEqual(result.matches[0]?.value, 'tok_123');
  });

  it('reads the subject, the HTML source, or the visible HTML text as asked', () => {
    assert.equal(
      extractFromBody(email, { mode: 'regex', pattern: 'is ([0-9]{6})', part: 'subject' }).matches[0]?.value,
      '482913',
    );
    const href = extractFromBody(email, { mode: 'regex', pattern: 'href="([^"]+)"', part: 'html' });
    assert.equal(href.matches.length, 2);
    const htmlOnly: EmailItem = { kind: 'email', html: '<p>Code: <b>771204</b></p>' };
    assert.equal(
      extractFromBody(htmlOnly, { mode: 'regex', pattern: 'Code: (\\d+)' }).matches[0]?.value,
      '771204',
    );
  });

  it('stops at 100 matches', () => {
    const many: RequestItem = { kind: 'request', body: 'a1 '.repeat(500) };
    assert.equal(extractFromBody(many, { mode: 'regex', pattern: 'a(\\d)' }).matches.length, 100);
  });

  it('is not_found when nothing matches or there is no body', () => {
    assert.equal(extractFromBody(email, { mode: 'regex', pattern: 'zzz' }).status, 'not_found');
    assert.equal(
      extractFromBody({ kind: 'request', body: null }, { mode: 'regex', pattern: 'a' }).status,
      'not_found',
    );
  });

  it('refuses invalid or missing expressions with a message that says how to fix them', () => {
    assert.throws(() => extractFromBody(email, { mode: 'regex', pattern: '(' }), invalid(/not a valid RE2/));
    assert.throws(
      () => extractFromBody(email, { mode: 'regex', pattern: '(a)\\1' }),
      invalid(/backreferences/),
    );
    assert.throws(() => extractFromBody(email, { mode: 'regex' }), invalid(/needs a pattern/));
  });
});

describe('extractFromBody: json_path', () => {
  const path = (pattern: string, item: RequestItem | EmailItem = request) =>
    extractFromBody(item, { mode: 'json_path', pattern }).matches;

  it('walks keys, indexes, wildcards, quoted keys and recursive descent', () => {
    assert.deepEqual(path('$.data.token'), [{ value: 'tok_123', context: '$.data.token' }]);
    assert.deepEqual(path('$.items[0].id'), [{ value: '1', context: '$.items[0].id' }]);
    assert.deepEqual(path('$.items[-1].id'), [{ value: '2', context: '$.items[1].id' }]);
    assert.deepEqual(
      path('$.items[*].id').map((m) => m.value),
      ['1', '2'],
    );
    assert.deepEqual(path("$['odd.key']"), [{ value: 'v', context: '$["odd.key"]' }]);
    assert.deepEqual(
      path('$..id').map((m) => m.context),
      ['$.items[0].id', '$.items[1].id', '$.items[1].child.id'],
    );
    assert.deepEqual(path('$.items[1].child'), [{ value: '{"id":3}', context: '$.items[1].child' }]);
    assert.deepEqual(path('data.token'), [{ value: 'tok_123', context: '$.data.token' }]);
  });

  it('is not_found for a path that leads nowhere', () => {
    assert.deepEqual(path('$.data.missing'), []);
    assert.deepEqual(path('$.items[9]'), []);
    assert.deepEqual(path('$.data.token.length'), []);
  });

  it('parses the body when the request has no parsed JSON, and falls back to form fields', () => {
    assert.deepEqual(path('$.a', { kind: 'request', body: '{"a":[1,2]}', json: null }), [
      { value: '[1,2]', context: '$.a' },
    ]);
    const form: RequestItem = {
      kind: 'request',
      body: 'email=sam%40example.com&tag=a&tag=b',
      json: null,
      form: [
        { name: 'email', value: 'sam@example.com' },
        { name: 'tag', value: 'a' },
        { name: 'tag', value: 'b' },
      ],
    };
    assert.deepEqual(path('$.email', form), [{ value: 'sam@example.com', context: '$.email' }]);
    assert.deepEqual(path('$.tag[1]', form), [{ value: 'b', context: '$.tag[1]' }]);
  });

  it('reads an email body that is JSON, and is not_found when it is not', () => {
    const jsonMail: EmailItem = { kind: 'email', text: '{"otp":"4410"}' };
    assert.deepEqual(path('$.otp', jsonMail), [{ value: '4410', context: '$.otp' }]);
    assert.equal(extractFromBody(email, { mode: 'json_path', pattern: '$.otp' }).status, 'not_found');
  });

  it('never walks __proto__, constructor or prototype', () => {
    for (const pattern of [
      '$.__proto__',
      '$.constructor',
      "$['__proto__'].polluted",
      '$..prototype',
      '$.a.constructor.name',
    ]) {
      assert.throws(() => path(pattern), invalid(/never read/), pattern);
    }
    const hostile: RequestItem = { kind: 'request', body: '{"__proto__":{"secret":1},"ok":{"secret":2}}' };
    assert.deepEqual(
      path('$..secret', hostile).map((m) => m.context),
      ['$.ok.secret'],
    );
    assert.deepEqual(
      path('$.*', hostile).map((m) => m.context),
      ['$.ok'],
    );
    assert.equal(({} as Record<string, unknown>).secret, undefined);
  });

  it('refuses malformed paths with a message that says what is supported', () => {
    for (const [pattern, reason] of [
      ['$.a[', /not closed/],
      ['$[?(@.price > 10)]', /filter expressions/],
      ['$.a[1:3]', /slices/],
      ['$.', /a name must follow/],
      ['$..', /must be followed/],
      ["$['a", /not closed/],
      ['$.a[x]', /not an index/],
      ['', /needs a pattern/],
    ] as const) {
      assert.throws(() => path(pattern), invalid(reason), pattern);
    }
    assert.throws(() => path('$.a['), invalid(/\$\.a\.b/));
  });

  it('handles deep nesting without recursion limits', () => {
    let deep: unknown = { id: 'bottom' };
    for (let i = 0; i < 5000; i++) deep = { next: deep };
    const result = extractFromBody({ kind: 'request', json: deep }, { mode: 'json_path', pattern: '$..id' });
    assert.equal(result.status, 'not_found');
    assert.equal(path('$.next.next', { kind: 'request', json: deep }).length, 1);
  });
});

describe('extractFromBody: header', () => {
  it('returns every value of the named header, case-insensitively', () => {
    assert.deepEqual(extractFromBody(request, { mode: 'header', pattern: 'x-SIGNATURE' }).matches, [
      { value: 'sha256=aa', context: 'X-Signature' },
      { value: 'sha256=bb', context: 'x-signature' },
    ]);
    assert.deepEqual(
      extractFromBody(email, { mode: 'header', pattern: 'received' }).matches.map((m) => m.value),
      ['from a.example', 'from b.example'],
    );
    assert.equal(extractFromBody(email, { mode: 'header', pattern: 'X-Missing' }).status, 'not_found');
  });

  it('needs a header name', () => {
    assert.throws(() => extractFromBody(request, { mode: 'header' }), invalid(/needs a pattern/));
    assert.throws(
      () => extractFromBody(request, { mode: 'header', pattern: '  ' }),
      invalid(/needs a pattern/),
    );
  });
});

describe('extractFromBody: text', () => {
  it('returns an email’s text part, or its HTML as visible text', () => {
    assert.deepEqual(extractFromBody(email, { mode: 'text' }).matches, [
      { value: email.text, context: null },
    ]);
    const htmlOnly: EmailItem = {
      kind: 'email',
      html: '<style>p{}</style><p>Hello&nbsp;Sam</p><p>Code <b>1</b></p>',
    };
    assert.deepEqual(extractFromBody(htmlOnly, { mode: 'text' }).matches, [
      { value: 'Hello Sam\nCode 1', context: null },
    ]);
  });

  it('returns the subject or the HTML source when asked', () => {
    assert.equal(extractFromBody(email, { mode: 'text', part: 'subject' }).matches[0]?.value, email.subject);
    assert.equal(extractFromBody(email, { mode: 'text', part: 'html' }).matches[0]?.value, email.html);
  });

  it('returns a request body, and not_found when there is none', () => {
    assert.equal(extractFromBody(request, { mode: 'text' }).matches[0]?.value, request.body);
    assert.equal(extractFromBody({ kind: 'request', body: '' }, { mode: 'text' }).status, 'not_found');
    assert.equal(extractFromBody({ kind: 'email', text: null }, { mode: 'text' }).status, 'not_found');
  });
});

describe('extractFromBody: inputs', () => {
  it('refuses unknown modes and parts', () => {
    assert.throws(
      () => extractFromBody(email, { mode: 'xpath' as never }),
      invalid(/mode "xpath" is unknown/),
    );
    assert.throws(
      () => extractFromBody(email, { mode: 'text', part: 'body' as never }),
      invalid(/part "body"/),
    );
  });

  it('adapts stored messages and requests; a binary request body has no text', () => {
    const item = emailItemOf({ subject: 's', textBody: 't', htmlBody: null, headers: [] });
    assert.deepEqual(item, { kind: 'email', subject: 's', text: 't', html: null, headers: [] });
    const binary = requestItemOf({ body: 'AAEC', bodyEncoding: 'base64', json: null, headers: [], form: [] });
    assert.equal(binary.body, null);
    assert.equal(extractFromBody(binary, { mode: 'text' }).status, 'not_found');
  });
});
