// Mock reply templates (design section 5): every name, value formatting, defaults, filters, no re-scanning,
// no prototype walking, and the output length bound.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RenderLimitError, renderTemplate, type TemplateContext } from '../../src/core/mocks/render.ts';
import {
  isJsonBody,
  markJsonStrings,
  parseTemplate,
  type TemplatePart,
} from '../../src/core/mocks/template.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const jsonBody = {
  a: { b: ['first', 'second'] },
  'odd.key': 'odd value',
  s: 'plain text',
  n: 3.5,
  zero: 0,
  neg: -2,
  t: true,
  f: false,
  empty: '',
  nul: null,
  obj: { x: 1, y: [1, '2', null], z: { deep: true } },
  arr: [1, 'a', null],
  numKeys: { '0': 'zero' },
  quoted: 'he said "hi"\n\tand \\ left',
  unicode: 'héllo ✓',
  html: `<a href="x">Tom & Jerry's</a>`,
  template: '{{uuid}} and {{request.id}}',
};

const queries: Record<string, string> = { x: 'query x', q: 'a b&c=d/é', blank: '', tpl: '{{now}}' };
const headers: Record<string, string> = { 'x-api-key': 'key-123', 'content-type': 'application/json' };

function context(overrides: Partial<TemplateContext> = {}): TemplateContext {
  return {
    requestId: 'req_0001',
    now: '2025-01-02T03:04:05.678Z',
    method: 'POST',
    bodyText: JSON.stringify(jsonBody),
    bodyValue: () => jsonBody,
    query: (name) => (Object.hasOwn(queries, name) ? queries[name] : undefined),
    // Case-insensitive, as a real request's headers are.
    header: (name) => {
      const key = name.toLowerCase();
      return Object.hasOwn(headers, key) ? headers[key] : undefined;
    },
    path: { id: '42', name: 'a b' },
    ...overrides,
  };
}

function parse(template: string): TemplatePart[] {
  const r = parseTemplate(template);
  assert.ok(r.ok, `${template} should parse: ${r.ok ? '' : r.message}`);
  return r.parts;
}

function render(template: string, overrides: Partial<TemplateContext> = {}, maxLength?: number): string {
  return renderTemplate(parse(template), context(overrides), maxLength);
}

