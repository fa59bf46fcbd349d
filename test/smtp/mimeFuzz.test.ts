// MIME fuzz over real SMTP (raw sessions on both ports, every store), fast-check with fixed seeds: generated
// trees of parts with hostile header values (encoded-words and bytes that decode to lone surrogates, invalid
// code points, NUL, unknown charsets), bad transfer encodings and charsets, inline embedded messages, then
// byte mutations (truncation, broken delimiters, lost blank lines, bare line breaks, stray bytes), plus deep
// nesting, thousands of parts and huge header sections. Every message is answered 250, never a 4xx or 5xx for
// its content, and a 250 means it is stored and readable: the detail is valid JSON of well-formed strings, /raw
// is byte-exact and listed attachments download with their listed size.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { freePort } from '../helpers/process.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { MESSAGE_DETAIL_KEYS } from '../helpers/shapes.ts';
import { authedWire, Wire } from '../helpers/smtpWire.ts';
import { describeEachStore } from '../helpers/stores.ts';

const DOMAIN = 'capture.localhost';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/** Header value pieces that broke parsing or storing, or nearly could. */
const HOSTILE_WORDS = [
  '=?UTF-16BE?B?2AA=?=', // lone high surrogate
  '=?UTF-16BE?B?3AA=?=', // lone low surrogate
  '=?UTF-16LE?B?ANg=?=',
  '=?utf-8?Q?=ED=A0=80?=', // a surrogate encoded as UTF-8
  '=?utf-8?B?7aCA?=',
  '=?utf-7?Q?+2AA-?=',
  '=?UTF-32BE?B?ABEAAA==?=', // past U+10FFFF
  '=?utf-8?Q?=00?=',
  '=?x-unknown?Q?abc?=',
  '=?iso-2022-jp?B?GyRC?=',
  '=?utf-8?B?!!!?=',
  '=?utf-8?Q?=ZZ?=',
  '&#99999999999;',
  '&#xD800;',
  '\u0000',
  '\u0001\u007f',
  '\u00ed\u00a0\u0080', // the UTF-8 bytes of U+D800, raw
  '\u00c3\u0028',
  '\u00ff\u00fe',
  '\u0080',
  '"',
  ';',
  '<',
  '>',
  '@',
  ' ',
];

/** A header value: hostile pieces and random (latin1) characters; never a line break. */
const headerValue = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_WORDS) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 12 }) },
      { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
    ),
    { maxLength: 6 },
  )
  .map((pieces) => pieces.join('').replace(/[\r\n]/g, ' '));

const CHARSETS = ['utf-8', 'utf-16', 'utf-16be', 'utf-7', 'iso-2022-jp', 'x-bogus', 'shift_jis', '"', ''];
const ENCODINGS = ['7bit', '8bit', 'binary', 'base64', 'quoted-printable', 'x-uuencode', 'bogus'];
const TYPES = ['text/plain', 'text/html', 'application/octet-stream', 'image/png', 'text/calendar', 'bogus'];

/** Body bytes, as latin1 text: hostile references, broken encodings, raw bytes. */
const bodyText = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '<p>Code &#99999999999; &#xD800; &#0; &amp;</p>',
        '\u00d8\u0000', // a lone high surrogate in UTF-16BE
        '=ZZ=\r\n=',
        '!!!!****',
        'aGVsbG8=',
        '+2AA-',
        'line\r\n.\r\n..dots\r\n',
        '\r\n',
        '\n',
        '\r',
        '--',
      ),
      fc.string({ unit: 'binary-ascii', maxLength: 30 }),
      fc.uint8Array({ maxLength: 30 }).map((b) => Buffer.from(b).toString('latin1')),
    ),
    { maxLength: 8 },
  )
  .map((pieces) => pieces.join(''));

type Part =
  | {
      kind: 'leaf';
      type: string;
      charset: string;
      encoding: string;
      name: string;
      disposition: string;
      body: string;
    }
  | { kind: 'multi'; subtype: string; boundary: string; children: Part[]; close: boolean }
  | { kind: 'message'; inner: Part };

const part: fc.Arbitrary<Part> = fc.letrec<{ part: Part }>((tie) => ({
  part: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({
      kind: fc.constant('leaf' as const),
      type: fc.constantFrom(...TYPES),
      charset: fc.constantFrom(...CHARSETS),
      encoding: fc.constantFrom(...ENCODINGS),
      name: headerValue,
      disposition: fc.constantFrom('inline', 'attachment', '', 'bogus'),
      body: bodyText,
    }),
    fc.record({
      kind: fc.constant('multi' as const),
      subtype: fc.constantFrom('mixed', 'alternative', 'related'),
      boundary: fc.constantFrom('b', 'BB', 'a-b', '=_x', "'q'", ''),
      children: fc.array(tie('part'), { maxLength: 4 }),
      close: fc.boolean(),
    }),
    fc.record({ kind: fc.constant('message' as const), inner: tie('part') }),
  ),
})).part;