describe('template names', () => {
  it('{{uuid}} is a fresh v4 uuid at each occurrence', () => {
    const [a, b, c] = render('{{uuid}} {{uuid}} {{uuid}}').split(' ');
    for (const u of [a, b, c]) assert.match(u ?? '', UUID_V4);
    assert.equal(new Set([a, b, c]).size, 3);
    assert.notEqual(render('{{uuid}}'), render('{{uuid}}'));
  });

  it('{{now}} is the same instant at every occurrence of one render', () => {
    assert.equal(render('{{now}}|{{ now }}|{{now}}'), '2025-01-02T03:04:05.678Z|'.repeat(3).slice(0, -1));
  });

  it('{{request.id}} and {{method}}', () => {
    assert.equal(render('{{request.id}}'), 'req_0001');
    assert.equal(render('{{method}}'), 'POST');
    assert.equal(render('{{method}}', { method: 'get' }), 'get');
  });

  it('{{body}} is the whole body text, raw', () => {
    assert.equal(render('{{body}}'), JSON.stringify(jsonBody));
    assert.equal(
      render('[{{body}}]', { bodyText: 'not json <at> all', bodyValue: () => undefined }),
      '[not json <at> all]',
    );
    assert.equal(render('[{{body}}]', { bodyText: '' }), '[]');
  });

  it('{{body.a.b[0]}} walks keys and indexes', () => {
    assert.equal(render('{{body.a.b[0]}}'), 'first');
    assert.equal(render('{{body.a.b[1]}}'), 'second');
    assert.equal(render('{{ body.a.b[ 1 ] }}'), 'second');
    assert.equal(render('{{body["a"]["b"][0]}}'), 'first');
    assert.equal(render('{{body.obj.z.deep}}'), 'true');
  });

  it('{{body["odd.key"]}} reads a key with a dot in it', () => {
    assert.equal(render('{{body["odd.key"]}}'), 'odd value');
    assert.equal(render("{{body['odd.key']}}"), 'odd value');
    assert.equal(render('{{body.odd.key}}'), '');
  });

  it('reads form fields when the body value is a field map', () => {
    const form = { name: 'Ada', 'e-mail': 'ada@example.com' };
    assert.equal(
      render('{{body.name}} <{{body.e-mail}}>', { bodyValue: () => form }),
      'Ada <ada@example.com>',
    );
  });

  it('a body that is neither JSON nor a form has no sub-values', () => {
    assert.equal(render('[{{body.a}}]', { bodyValue: () => undefined }), '[]');
    assert.equal(render('{{body.a|json}}', { bodyValue: () => undefined }), 'null');
    assert.equal(render('[{{body.a}}]', { bodyValue: () => 'just a string' }), '[]');
    assert.equal(render('[{{body.length}}]', { bodyValue: () => 'just a string' }), '[]');
  });

  it('{{query.x}} is whatever the query function returns', () => {
    assert.equal(render('{{query.x}}'), 'query x');
    assert.equal(render('[{{query.nope}}]'), '[]');
  });

  it('{{header.x-api-key}} is whatever the header function returns for the name as written', () => {
    const asked: string[] = [];
    const header = (name: string) => {
      asked.push(name);
      return name === 'X-Api-Key' ? 'upper' : undefined;
    };
    assert.equal(render('{{header.x-api-key}}'), 'key-123');
    assert.equal(render('{{header.X-API-KEY}}'), 'key-123');
    assert.equal(render('[{{header.x-api-key}}|{{header.X-Api-Key}}]', { header }), '[|upper]');
    assert.deepEqual(asked, ['x-api-key', 'X-Api-Key']);
    assert.equal(render('[{{header.x-missing}}]'), '[]');
  });

  it('{{path.id}} reads the captured path parameters', () => {
    assert.equal(render('{{path.id}}/{{path.name}}'), '42/a b');
    assert.equal(render('[{{path.other}}]'), '[]');
    assert.equal(render('[{{path.id}}]', { path: Object.create(null) as Record<string, string> }), '[]');
  });

  it('renders text around expressions untouched', () => {
    assert.equal(render('no expressions at all'), 'no expressions at all');
    assert.equal(render(''), '');
    assert.equal(render('{"id":"{{path.id}}","m":"{{method}}"}'), '{"id":"42","m":"POST"}');
    assert.equal(render('single { and } braces and }} stay'), 'single { and } braces and }} stay');
  });
});

describe('value formatting', () => {
  const table: Array<[template: string, expected: string]> = [
    ['{{body.s}}', 'plain text'],
    ['{{body.n}}', '3.5'],
    ['{{body.zero}}', '0'],
    ['{{body.neg}}', '-2'],
    ['{{body.t}}', 'true'],
    ['{{body.f}}', 'false'],
    ['[{{body.empty}}]', '[]'],
    ['[{{body.nul}}]', '[]'],
    ['{{body.obj}}', '{"x":1,"y":[1,"2",null],"z":{"deep":true}}'],
    ['{{body.arr}}', '[1,"a",null]'],
    ['{{body.a.b}}', '["first","second"]'],
    ['[{{body.arr[2]}}]', '[]'],
    ['{{body.numKeys[0]}}', 'zero'],
    ['{{body.quoted}}', 'he said "hi"\n\tand \\ left'],
    ['{{body.html}}', `<a href="x">Tom & Jerry's</a>`],
    // Missing values.
    ['[{{body.missing}}]', '[]'],
    ['[{{body.missing.deeper}}]', '[]'],
    ['[{{body.s.x}}]', '[]'],
    ['[{{body.n.x}}]', '[]'],
    ['{{body.missing|json}}', 'null'],
    ['{{body.nul|json}}', 'null'],
    ['{{query.nope|json}}', 'null'],
    ['{{header.nope|json}}', 'null'],
    ['{{path.nope|json}}', 'null'],
    // Array indexes out of range, and keys that are not indexes, are missing.
    ['[{{body.a.b[2]}}]', '[]'],
    ['[{{body.a.b[99999]}}]', '[]'],
    ['{{body.a.b[2]|json}}', 'null'],
    ['[{{body.arr.length}}]', '[]'],
    ['[{{body.arr["0"]}}]', '[]'],
  ];
  for (const [template, expected] of table) {
    it(`${template} → ${JSON.stringify(expected)}`, () => {
      assert.equal(render(template), expected);
    });
  }
});

describe('?? default', () => {
  const table: Array<[template: string, expected: string]> = [
    ['{{body.missing ?? "dflt"}}', 'dflt'],
    ['{{body.nul ?? "dflt"}}', 'dflt'],
    ['{{body.a.b[7] ?? "dflt"}}', 'dflt'],
    ['{{query.nope ?? "dflt"}}', 'dflt'],
    ['{{header.nope ?? "dflt"}}', 'dflt'],
    ['{{path.nope ?? "dflt"}}', 'dflt'],
    ["{{body.missing ?? 'single'}}", 'single'],
    ['{{body.missing??"tight"}}', 'tight'],
    ['{{body.missing ?? "say \\"hi\\""}}', 'say "hi"'],
    ['[{{body.missing ?? ""}}]', '[]'],
    // Present values win, even when falsy.
    ['[{{body.empty ?? "dflt"}}]', '[]'],
    ['[{{query.blank ?? "dflt"}}]', '[]'],
    ['{{body.zero ?? "dflt"}}', '0'],
    ['{{body.f ?? "dflt"}}', 'false'],
    ['{{body.s ?? "dflt"}}', 'plain text'],
    // The default goes through the filters.
    ['{{body.missing ?? "a b" | url}}', 'a%20b'],
    ['{{body.missing ?? "x" | json}}', '"x"'],
    ['{{body.missing ?? "<b>" | html}}', '&lt;b&gt;'],
  ];
  for (const [template, expected] of table) {
    it(`${template} → ${JSON.stringify(expected)}`, () => {
      assert.equal(render(template), expected);
    });
  }
});

describe('filters', () => {
  it('|json quotes and escapes strings, keeps numbers, booleans and objects as JSON', () => {
    assert.equal(render('{{body.s|json}}'), '"plain text"');
    assert.equal(render('{{body.quoted|json}}'), '"he said \\"hi\\"\\n\\tand \\\\ left"');
    assert.equal(render('{{body.quoted|json}}'), JSON.stringify(jsonBody.quoted));
    assert.equal(render('{{body.n|json}}'), '3.5');
    assert.equal(render('{{body.t|json}}'), 'true');
    assert.equal(render('{{body.empty|json}}'), '""');
    assert.equal(render('{{body.obj|json}}'), '{"x":1,"y":[1,"2",null],"z":{"deep":true}}');
    assert.equal(render('{{path.id|json}}'), '"42"');
    assert.equal(render('{{body|json}}', { bodyText: '{"a":1}' }), '"{\\"a\\":1}"');
    assert.equal(render('{"q":{{query.q|json}}}'), '{"q":"a b&c=d/é"}');
  });

  it('|url percent-encodes as a URI component', () => {
    assert.equal(render('{{query.q|url}}'), 'a%20b%26c%3Dd%2F%C3%A9');
    assert.equal(render('{{body.n|url}}'), '3.5');
    assert.equal(render('[{{body.missing|url}}]'), '[]');
    assert.equal(render('{{body.arr|url}}'), '%5B1%2C%22a%22%2Cnull%5D');
  });

  it('|base64 encodes the UTF-8 bytes', () => {
    assert.equal(render('{{body.s|base64}}'), 'cGxhaW4gdGV4dA==');
    assert.equal(render('{{body.unicode|base64}}'), 'aMOpbGxvIOKckw==');
    assert.equal(render('[{{body.missing|base64}}]'), '[]');
    assert.equal(render('{{body.t|base64}}'), 'dHJ1ZQ==');
  });

  it('|html escapes & < > " and \'', () => {
    assert.equal(render('{{body.html|html}}'), '&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;');
    assert.equal(render('{{body.obj.z|html}}'), '{&quot;deep&quot;:true}');
    assert.equal(render('[{{body.nul|html}}]'), '[]');
  });

  it('chained filters apply left to right', () => {
    // "a b" → json "\"a b\"" → base64
    assert.equal(render('{{path.name|json|base64}}'), 'ImEgYiI=');
    // "a b" → base64 "YSBi" → json "\"YSBi\""
    assert.equal(render('{{path.name|base64|json}}'), '"YSBi"');
    assert.equal(render('{{ path.name | url | json }}'), '"a%20b"');
    assert.equal(
      render('{{body.html|html|url}}'),
      encodeURIComponent('&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;'),
    );
    assert.equal(render('{{path.name|json|json}}'), '"\\"a b\\""');
    assert.equal(render('{{body.missing|json|base64}}'), 'bnVsbA==');
  });
});