function serialize(p: Part, depth = 0): string {
  if (p.kind === 'leaf') {
    return [
      `Content-Type: ${p.type}; charset=${p.charset}; name="${p.name}"`,
      `Content-Transfer-Encoding: ${p.encoding}`,
      ...(p.disposition === '' ? [] : [`Content-Disposition: ${p.disposition}; filename="${p.name}"`]),
      '',
      p.body,
    ].join('\r\n');
  }
  if (p.kind === 'message') {
    return [
      'Content-Type: message/rfc822',
      'Content-Disposition: inline',
      '',
      `Subject: inner ${depth}`,
      serialize(p.inner, depth + 1),
    ].join('\r\n');
  }
  const b = `${p.boundary}${depth}`;
  const lines = [`Content-Type: multipart/${p.subtype}; boundary="${b}"`, '', 'preamble'];
  for (const child of p.children) lines.push(`--${b}`, serialize(child, depth + 1));
  if (p.close) lines.push(`--${b}--`, 'epilogue');
  return lines.join('\r\n');
}

type Mutation =
  | { kind: 'truncate'; at: number }
  | { kind: 'breakDelimiters'; at: number }
  | { kind: 'dropBlankLine'; at: number }
  | { kind: 'bareLf' }
  | { kind: 'bareCr' }
  | { kind: 'insert'; at: number; bytes: Uint8Array };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({
    kind: fc.constant('breakDelimiters' as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
  }),
  fc.record({ kind: fc.constant('dropBlankLine' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant('bareLf' as const) }),
  fc.record({ kind: fc.constant('bareCr' as const) }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }),
  }),
);

function mutate(text: string, m: Mutation): string {
  const pos = (at: number) => Math.floor(at * text.length);
  switch (m.kind) {
    case 'truncate':
      return text.slice(0, pos(m.at));
    case 'breakDelimiters': {
      // From a point on, delimiter lines name a boundary no part declared.
      const at = pos(m.at);
      return text.slice(0, at) + text.slice(at).replace(/\r\n--([^\r\n]*)/g, '\r\n--$1x');
    }
    case 'dropBlankLine': {
      const at = text.indexOf('\r\n\r\n', pos(m.at));
      return at === -1 ? text : text.slice(0, at) + text.slice(at + 2);
    }
    case 'bareLf':
      return text.replace(/\r\n/g, '\n');
    case 'bareCr':
      return text.replace(/\r\n/g, '\r');
    case 'insert':
      return text.slice(0, pos(m.at)) + Buffer.from(m.bytes).toString('latin1') + text.slice(pos(m.at));
  }
}

const topHeaders = fc.record({
  from: headerValue,
  to: headerValue,
  cc: headerValue,
  subject: headerValue,
  messageId: headerValue,
  date: headerValue,
  custom: headerValue,
});

/** A whole message as latin1 text (each character one byte), ending in CRLF as SMTP sends it. */
const ordinaryMessage = fc
  .record({ headers: topHeaders, body: part, mutations: fc.array(mutation, { maxLength: 3 }) })
  .map(({ headers, body, mutations }) => {
    let text = [
      `From: ${headers.from} <sender@example.org>`,
      `To: ${headers.to}, "${headers.cc}" <to@example.net>`,
      `Cc: ${headers.cc}`,
      `Subject: ${headers.subject}`,
      `Message-ID: <${headers.messageId}@example.org>`,
      `Date: ${headers.date}`,
      `X-Custom: ${headers.custom}`,
      'MIME-Version: 1.0',
      serialize(body),
    ].join('\r\n');
    for (const m of mutations) text = mutate(text, m);
    return text;
  });

const deepMessage = fc
  .record({
    levels: fc.integer({ min: 1000, max: 3000 }),
    truncate: fc.option(fc.double({ min: 0, max: 1, noNaN: true })),
  })
  .map(({ levels, truncate }) => {
    const lines = ['Subject: deep', 'Content-Type: multipart/mixed; boundary="d0"', ''];
    for (let i = 1; i < levels; i++)
      lines.push(`--d${i - 1}`, `Content-Type: multipart/alternative; boundary="d${i}"`, '');
    lines.push(`--d${levels - 1}`, 'Content-Type: text/plain; charset=utf-16be', '', '\u00d8\u0000deep');
    for (let i = levels - 1; i >= 0; i--) lines.push(`--d${i}--`);
    const text = lines.join('\r\n');
    return truncate === null ? text : text.slice(0, Math.floor(truncate * text.length));
  });

const wideMessage = fc
  .record({ parts: fc.integer({ min: 1000, max: 4000 }), name: headerValue })
  .map(({ parts, name }) => {
    const lines = ['Subject: wide', 'Content-Type: multipart/mixed; boundary="w"', ''];
    for (let i = 0; i < parts; i++) {
      lines.push(
        '--w',
        `Content-Type: application/octet-stream; name="${name}${i}"`,
        'Content-Transfer-Encoding: base64',
        '',
        'AAEC',
      );
    }
    lines.push('--w--');
    return lines.join('\r\n');
  });