describe('inserted text is never re-scanned', () => {
  it('renders a body value containing {{...}} literally', () => {
    assert.equal(render('{{body.template}}'), '{{uuid}} and {{request.id}}');
    assert.equal(render('{{body.template|html}}'), '{{uuid}} and {{request.id}}');
  });

  it('renders a body text, query, header or path value containing {{...}} literally', () => {
    assert.equal(render('{{body}}', { bodyText: 'x {{now}} {{method}}' }), 'x {{now}} {{method}}');
    assert.equal(render('{{query.tpl}}'), '{{now}}');
    assert.equal(render('{{header.x}}', { header: () => '{{request.id}}' }), '{{request.id}}');
    assert.equal(render('{{path.p}}', { path: { p: '{{uuid}}' } }), '{{uuid}}');
  });

  it('renders a default containing {{ literally', () => {
    assert.equal(render('{{body.missing ?? "{{"}}'), '{{');
    assert.equal(render('{{body.missing ?? "{{uuid"}}'), '{{uuid');
  });
});

describe('prototype safety', () => {
  const refused = [
    '{{body.__proto__}}',
    '{{body["__proto__"]}}',
    '{{body.constructor}}',
    '{{body.a.constructor.name}}',
    '{{body.a.prototype}}',
    "{{body['prototype']}}",
    '{{query.__proto__}}',
    '{{header.constructor}}',
    '{{path.prototype}}',
  ];
  for (const template of refused) {
    it(`parseTemplate refuses ${template}`, () => {
      const r = parseTemplate(template);
      assert.equal(r.ok, false);
      assert.match((r as { message: string }).message, /cannot be read/);
    });
  }

  it('never reads inherited properties of the body value', () => {
    const empty = { bodyValue: () => ({}) };
    assert.equal(render('[{{body.toString}}]', empty), '[]');
    assert.equal(render('[{{body.hasOwnProperty}}]', empty), '[]');
    assert.equal(render('[{{body.valueOf}}]', empty), '[]');
    assert.equal(render('{{body.toString|json}}', empty), 'null');
    assert.equal(render('{{body.hasOwnProperty ?? "none"}}', empty), 'none');
    assert.equal(render('[{{body.isPrototypeOf}}]', empty), '[]');
    assert.equal(render('[{{body.arr.map}}]'), '[]');
    assert.equal(render('[{{body.s.toUpperCase}}]'), '[]');
  });

  it('reads own properties even when the body value has no prototype or a proto key of its own', () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { k: 'v' });
    assert.equal(render('{{body.k}}', { bodyValue: () => bare }), 'v');
    const parsed: unknown = JSON.parse('{"__proto__":{"polluted":"yes"},"toString":"own"}');
    assert.equal(render('{{body.toString}}', { bodyValue: () => parsed }), 'own');
    assert.equal(render('[{{body.polluted}}]', { bodyValue: () => parsed }), '[]');
  });

  it('never reads inherited properties of the path parameters', () => {
    assert.equal(render('[{{path.toString}}]'), '[]');
    assert.equal(render('[{{path.hasOwnProperty}}]'), '[]');
  });
});

describe('maxLength', () => {
  it('renders up to the limit', () => {
    assert.equal(render('{{path.id}}-{{path.id}}', {}, 5), '42-42');
    assert.equal(render('abc', {}, 3), 'abc');
  });

  it('throws RenderLimitError once the output is longer than the limit', () => {
    assert.throws(() => render('{{path.id}}-{{path.id}}', {}, 4), RenderLimitError);
    assert.throws(() => render('abcd', {}, 3), RenderLimitError);
    assert.throws(
      () => render('{{body}}', { bodyText: 'x'.repeat(1_000_000) }, 65_536),
      (err: unknown) =>
        err instanceof RenderLimitError && err instanceof Error && err.name === 'RenderLimitError',
    );
  });

  it('counts the rendered text, not the template', () => {
    // A short template that expands past the limit, and a long value under it.
    assert.throws(() => render('{{body.obj}}', {}, 10), RenderLimitError);
    assert.equal(render('{{uuid}}', {}, 36).length, 36);
  });
});

describe('JSON bodies (issue 35)', () => {
  /** Renders `template` as the body of a rule with these headers would be: marked when the body is JSON. */
  function renderBody(template: string, ruleHeaders: Record<string, string>, path: Record<string, string>) {
    const parsed = parseTemplate(template);
    assert.ok(parsed.ok);
    const parts = isJsonBody(ruleHeaders, template) ? markJsonStrings(parsed.parts) : parsed.parts;
    return renderTemplate(parts, context({ path }));
  }
  const hostile = 'a"b\\c\nd\te\u2028</script>{{uuid}}';

  it('escapes a value inserted inside a JSON string, so the document parses and round-trips it', () => {
    const variants: Array<Record<string, string>> = [
      {},
      { 'Content-Type': 'application/json' },
      { 'content-type': 'application/problem+json; charset=utf-8' },
    ];
    for (const headers of variants) {
      const out = renderBody('{"id":"{{path.id}}","n":"x-{{path.id}}-y"}', headers, { id: hostile });
      assert.deepEqual(JSON.parse(out), { id: hostile, n: `x-${hostile}-y` }, JSON.stringify(headers));
    }
  });

  it('leaves a whole value outside a string as before: |json, ?? defaults and bare numbers', () => {
    const out = renderBody(
      '{"echo":{{body.quoted|json}},"n":{{body.n}},"missing":{{body.nope|json}},"d":"{{query.none ?? "x\\"y"}}"}',
      { 'Content-Type': 'application/json' },
      {},
    );
    assert.deepEqual(JSON.parse(out), { echo: jsonBody.quoted, n: 3.5, missing: null, d: 'x"y' });
  });

  it('knows strings from escaped quotes and brackets in the literal text', () => {
    const out = renderBody('["a\\"{{path.id}}", "{{path.id}}\\\\", {{path.n}}]', {}, { id: '"', n: '7' });
    assert.deepEqual(JSON.parse(out), ['a""', '"\\', 7]);
  });

  it('does not touch a body that is not JSON: another Content-Type, or text without one', () => {
    assert.equal(
      renderBody('<p title="{{path.id}}">', { 'Content-Type': 'text/html' }, { id: '"' }),
      '<p title=""">',
    );
    assert.equal(renderBody('say "{{path.id}}"', {}, { id: '"' }), 'say """');
    assert.equal(
      renderBody('{"id":"{{path.id}}"}', { 'Content-Type': 'text/plain' }, { id: '"' }),
      '{"id":"""}',
    );
    // A body that opens with an expression is not taken for JSON by its first brace.
    assert.equal(renderBody('{{path.id}}"{{path.id}}"', {}, { id: '"' }), '""""');
  });
});