const hugeHeaderMessage = fc
  .record({
    bytes: fc.integer({ min: 1_000_000, max: 2_600_000 }),
    line: fc.constantFrom('a:', 'X-Folded: v\r\n v', 'Received: from x by y; 1 Jan 2026 00:00:00 +0000'),
    value: headerValue,
  })
  .map(({ bytes, line, value }) => {
    const filler = `${line}\r\n`.repeat(Math.ceil(bytes / (line.length + 2)));
    return `Subject: ${value}\r\n${filler}Content-Type: text/plain\r\n\r\nbody`;
  });

const message = fc
  .oneof(
    { weight: 16, arbitrary: ordinaryMessage },
    { weight: 1, arbitrary: deepMessage },
    { weight: 1, arbitrary: wideMessage },
    { weight: 1, arbitrary: hugeHeaderMessage },
  )
  .map((text) => Buffer.from(text.endsWith('\r\n') ? text : `${text}\r\n`, 'latin1'));

/** Dot-stuffing: every line that starts with "." gets another (smtp-server removes it again). */
const stuffed = (raw: Buffer) => Buffer.from(raw.toString('latin1').replace(/(^|\n)\./g, '$1..'), 'latin1');

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

const RUNS = 40;

describeEachStore('MIME fuzz over SMTP', (getStore, backend) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let sandbox: Record<string, any>;

  before(async () => {
    server = await startTestServer(getStore(), {
      RATE_LIMITS: 'off',
      SMTP_INBOUND_PORT: String(await freePort()),
    });
    ws = await server.workspace();
    sandbox = await ws.createSandbox({ name: 'mime fuzz' });
  });
  after(async () => {
    await server.close();
  });

  /** The message stored as `id` reads back: valid JSON of well-formed strings, /raw byte-exact, attachments. */
  async function readable(id: string, raw: Buffer): Promise<void> {
    const res = await ws.api(`/sandboxes/${sandbox.id}/messages/${id}`);
    assert.equal(res.status, 200);
    const detail = JSON.parse(await res.text()) as Record<string, any>;
    assert.deepEqual(Object.keys(detail).sort(), MESSAGE_DETAIL_KEYS);
    for (const s of strings(detail))
      assert.ok(s.isWellFormed(), `well-formed: ${JSON.stringify(s.slice(0, 80))}`);
    const back = await ws.api(`/sandboxes/${sandbox.id}/messages/${id}/raw`);
    assert.equal(back.status, 200);
    assert.ok(Buffer.from(await back.arrayBuffer()).equals(raw), '/raw is byte-exact');
    const listed = detail.attachments as Array<{ index: number; sizeBytes: number }>;
    for (const a of [...listed.slice(0, 3), ...listed.slice(3).slice(-1)]) {
      const file = await ws.api(`/sandboxes/${sandbox.id}/messages/${id}/attachments/${a.index}`);
      assert.equal(file.status, 200, `attachment ${a.index}`);
      assert.equal((await file.arrayBuffer()).byteLength, a.sizeBytes, `attachment ${a.index} size`);
    }
  }

  const ports = [
    {
      name: 'submission port',
      seed: 1501,
      open: () => authedWire(server.ports.smtp, sandbox),
      rcpt: 'fuzz@example.net',
    },
    {
      name: 'inbound port',
      seed: 1502,
      open: async () => {
        const wire = await Wire.open(server.ports.smtpInbound as number);
        assert.equal((await wire.command('EHLO fuzz.test')).code, 250);
        return wire;
      },
      rcpt: () => `fuzz@${sandbox.id}.${DOMAIN}`,
    },
  ];

  for (const port of ports) {
    describe(port.name, () => {
      it(`${RUNS} generated and mutated messages are each answered 250 and read back`, async () => {
        const wire = await port.open();
        try {
          await fc.assert(
            fc.asyncProperty(message, async (raw) => {
              assert.equal((await wire.command('MAIL FROM:<sender@example.org>')).code, 250);
              const rcpt = typeof port.rcpt === 'string' ? port.rcpt : port.rcpt();
              assert.equal((await wire.command(`RCPT TO:<${rcpt}>`)).code, 250);
              assert.equal((await wire.command('DATA')).code, 354);
              wire.write(stuffed(raw));
              wire.write('.\r\n');
              const final = await wire.read(30_000);
              assert.equal(final.code, 250, `${raw.length} bytes answered ${final.code} ${final.text}`);
              const id = UUID.exec(final.text)?.[0];
              assert.ok(id !== undefined, final.text);
              await readable(id, raw);
            }),
            { seed: port.seed + (backend.name === 'postgres' ? 100 : 0), numRuns: RUNS, endOnFailure: true },
          );
        } finally {
          wire.close();
        }
      });
    });
  }
});
