// REST email stream: list with filters and pagination, detail, read flag, delete and clear, raw source and
// attachment downloads; validation, authentication, isolation and expiry. Mail goes in through the real
// SMTP submission port with nodemailer, and everything is read back over real HTTP.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { SendMailOptions, Transporter } from 'nodemailer';
import type { components } from '../../openapi/schema.d.ts';
import { generateApiKey } from '../../src/core/apiKeyFormat.ts';
import { sandboxTransport } from '../helpers/mail.ts';
import {
  assertJson,
  assertNoContent,
  assertNotFound,
  assertProblem,
  assertUnauthorized,
  validationAssertion,
} from '../helpers/responses.ts';
import { qs } from '../helpers/query.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import {
  ISO_RE,
  MESSAGE_DETAIL_KEYS as DETAIL_KEYS,
  MESSAGE_SUMMARY_KEYS as SUMMARY_KEYS,
  UUID_RE,
} from '../helpers/shapes.ts';
import { describeEachStore } from '../helpers/stores.ts';

type Summary = components['schemas']['MessageSummary'];
type Detail = components['schemas']['MessageDetail'];
type Page = components['schemas']['MessagePage'];

// ---- the mails used throughout ----

const BINARY = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
const RESUME = Buffer.from('Grüße aus Köln: naïve café ✓\nZweite Zeile.\n', 'utf8');
const HTML_ATTACHMENT = '<html><body><script>alert(1)</script><h1>captured page</h1></body></html>';
const RICH_TEXT =
  'Hello Bob,\n\n   This    is\tthe   quarterly   report.\n\n' +
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(8) +
  '\nRegards,\nAlice\n';
const RICH_HTML = '<p>Hello <b>Bob</b>,</p><p>This is the quarterly report.</p>';
const RICH_SUBJECT = 'Quarterly report: Grüße ✓';

function richMail(): SendMailOptions {
  return {
    from: { name: 'Alice Sender', address: 'alice@alpha.test' },
    to: [{ name: 'Bob Builder', address: 'bob@x.com' }, 'carol@y.test'],
    cc: 'dave@z.test',
    subject: RICH_SUBJECT,
    text: RICH_TEXT,
    html: RICH_HTML,
    headers: { 'X-Test-Header': 'sandtrap-42' },
    attachments: [
      { filename: 'bytes.bin', content: BINARY, contentType: 'application/octet-stream' },
      { filename: 'résumé.txt', content: RESUME, contentType: 'text/plain; charset=utf-8' },
      { filename: 'page.html', content: HTML_ATTACHMENT, contentType: 'text/html' },
    ],
    // Bcc: an address that is only in the envelope.
    envelope: {
      from: 'alice@alpha.test',
      to: ['bob@x.com', 'carol@y.test', 'dave@z.test', 'hidden@secret.test'],
    },
  };
}

/** A message sent verbatim (nodemailer `raw`), so the stored source can be compared byte for byte. */
const EXACT_RAW = Buffer.from(
  [
    'From: "Alice Sender" <alice@alpha.test>',
    'To: Bob Builder <bob@x.com>, carol@y.test',
    'Subject: Exact source check',
    'X-Test-Header: first-value',
    'Date: Tue, 03 Feb 2026 10:00:00 +0000',
    'Message-ID: <exact-1@alpha.test>',
    'X-Folded: part one',
    '\tpart two',
    'X-Test-Header: second-value',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    'Line one of the exact body, Grüße.',
    '.a line that starts with a dot',
    '..two dots',
    'Last line.',
    '',
  ].join('\r\n'),
  'utf8',
);
const EXACT_HEADERS = [
  { name: 'From', value: '"Alice Sender" <alice@alpha.test>' },
  { name: 'To', value: 'Bob Builder <bob@x.com>, carol@y.test' },
  { name: 'Subject', value: 'Exact source check' },
  { name: 'X-Test-Header', value: 'first-value' },
  { name: 'Date', value: 'Tue, 03 Feb 2026 10:00:00 +0000' },
  { name: 'Message-ID', value: '<exact-1@alpha.test>' },
  { name: 'X-Folded', value: 'part one\tpart two' },
  { name: 'X-Test-Header', value: 'second-value' },
  { name: 'MIME-Version', value: '1.0' },
  { name: 'Content-Type', value: 'text/plain; charset=utf-8' },
  { name: 'Content-Transfer-Encoding', value: '8bit' },
];

function exactMail(): SendMailOptions {
  return { envelope: { from: 'alice@alpha.test', to: ['bob@x.com'] }, raw: EXACT_RAW };
}

/** The preview rule: whitespace folded, trimmed, first 200 characters. */
function previewOf(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 200);
}

/** Header names of a raw message, in order, from its header block. */
function rawHeaderNames(raw: Buffer): string[] {
  const text = raw.toString('latin1');
  const block = text.slice(0, text.indexOf('\r\n\r\n'));
  return block
    .split('\r\n')
    .filter((line) => !/^[ \t]/.test(line))
    .map((line) => line.slice(0, line.indexOf(':')));
}

// ---- response assertions ----

/** A 400 validation problem naming exactly `paths`, titled 'Invalid request', each error with a message. */
const assertValidation = validationAssertion({ title: 'Invalid request', messages: true });

/** Headers every download of captured content carries. */
function assertDownloadHeaders(res: Response): void {
  assert.match(res.headers.get('content-disposition') ?? '', /^attachment\b/);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(res.headers.get('content-security-policy'), 'sandbox');
}

/** The `filename=` parameter of a Content-Disposition, quoted-string or token form. */
function dispositionFileName(header: string | null): string | undefined {
  const m = /;\s*filename=(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(header ?? '');
  return m === null ? undefined : (m[1] ?? m[2]);
}

interface Endpoint {
  method: string;
  path: string;
  body?: unknown;
}

/** Every message endpoint for one sandbox and message; the list and clear ones first. */
function endpoints(sandboxId: string, messageId: string): Endpoint[] {
  const m = `/sandboxes/${sandboxId}/messages`;
  return [
    { method: 'GET', path: m },
    { method: 'GET', path: `${m}/${messageId}` },
    { method: 'PATCH', path: `${m}/${messageId}`, body: { isRead: true } },
    { method: 'GET', path: `${m}/${messageId}/raw` },
    { method: 'GET', path: `${m}/${messageId}/attachments/0` },
    { method: 'DELETE', path: `${m}/${messageId}` },
    { method: 'DELETE', path: m },
  ];
}

/** The endpoints addressing one message (everything but list and clear). */
function messageEndpoints(sandboxId: string, messageId: string): Endpoint[] {
  return endpoints(sandboxId, messageId).filter((e) => e.path.includes(messageId));
}

describeEachStore('REST messages', (getStore) => {
  let server: TestServer;
  const transports = new Map<string, Transporter>();

  before(async () => {
    // The helper's store is closed by describeEachStore; the server must not close it a second time.
    server = await startTestServer({ ...getStore(), close: async () => {} }, { RATE_LIMITS: 'off' });
  });
  after(async () => {
    for (const t of transports.values()) t.close();
    await server.close();
  });

  interface Box {
    ws: TestServerWorkspace;
    sb: Record<string, any>;
  }

  async function newBox(ws?: TestServerWorkspace, body?: Record<string, unknown>): Promise<Box> {
    const w = ws ?? (await server.workspace());
    return { ws: w, sb: await w.createSandbox(body ?? { name: 'mail' }) };
  }

  function transportFor(box: Box): Transporter {
    let t = transports.get(box.sb.id);
    if (t === undefined) {
      t = sandboxTransport(server.ports.smtp, box.sb, { pool: true, maxConnections: 1 });
      transports.set(box.sb.id, t);
    }
    return t;
  }

  /**
   * Sends one mail into the sandbox and returns the id it was stored under (the newest message). The clock
   * then moves 1 s, so every message is strictly newer than the one before.
   */
  async function send(box: Box, mail: SendMailOptions): Promise<string> {
    await transportFor(box).sendMail(mail);
    const page = await list(box, { limit: '1' });
    const id = page.items[0]?.id;
    assert.ok(id !== undefined, 'the sent message is listed');
    server.clock.advance(1000);
    return id;
  }

  function listRes(box: Box, query: Record<string, string> = {}, ws = box.ws): Promise<Response> {
    return ws.api(`/sandboxes/${box.sb.id}/messages${qs(query)}`);
  }

  async function list(box: Box, query: Record<string, string> = {}): Promise<Page> {
    return assertJson<Page>(await listRes(box, query));
  }

  async function listIds(box: Box, query: Record<string, string> = {}): Promise<string[]> {
    const page = await list(box, query);
    assert.equal(page.nextCursor, null);
    return page.items.map((m) => m.id);
  }

  function messagePath(box: Box, id: string, suffix = ''): string {
    return `/sandboxes/${box.sb.id}/messages/${id}${suffix}`;
  }

  async function detail(box: Box, id: string): Promise<Detail> {
    return assertJson<Detail>(await box.ws.api(messagePath(box, id)));
  }

  function patch(box: Box, id: string, body: unknown, ws = box.ws): Promise<Response> {
    return ws.api(messagePath(box, id), { method: 'PATCH', body: JSON.stringify(body) });
  }

  async function raw(box: Box, id: string): Promise<Buffer> {
    const res = await box.ws.api(messagePath(box, id, '/raw'));
    assert.equal(res.status, 200);
    return Buffer.from(await res.arrayBuffer());
  }

  it('the detail carries the extracted code and links (additive otp and links)', async () => {
    const box = await newBox();
    const id = await send(box, {
      from: 'app@example.test',
      to: 'user@example.test',
      subject: 'Your sign-in code',
      html: '<p>Your verification code is</p><p style="font-size:28px"><b>482 913</b></p><a href="https://app.example.test/verify?t=abc">Verify email</a>',
    });
    const d = (await detail(box, id)) as Record<string, any>;
    assert.equal(d.otp.status, 'found');
    assert.equal(d.otp.code, '482913');
    assert.equal(d.otp.source, 'html');
    assert.ok(
      d.links.some((l: any) => l.url === 'https://app.example.test/verify?t=abc' && l.kind === 'verify'),
    );
    const none = (await detail(
      box,
      await send(box, {
        from: 'shop@example.test',
        to: 'user@example.test',
        subject: 'Receipt',
        text: 'Order 88120934, total 42.00',
      }),
    )) as Record<string, any>;
    assert.equal(none.otp.status, 'not_found');
    assert.equal(none.otp.code, null);
  });

  /** Calls an endpoint with the given headers only (no key unless given). */
  function callWith(headers: Record<string, string>, e: Endpoint): Promise<Response> {
    return fetch(`${server.apiUrl}/api/v1${e.path}`, {
      method: e.method,
      headers: { ...headers, ...(e.body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(e.body === undefined ? {} : { body: JSON.stringify(e.body) }),
    });
  }

  function call(ws: TestServerWorkspace, e: Endpoint): Promise<Response> {
    return ws.api(e.path, {
      method: e.method,
      ...(e.body === undefined ? {} : { body: JSON.stringify(e.body) }),
    });
  }

  describe('200/204', () => {
    describe('GET /sandboxes/{sandboxId}/messages', () => {
      let box: Box;
      let richId: string;
      let sentFrom: number;
      let sentTo: number;

      before(async () => {
        box = await newBox();
        sentFrom = server.clock.now().getTime();
        await transportFor(box).sendMail(richMail());
        sentTo = server.clock.now().getTime();
        richId = (await list(box)).items[0]!.id;
        server.clock.advance(1000);
      });

      it('returns every field of the Message summary shape', async () => {
        const page = await list(box);
        assert.equal(page.nextCursor, null);
        assert.equal(page.items.length, 1);
        const m = page.items[0] as Summary;
        assert.deepEqual(Object.keys(m).sort(), SUMMARY_KEYS);
        assert.equal(m.id, richId);
        assert.match(m.id, UUID_RE);
        assert.equal(m.from, 'Alice Sender <alice@alpha.test>');
        assert.deepEqual(m.to, ['Bob Builder <bob@x.com>', 'carol@y.test']);
        assert.equal(m.subject, RICH_SUBJECT);
        assert.equal(m.preview, previewOf(RICH_TEXT));
        assert.equal(m.preview?.length, 200);
        assert.ok(
          m.preview?.startsWith('Hello Bob, This is the quarterly report. Lorem ipsum'),
          m.preview ?? '',
        );
        assert.equal(m.isRead, false);
        assert.equal(m.attachmentCount, 3);
        assert.match(m.receivedAt, ISO_RE);
        const at = Date.parse(m.receivedAt);
        assert.ok(at >= sentFrom && at <= sentTo, `receivedAt ${m.receivedAt} within the send`);
        assert.deepEqual(m.capturedFor, ['bob@x.com', 'carol@y.test', 'dave@z.test', 'hidden@secret.test']);
      });

      it('sizeBytes is the size of the raw source served by /raw', async () => {
        const [m] = (await list(box)).items;
        const source = await raw(box, richId);
        assert.ok(source.length > BINARY.length, 'the source holds the attachments');
        assert.equal(m?.sizeBytes, source.length);
      });

      it('from is the envelope sender when there is no From header; no To and no Subject give [] and null', async () => {
        const b = await newBox();
        const id = await send(b, {
          envelope: { from: 'bounce@env.test', to: ['someone@x.com'] },
          raw: 'Date: Tue, 03 Feb 2026 10:00:00 +0000\r\nMessage-ID: <bare@env.test>\r\n\r\njust a body\r\n',
        });
        const [m] = (await list(b)).items;
        assert.equal(m?.id, id);
        assert.equal(m?.from, 'bounce@env.test');
        assert.deepEqual(m?.to, []);
        assert.equal(m?.subject, null);
        assert.equal(m?.preview, 'just a body');
        assert.equal(m?.attachmentCount, 0);
        assert.deepEqual(m?.capturedFor, ['someone@x.com']);
      });

      it('an empty sandbox lists nothing', async () => {
        const b = await newBox();
        assert.deepEqual(await list(b), { items: [], nextCursor: null });
      });

      describe('order and pagination over 5 messages', () => {
        let five: Box;
        let ids: string[]; // newest first

        before(async () => {
          five = await newBox();
          const sent: string[] = [];
          for (let i = 1; i <= 5; i++) {
            sent.push(
              await send(five, {
                from: 'pager@x.com',
                to: 'reader@x.com',
                subject: `page message ${i}`,
                text: `body ${i}`,
              }),
            );
          }
          ids = sent.reverse();
        });

        it('lists newest first with strictly decreasing receivedAt and a null cursor', async () => {
          const page = await list(five);
          assert.deepEqual(
            page.items.map((m) => m.id),
            ids,
          );
          assert.deepEqual(
            page.items.map((m) => m.subject),
            ['page message 5', 'page message 4', 'page message 3', 'page message 2', 'page message 1'],
          );
          const times = page.items.map((m) => Date.parse(m.receivedAt));
          for (let i = 1; i < times.length; i++) assert.ok(times[i - 1]! > times[i]!, 'strictly newer first');
          assert.equal(page.nextCursor, null);
        });

        it('walks limit=2 page by page: 2, 2, 1, without gaps or duplicates', async () => {
          const pages: string[][] = [];
          let cursor: string | null = null;
          for (let guard = 0; guard < 10; guard++) {
            const page: Page = await list(five, { limit: '2', ...(cursor === null ? {} : { cursor }) });
            pages.push(page.items.map((m) => m.id));
            cursor = page.nextCursor;
            if (cursor === null) break;
            assert.equal(typeof cursor, 'string');
          }
          assert.deepEqual(pages, [ids.slice(0, 2), ids.slice(2, 4), ids.slice(4)]);
        });

        it('limit=5 gives everything and no cursor; limit=4 gives 4 and a cursor to the last one', async () => {
          const all = await list(five, { limit: '5' });
          assert.deepEqual(
            all.items.map((m) => m.id),
            ids,
          );
          assert.equal(all.nextCursor, null);
          const first = await list(five, { limit: '4' });
          assert.deepEqual(
            first.items.map((m) => m.id),
            ids.slice(0, 4),
          );
          assert.ok(first.nextCursor !== null);
          const rest = await list(five, { limit: '4', cursor: first.nextCursor });
          assert.deepEqual(
            rest.items.map((m) => m.id),
            ids.slice(4),
          );
          assert.equal(rest.nextCursor, null);
        });

        it('clamps limit=500 instead of refusing it', async () => {
          const page = await list(five, { limit: '500' });
          assert.deepEqual(
            page.items.map((m) => m.id),
            ids,
          );
          assert.equal(page.nextCursor, null);
        });

        it('keeps a filter across pages (isRead=false, limit=1)', async () => {
          assert.equal((await patch(five, ids[1]!, { isRead: true })).status, 204);
          try {
            const seen: string[] = [];
            let cursor: string | null = null;
            for (let guard = 0; guard < 10; guard++) {
              const page: Page = await list(five, {
                isRead: 'false',
                limit: '1',
                ...(cursor === null ? {} : { cursor }),
              });
              seen.push(...page.items.map((m) => m.id));
              cursor = page.nextCursor;
              if (cursor === null) break;
            }
            assert.deepEqual(seen, [ids[0], ids[2], ids[3], ids[4]]);
          } finally {
            assert.equal((await patch(five, ids[1]!, { isRead: false })).status, 204);
          }
        });
      });
    });

    describe('list filters', () => {
      let box: Box;
      let m1: string; // Alice; To Bob <bob@x.com>; envelope bob@x.com + Bcc hidden-bcc@secret.test; read
      let m2: string; // carol@gamma.test; To/envelope bob@x.com.au; long body
      let m3: string; // dave; To Team List; envelope xbob@x.com; read
      let m4: string; // erin; HTML only; envelope Bob@X.com
      let at: Record<string, string>; // receivedAt by id

      before(async () => {
        box = await newBox();
        m1 = await send(box, {
          from: { name: 'Alice Sender', address: 'alice@alpha.test' },
          to: { name: 'Bob', address: 'bob@x.com' },
          subject: 'Quarterly Report',
          text: 'Numbers look fine, zebra crossing ahead.',
          envelope: { from: 'alice@alpha.test', to: ['bob@x.com', 'hidden-bcc@secret.test'] },
        });
        m2 = await send(box, {
          from: 'carol@gamma.test',
          to: 'bob@x.com.au',
          subject: 'Invoice 42',
          text: `Please pay, ostrich.${' filler'.repeat(40)} platypus`,
          envelope: { from: 'carol@gamma.test', to: ['bob@x.com.au'] },
        });
        m3 = await send(box, {
          from: 'dave@delta.test',
          to: { name: 'Team List', address: 'team-list@lists.test' },
          subject: 'Welcome aboard',
          text: 'Hello newcomer.',
          envelope: { from: 'dave@delta.test', to: ['xbob@x.com'] },
        });
        m4 = await send(box, {
          from: 'erin@epsilon.test',
          to: 'frank@phi.test',
          subject: 'Reset your password',
          html: '<p>Your code is <b>PELICAN</b></p>',
          envelope: { from: 'erin@epsilon.test', to: ['Bob@X.com'] },
        });
        for (const id of [m1, m3]) assert.equal((await patch(box, id, { isRead: true })).status, 204);
        at = Object.fromEntries((await list(box)).items.map((m) => [m.id, m.receivedAt]));
      });

      it('without filters lists all four, newest first', async () => {
        assert.deepEqual(await listIds(box), [m4, m3, m2, m1]);
      });

      describe('q', () => {
        it('matches the subject, case-insensitively', async () => {
          assert.deepEqual(await listIds(box, { q: 'quarterly' }), [m1]);
          assert.deepEqual(await listIds(box, { q: 'REPORT' }), [m1]);
          assert.deepEqual(await listIds(box, { q: 'invoice 4' }), [m2]);
        });

        it('matches the sender: display name and address', async () => {
          assert.deepEqual(await listIds(box, { q: 'alice sender' }), [m1]);
          assert.deepEqual(await listIds(box, { q: 'GAMMA.test' }), [m2]);
          assert.deepEqual(await listIds(box, { q: 'erin@' }), [m4]);
        });

        it('matches the To recipients (name and address)', async () => {
          assert.deepEqual(await listIds(box, { q: 'team list' }), [m3]);
          assert.deepEqual(await listIds(box, { q: 'TEAM-LIST@lists' }), [m3]);
          assert.deepEqual(await listIds(box, { q: 'frank@phi' }), [m4]);
        });

        it('matches the body preview, also of HTML-only mail', async () => {
          assert.deepEqual(await listIds(box, { q: 'Zebra Crossing' }), [m1]);
          assert.deepEqual(await listIds(box, { q: 'ostrich' }), [m2]);
          assert.deepEqual(await listIds(box, { q: 'pelican' }), [m4]);
        });

        it('matches a captured-for address, including a Bcc address found only in the envelope', async () => {
          assert.deepEqual(await listIds(box, { q: 'hidden-bcc' }), [m1]);
          assert.deepEqual(await listIds(box, { q: 'HIDDEN-BCC@SECRET.TEST' }), [m1]);
          assert.deepEqual(await listIds(box, { q: 'xbob@' }), [m3]);
        });

        it('matches across fields: "bob" finds all four by To, envelope or sender', async () => {
          assert.deepEqual(await listIds(box, { q: 'bob' }), [m4, m3, m2, m1]);
        });

        it('does not match body text beyond the 200-character preview', async () => {
          assert.deepEqual(await listIds(box, { q: 'platypus' }), []);
        });

        it('matching nothing gives an empty page', async () => {
          assert.deepEqual(await list(box, { q: 'nothing-matches-this' }), { items: [], nextCursor: null });
        });

        it('treats % and _ literally', async () => {
          assert.deepEqual(await listIds(box, { q: '%' }), []);
          assert.deepEqual(await listIds(box, { q: '_' }), []);
          assert.deepEqual(await listIds(box, { q: 'bob%x' }), []);
        });

        it('matches within one address, never the punctuation of the stored address list', async () => {
          // No subject, sender, recipient, preview or captured-for address contains these.
          assert.deepEqual(await listIds(box, { q: '"]' }), []);
          assert.deepEqual(await listIds(box, { q: '["' }), []);
        });

        it('a blank q is no filter', async () => {
          assert.deepEqual(await listIds(box, { q: '   ' }), [m4, m3, m2, m1]);
        });
      });

      describe('capturedFor', () => {
        it('is an exact, case-insensitive match: bob@x.com is not bob@x.com.au nor xbob@x.com', async () => {
          assert.deepEqual(await listIds(box, { capturedFor: 'bob@x.com' }), [m4, m1]);
          assert.deepEqual(await listIds(box, { capturedFor: 'BOB@X.COM' }), [m4, m1]);
          assert.deepEqual(await listIds(box, { capturedFor: 'bob@x.com.au' }), [m2]);
          assert.deepEqual(await listIds(box, { capturedFor: 'xbob@x.com' }), [m3]);
        });

        it('finds an envelope-only (Bcc) address', async () => {
          assert.deepEqual(await listIds(box, { capturedFor: 'hidden-bcc@secret.test' }), [m1]);
        });

        it('is not a substring match', async () => {
          assert.deepEqual(await listIds(box, { capturedFor: 'bob@x' }), []);
          assert.deepEqual(await listIds(box, { capturedFor: 'x.com' }), []);
          assert.deepEqual(await listIds(box, { capturedFor: '%' }), []);
        });

        it('a To-header address the mail did not arrive on does not match', async () => {
          assert.deepEqual(await listIds(box, { capturedFor: 'team-list@lists.test' }), []);
          assert.deepEqual(await listIds(box, { capturedFor: 'frank@phi.test' }), []);
        });
      });

      describe('since', () => {
        it('is inclusive: a message received exactly at since is returned', async () => {
          assert.deepEqual(await listIds(box, { since: at[m2]! }), [m4, m3, m2]);
          assert.deepEqual(await listIds(box, { since: at[m4]! }), [m4]);
          assert.deepEqual(await listIds(box, { since: at[m1]! }), [m4, m3, m2, m1]);
        });

        it('one millisecond later excludes that message', async () => {
          const later = new Date(Date.parse(at[m2]!) + 1).toISOString();
          assert.deepEqual(await listIds(box, { since: later }), [m4, m3]);
        });

        it('accepts the same instant written with an offset', async () => {
          const t = Date.parse(at[m2]!);
          const plus2 = new Date(t + 2 * 3600_000).toISOString().replace('Z', '+02:00');
          assert.deepEqual(await listIds(box, { since: plus2 }), [m4, m3, m2]);
        });

        it('a future instant gives an empty page', async () => {
          const future = new Date(Date.parse(at[m4]!) + 3600_000).toISOString();
          assert.deepEqual(await listIds(box, { since: future }), []);
        });
      });

      describe('isRead', () => {
        it('true selects the read messages, false the unconsumed ones', async () => {
          assert.deepEqual(await listIds(box, { isRead: 'true' }), [m3, m1]);
          assert.deepEqual(await listIds(box, { isRead: 'false' }), [m4, m2]);
        });
      });

      describe('combined (AND)', () => {
        it('q + isRead=false', async () => {
          assert.deepEqual(await listIds(box, { q: 'bob', isRead: 'false' }), [m4, m2]);
        });

        it('q + isRead=false + capturedFor', async () => {
          assert.deepEqual(await listIds(box, { q: 'bob', isRead: 'false', capturedFor: 'bob@x.com' }), [m4]);
        });

        it('capturedFor + isRead=true', async () => {
          assert.deepEqual(await listIds(box, { capturedFor: 'bob@x.com', isRead: 'true' }), [m1]);
        });

        it('q + since + isRead', async () => {
          assert.deepEqual(await listIds(box, { q: 'x.com', since: at[m2]!, isRead: 'true' }), [m3]);
          assert.deepEqual(await listIds(box, { q: 'x.com', since: at[m2]!, isRead: 'false' }), [m4, m2]);
        });

        it('filters that exclude each other give an empty page', async () => {
          assert.deepEqual(await listIds(box, { q: 'quarterly', isRead: 'false' }), []);
          assert.deepEqual(await listIds(box, { capturedFor: 'hidden-bcc@secret.test', since: at[m2]! }), []);
        });

        it('paginates combined filters with limit=1', async () => {
          const seen: string[] = [];
          let cursor: string | null = null;
          for (let guard = 0; guard < 10; guard++) {
            const page: Page = await list(box, {
              q: 'bob',
              capturedFor: 'bob@x.com',
              limit: '1',
              ...(cursor === null ? {} : { cursor }),
            });
            seen.push(...page.items.map((m) => m.id));
            cursor = page.nextCursor;
            if (cursor === null) break;
          }
          assert.deepEqual(seen, [m4, m1]);
        });
      });
    });

    describe('GET /sandboxes/{sandboxId}/messages/{messageId}', () => {
      let box: Box;
      let richId: string;
      let exactId: string;

      before(async () => {
        box = await newBox();
        richId = await send(box, richMail());
        exactId = await send(box, exactMail());
      });

      it('returns every field of the Message detail shape, and no preview or attachmentCount', async () => {
        const d = await detail(box, richId);
        assert.deepEqual(Object.keys(d).sort(), DETAIL_KEYS);
        const [summary] = (await list(box, { q: 'quarterly report: gr' })).items;
        assert.equal(d.id, richId);
        assert.equal(d.from, 'Alice Sender <alice@alpha.test>');
        assert.deepEqual(d.to, ['Bob Builder <bob@x.com>', 'carol@y.test']);
        assert.equal(d.subject, RICH_SUBJECT);
        assert.equal(d.isRead, false);
        assert.equal(d.receivedAt, summary?.receivedAt);
        assert.match(d.receivedAt, ISO_RE);
        assert.equal(d.sizeBytes, summary?.sizeBytes);
        assert.equal(d.sizeBytes, (await raw(box, richId)).length);
        assert.deepEqual(d.capturedFor, ['bob@x.com', 'carol@y.test', 'dave@z.test', 'hidden@secret.test']);
      });

      it('textBody and htmlBody are the parts as sent', async () => {
        const d = await detail(box, richId);
        assert.equal(d.textBody, RICH_TEXT);
        assert.equal(d.htmlBody, RICH_HTML);
      });

      it('headers are every header in original order, with the custom X-Test-Header', async () => {
        const d = await detail(box, richId);
        const source = await raw(box, richId);
        assert.deepEqual(
          d.headers.map((h) => h.name),
          rawHeaderNames(source),
        );
        for (const h of d.headers) assert.deepEqual(Object.keys(h).sort(), ['name', 'value']);
        assert.deepEqual(
          d.headers.filter((h) => h.name === 'X-Test-Header'),
          [{ name: 'X-Test-Header', value: 'sandtrap-42' }],
        );
        assert.deepEqual(
          d.headers.find((h) => h.name === 'Subject'),
          { name: 'Subject', value: RICH_SUBJECT },
        );
        assert.deepEqual(
          d.headers.find((h) => h.name === 'Cc'),
          { name: 'Cc', value: 'dave@z.test' },
        );
        assert.equal(
          d.headers.find((h) => h.name.toLowerCase() === 'bcc'),
          undefined,
          'Bcc is not a header',
        );
      });

      it('headers of a verbatim message: exact order, duplicates kept, folded lines unfolded', async () => {
        const d = await detail(box, exactId);
        assert.deepEqual(d.headers, EXACT_HEADERS);
        assert.equal(d.from, '"Alice Sender" <alice@alpha.test>');
        assert.deepEqual(d.to, ['Bob Builder <bob@x.com>', 'carol@y.test']);
        assert.equal(d.subject, 'Exact source check');
        assert.equal(
          d.textBody,
          'Line one of the exact body, Grüße.\n.a line that starts with a dot\n..two dots\nLast line.\n',
        );
        assert.equal(d.htmlBody, null);
        assert.deepEqual(d.attachments, []);
        assert.deepEqual(d.capturedFor, ['bob@x.com']);
        assert.equal(d.sizeBytes, EXACT_RAW.length);
      });

      it('attachments list index, fileName, contentType, sizeBytes and contentId (null without one)', async () => {
        const d = await detail(box, richId);
        assert.deepEqual(d.attachments, [
          {
            index: 0,
            fileName: 'bytes.bin',
            contentType: 'application/octet-stream',
            sizeBytes: 256,
            contentId: null,
          },
          {
            index: 1,
            fileName: 'résumé.txt',
            contentType: 'text/plain',
            sizeBytes: RESUME.length,
            contentId: null,
          },
          {
            index: 2,
            fileName: 'page.html',
            contentType: 'text/html',
            sizeBytes: Buffer.byteLength(HTML_ATTACHMENT),
            contentId: null,
          },
        ]);
      });

      it('accepts upper-case ids in the path', async () => {
        const res = await box.ws.api(
          `/sandboxes/${String(box.sb.id).toUpperCase()}/messages/${richId.toUpperCase()}`,
        );
        assert.equal(res.status, 200);
        assert.equal(((await res.json()) as Detail).id, richId);
      });
    });

    describe('PATCH /sandboxes/{sandboxId}/messages/{messageId}', () => {
      let box: Box;
      let id: string;
      let other: string;

      before(async () => {
        box = await newBox();
        id = await send(box, { from: 'a@x.com', to: 'b@x.com', subject: 'to be read', text: 'read me' });
        other = await send(box, { from: 'a@x.com', to: 'b@x.com', subject: 'stays unread', text: 'no' });
      });

      it('isRead: true → 204; detail and list show it read; isRead=false excludes it', async () => {
        const beforePatch = await detail(box, id);
        await assertNoContent(await patch(box, id, { isRead: true }));
        const d = await detail(box, id);
        assert.equal(d.isRead, true);
        assert.deepEqual({ ...d, isRead: false }, beforePatch, 'nothing else changes');
        assert.deepEqual(await listIds(box, { isRead: 'false' }), [other]);
        assert.deepEqual(await listIds(box, { isRead: 'true' }), [id]);
        const summary = (await list(box)).items.find((m) => m.id === id);
        assert.equal(summary?.isRead, true);
        assert.equal((await detail(box, other)).isRead, false, 'the other message is untouched');
      });

      it('isRead: true again is still 204', async () => {
        await assertNoContent(await patch(box, id, { isRead: true }));
        assert.equal((await detail(box, id)).isRead, true);
      });

      it('isRead: false → 204 and the message matches isRead=false again', async () => {
        await assertNoContent(await patch(box, id, { isRead: false }));
        assert.equal((await detail(box, id)).isRead, false);
        assert.deepEqual(await listIds(box, { isRead: 'false' }), [other, id]);
        assert.deepEqual(await listIds(box, { isRead: 'true' }), []);
      });
    });

    describe('DELETE /sandboxes/{sandboxId}/messages/{messageId}', () => {
      it('204; then the message is 404 on every endpoint and gone from the list; a second DELETE is 404', async () => {
        const box = await newBox();
        const keep = await send(box, { from: 'a@x.com', to: 'b@x.com', subject: 'keep', text: 'k' });
        const gone = await send(box, richMail());
        await assertNoContent(await box.ws.api(messagePath(box, gone), { method: 'DELETE' }));
        for (const e of messageEndpoints(box.sb.id, gone)) {
          await assertNotFound(await call(box.ws, e), `${e.method} ${e.path}`);
        }
        assert.deepEqual(await listIds(box), [keep]);
        assert.equal((await detail(box, keep)).subject, 'keep');
      });
    });

    describe('DELETE /sandboxes/{sandboxId}/messages', () => {
      it('204 and the list is empty; another sandbox keeps its messages; new mail is captured again', async () => {
        const a = await newBox();
        const b = await newBox(a.ws);
        const a1 = await send(a, { from: 'a@x.com', to: 'b@x.com', subject: 'a1', text: '1' });
        const a2 = await send(a, { from: 'a@x.com', to: 'b@x.com', subject: 'a2', text: '2' });
        const b1 = await send(b, { from: 'a@x.com', to: 'b@x.com', subject: 'b1', text: '3' });
        await assertNoContent(await a.ws.api(`/sandboxes/${a.sb.id}/messages`, { method: 'DELETE' }));
        assert.deepEqual(await list(a), { items: [], nextCursor: null });
        for (const id of [a1, a2]) await assertNotFound(await a.ws.api(messagePath(a, id)), id);
        assert.deepEqual(await listIds(b), [b1]);
        assert.equal((await detail(b, b1)).subject, 'b1');
        const a3 = await send(a, { from: 'a@x.com', to: 'b@x.com', subject: 'a3', text: '4' });
        assert.deepEqual(await listIds(a), [a3]);
      });

      it('clearing an empty sandbox is 204', async () => {
        const box = await newBox();
        await assertNoContent(await box.ws.api(`/sandboxes/${box.sb.id}/messages`, { method: 'DELETE' }));
        assert.deepEqual(await list(box), { items: [], nextCursor: null });
      });
    });

    describe('GET /sandboxes/{sandboxId}/messages/{messageId}/raw', () => {
      let box: Box;
      let richId: string;
      let exactId: string;

      before(async () => {
        box = await newBox();
        richId = await send(box, richMail());
        exactId = await send(box, exactMail());
      });

      it('is a message/rfc822 download: attachment; filename="<id>.eml", nosniff, CSP sandbox', async () => {
        const res = await box.ws.api(messagePath(box, exactId, '/raw'));
        assert.equal(res.status, 200);
        await res.arrayBuffer();
        assert.equal(res.headers.get('content-type'), 'message/rfc822');
        assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(res.headers.get('content-security-policy'), 'sandbox');
        // design.md 4.11 fixes this header value, quotes included.
        assert.equal(res.headers.get('content-disposition'), `attachment; filename="${exactId}.eml"`);
      });

      it('is the exact source, byte for byte, with dot-stuffed lines restored', async () => {
        const res = await box.ws.api(messagePath(box, exactId, '/raw'));
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'message/rfc822');
        assert.equal(dispositionFileName(res.headers.get('content-disposition')), `${exactId}.eml`);
        assertDownloadHeaders(res);
        const body = Buffer.from(await res.arrayBuffer());
        assert.ok(body.equals(EXACT_RAW), `raw differs:\n${body.toString('utf8')}`);
        assert.equal(res.headers.get('content-length'), String(EXACT_RAW.length));
      });

      it('of a composed message holds its Subject line and custom header; length = sizeBytes', async () => {
        const res = await box.ws.api(messagePath(box, richId, '/raw'));
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'message/rfc822');
        assert.equal(dispositionFileName(res.headers.get('content-disposition')), `${richId}.eml`);
        assertDownloadHeaders(res);
        const body = Buffer.from(await res.arrayBuffer());
        const text = body.toString('utf8');
        assert.match(text, /^Subject: =\?UTF-8\?/m);
        assert.match(text, /^X-Test-Header: sandtrap-42\r$/m);
        assert.match(text, /^From: Alice Sender <alice@alpha\.test>\r$/m);
        assert.equal(body.length, (await detail(box, richId)).sizeBytes);
      });
    });

    describe('GET /sandboxes/{sandboxId}/messages/{messageId}/attachments/{index}', () => {
      let box: Box;
      let id: string;

      before(async () => {
        box = await newBox();
        id = await send(box, richMail());
      });

      it('index 0: the 256 binary bytes 0..255, identical, as application/octet-stream', async () => {
        const res = await box.ws.api(messagePath(box, id, '/attachments/0'));
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'application/octet-stream');
        assert.equal(dispositionFileName(res.headers.get('content-disposition')), 'bytes.bin');
        assertDownloadHeaders(res);
        const body = Buffer.from(await res.arrayBuffer());
        assert.ok(body.equals(BINARY), `bytes differ: ${body.toString('hex')}`);
      });

      it('index 1: the UTF-8 text identical, non-ASCII filename in filename*= (RFC 5987)', async () => {
        const res = await box.ws.api(messagePath(box, id, '/attachments/1'));
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'text/plain');
        const disposition = res.headers.get('content-disposition') ?? '';
        assert.match(disposition, /^attachment;/);
        assert.ok(
          disposition.includes("filename*=UTF-8''r%C3%A9sum%C3%A9.txt"),
          `RFC 5987 filename expected: ${disposition}`,
        );
        assertDownloadHeaders(res);
        const body = Buffer.from(await res.arrayBuffer());
        assert.ok(body.equals(RESUME), `bytes differ: ${body.toString('utf8')}`);
      });

      it('index 2: captured HTML is a text/html download, never inline, with CSP sandbox', async () => {
        const res = await box.ws.api(messagePath(box, id, '/attachments/2'));
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'text/html');
        assert.equal(dispositionFileName(res.headers.get('content-disposition')), 'page.html');
        assertDownloadHeaders(res);
        assert.equal(await res.text(), HTML_ATTACHMENT);
      });

      it('accepts the index as written with leading zeros ("01")', async () => {
        const res = await box.ws.api(messagePath(box, id, '/attachments/01'));
        assert.equal(res.status, 200);
        assert.ok(Buffer.from(await res.arrayBuffer()).equals(RESUME));
      });
    });

    describe('HTML mail', () => {
      const html =
        '<!doctype html><html><head><title>T</title><style>p{color:red}</style></head>' +
        '<body><p>Hi&nbsp;there &amp; welcome</p><script>alert("x")</script><div>Your code: 424242</div></body></html>';
      let box: Box;
      let id: string;

      before(async () => {
        box = await newBox();
        id = await send(box, { from: 'web@x.com', to: 'user@x.com', subject: 'HTML only', html });
      });

      it('htmlBody is the HTML as sent; there is no text part', async () => {
        const d = await detail(box, id);
        // nodemailer ends a single-part body with CRLF; that line break is part of the sent body.
        assert.equal(d.htmlBody, `${html}\n`);
        assert.equal(d.textBody, null);
        assert.deepEqual(d.attachments, []);
      });

      it('the preview is the visible text of the HTML', async () => {
        const [m] = (await list(box)).items;
        assert.equal(m?.preview, 'Hi there & welcome Your code: 424242');
        assert.equal(m?.attachmentCount, 0);
      });

      it('the API never serves it inline: JSON for detail, message/rfc822 attachment for raw', async () => {
        const d = await box.ws.api(messagePath(box, id));
        assert.match(d.headers.get('content-type') ?? '', /^application\/json/);
        await d.text();
        const r = await box.ws.api(messagePath(box, id, '/raw'));
        assert.equal(r.status, 200);
        assert.equal(r.headers.get('content-type'), 'message/rfc822');
        assertDownloadHeaders(r);
        assert.ok((await r.text()).includes('Content-Type: text/html'));
        // There is no attachment to download; the HTML body is not one.
        await assertNotFound(await box.ws.api(messagePath(box, id, '/attachments/0')), 'attachment 0');
      });
    });

    describe('GET /sandboxes/{sandboxId}/messages/{messageId}/parts/{contentId} (cid: images)', () => {
      const logo = Buffer.from('logo-bytes');
      const banner = Buffer.from('banner-bytes');
      const html =
        '<p><img src="cid:logo@news.test" alt="logo"></p>' +
        '<table><tr><td style="background:url(cid:banner%40news.test)"><img src=\'cid:banner@news.test\'></td></tr></table>';
      let box: Box;
      let id: string;

      before(async () => {
        box = await newBox();
        id = await send(box, {
          from: 'news@news.test',
          to: 'user@x.com',
          subject: 'Newsletter',
          html,
          attachments: [
            { filename: 'logo.png', content: logo, contentType: 'image/png', cid: 'logo@news.test' },
            { filename: 'banner.png', content: banner, contentType: 'image/png', cid: 'banner@news.test' },
            { filename: 'plain.txt', content: 'no cid', contentType: 'text/plain' },
          ],
        });
      });

      it('attachments carry contentId without angle brackets, null for a part without one', async () => {
        const d = await detail(box, id);
        assert.deepEqual(
          d.attachments.map((a: Record<string, unknown>) => [a.fileName, a.contentId]),
          [
            ['logo.png', 'logo@news.test'],
            ['banner.png', 'banner@news.test'],
            ['plain.txt', null],
          ],
        );
      });

      it('serves each part by its Content-ID with the headers of an attachment download', async () => {
        for (const [cid, bytes, name] of [
          ['logo@news.test', logo, 'logo.png'],
          ['banner%40news.test', banner, 'banner.png'],
        ] as const) {
          const res = await box.ws.api(messagePath(box, id, `/parts/${cid}`));
          assert.equal(res.status, 200, cid);
          assert.equal(res.headers.get('content-type'), 'image/png');
          assert.equal(dispositionFileName(res.headers.get('content-disposition')), name);
          assertDownloadHeaders(res);
          assert.ok(Buffer.from(await res.arrayBuffer()).equals(bytes), cid);
        }
      });

      it('404 for a Content-ID the message does not have', async () => {
        await assertNotFound(
          await box.ws.api(messagePath(box, id, '/parts/missing%40news.test')),
          'missing part',
        );
      });

      it('the /html view inlines every cid: part as a data: URL', async () => {
        const res = await box.ws.api(messagePath(box, id, '/html'));
        assert.equal(res.status, 200);
        const body = await res.text();
        assert.ok(!/cid:/i.test(body), body);
        const logoUrl = `data:image/png;base64,${logo.toString('base64')}`;
        const bannerUrl = `data:image/png;base64,${banner.toString('base64')}`;
        assert.ok(body.includes(`<img src="${logoUrl}" alt="logo">`), body);
        assert.ok(body.includes(`background:url(${bannerUrl})`), body);
        assert.ok(body.includes(`<img src='${bannerUrl}'>`), body);
      });

      it('the /html view points a cid: URL with no such part at /parts, relative to itself', async () => {
        const lost = await send(box, {
          from: 'news@news.test',
          to: 'user@x.com',
          subject: 'Lost part',
          html: '<img src="cid:gone@news.test"><img src="cid:odd@news.test">',
          attachments: [
            // A type no data: URL may carry as written is sent as bytes of no type.
            { filename: 'odd.bin', content: 'odd', contentType: 'image/png"><x', cid: 'odd@news.test' },
          ],
        });
        const res = await box.ws.api(messagePath(box, lost, '/html'));
        const body = await res.text();
        assert.ok(body.includes('<img src="parts/gone%40news.test">'), body);
        assert.ok(!body.includes('<x'), body);
        assert.match(body, /<img src="data:[^"]*;base64,b2Rk">/);
        // The frame's document is the /html URL, so the relative URL lands on this message's /parts.
        const resolved = new URL('parts/gone%40news.test', res.url);
        assert.equal(
          resolved.pathname,
          new URL(res.url).pathname.replace(/\/html$/, '/parts/gone%40news.test'),
        );
      });
    });
  });

  describe('400', () => {
    let box: Box;
    let id: string;

    before(async () => {
      box = await newBox();
      id = await send(box, richMail());
    });

    describe('GET /sandboxes/{sandboxId}/messages', () => {
      for (const limit of ['0', '-1', 'abc', '1.5', '']) {
        it(`limit=${JSON.stringify(limit)} is refused naming limit`, async () => {
          await assertValidation(await listRes(box, { limit }), ['limit']);
        });
      }

      for (const cursor of [
        'garbage!',
        'Zm9v',
        Buffer.from(`${Date.now()}:not-a-uuid`).toString('base64url'),
      ]) {
        it(`cursor=${cursor} is refused naming cursor`, async () => {
          await assertValidation(await listRes(box, { cursor }), ['cursor']);
        });
      }

      for (const since of ['yesterday', '2026-01-31', '2026-13-01T00:00:00Z', '1738000000']) {
        it(`since=${since} is refused naming since`, async () => {
          await assertValidation(await listRes(box, { since }), ['since']);
        });
      }

      for (const isRead of ['yes', '1', '']) {
        it(`isRead=${JSON.stringify(isRead)} is refused naming isRead`, async () => {
          await assertValidation(await listRes(box, { isRead }), ['isRead']);
        });
      }

      it('q over 200 characters is refused naming q; exactly 200 is accepted', async () => {
        await assertValidation(await listRes(box, { q: 'a'.repeat(201) }), ['q']);
        assert.deepEqual(await listIds(box, { q: 'a'.repeat(200) }), []);
      });

      it('a capturedFor over 320 characters is refused naming capturedFor', async () => {
        await assertValidation(await listRes(box, { capturedFor: `${'a'.repeat(310)}@example.com` }), [
          'capturedFor',
        ]);
      });

      it('reports several invalid fields at once', async () => {
        await assertValidation(await listRes(box, { since: 'yesterday', isRead: 'yes', limit: '0' }), [
          'since',
          'isRead',
          'limit',
        ]);
      });
    });

    describe('PATCH /sandboxes/{sandboxId}/messages/{messageId}', () => {
      const bodies: Array<[string, unknown]> = [
        ['{}', {}],
        ['{"isRead":"yes"}', { isRead: 'yes' }],
        ['{"isRead":"true"}', { isRead: 'true' }],
        ['{"isRead":null}', { isRead: null }],
        ['{"isRead":1}', { isRead: 1 }],
        ['[]', []],
      ];
      for (const [label, body] of bodies) {
        it(`${label} is refused naming isRead, and nothing changes`, async () => {
          const res = await patch(box, id, body);
          await assertValidation(res, label === '[]' ? ['(root)'] : ['isRead']);
          assert.equal((await detail(box, id)).isRead, false);
        });
      }

      it('a read message stays read after a refused PATCH', async () => {
        await assertNoContent(await patch(box, id, { isRead: true }));
        try {
          await assertValidation(await patch(box, id, { isRead: 'no' }), ['isRead']);
          assert.equal((await detail(box, id)).isRead, true);
        } finally {
          await assertNoContent(await patch(box, id, { isRead: false }));
        }
      });

      it('invalid JSON is a 400 problem and nothing changes', async () => {
        const res = await box.ws.api(messagePath(box, id), { method: 'PATCH', body: '{"isRead": tru' });
        await assertProblem(res, 400, 'validation-error');
        assert.equal((await detail(box, id)).isRead, false);
      });
    });

    describe('GET .../attachments/{index}', () => {
      for (const index of ['-1', 'abc', '1.5', '1e2']) {
        it(`index ${index} is refused naming index`, async () => {
          await assertValidation(await box.ws.api(messagePath(box, id, `/attachments/${index}`)), ['index']);
        });
      }
    });

    describe('malformed ids in the path', () => {
      it('a malformed sandbox id is refused naming sandboxId on every endpoint', async () => {
        for (const e of endpoints('not-a-uuid', randomUUID())) {
          await assertValidation(await call(box.ws, e), ['sandboxId']);
        }
      });

      it('a malformed message id is refused naming messageId on every message endpoint', async () => {
        for (const e of messageEndpoints(box.sb.id, 'not-a-uuid')) {
          await assertValidation(await call(box.ws, e), ['messageId']);
        }
        assert.deepEqual(await listIds(box), [id]);
      });
    });
  });

  describe('401', () => {
    let box: Box;
    let id: string;

    before(async () => {
      box = await newBox();
      id = await send(box, richMail());
    });

    async function assertUnchanged(): Promise<void> {
      const d = await detail(box, id);
      assert.equal(d.isRead, false);
      assert.deepEqual(await listIds(box), [id]);
    }

    it('every message endpoint refuses a request without a key, and nothing changes', async () => {
      for (const e of endpoints(box.sb.id, id)) {
        await assertUnauthorized(await callWith({}, e), /No API key/);
      }
      await assertUnchanged();
    });

    it('every message endpoint refuses a revoked key, and nothing changes', async () => {
      const created = await box.ws.api('/keys', {
        method: 'POST',
        body: JSON.stringify({ label: 'doomed' }),
      });
      assert.equal(created.status, 201);
      const { id: keyId, key } = (await created.json()) as { id: string; key: string };
      const ok = await callWith({ authorization: `Bearer ${key}` }, endpoints(box.sb.id, id)[0]!);
      assert.equal(ok.status, 200, 'the key works before it is revoked');
      await ok.text();
      await assertNoContent(await box.ws.api(`/keys/${keyId}`, { method: 'DELETE' }));
      for (const e of endpoints(box.sb.id, id)) {
        await assertUnauthorized(await callWith({ authorization: `Bearer ${key}` }, e), /revoked/);
      }
      await assertUnchanged();
    });

    it('a well-formed unknown key is refused (Bearer and X-Api-Key)', async () => {
      const [listEp, detailEp] = endpoints(box.sb.id, id);
      await assertUnauthorized(
        await callWith({ authorization: `Bearer ${generateApiKey()}` }, listEp!),
        /not recognised/,
      );
      await assertUnauthorized(
        await callWith({ 'x-api-key': generateApiKey() }, detailEp!),
        /not recognised/,
      );
      await assertUnchanged();
    });
  });

  describe('404', () => {
    it('an unknown sandbox is 404 on every endpoint', async () => {
      const ws = await server.workspace();
      for (const e of endpoints(randomUUID(), randomUUID())) {
        await assertNotFound(await call(ws, e), `${e.method} ${e.path}`);
      }
    });

    it('an unknown message is 404 on every message endpoint', async () => {
      const box = await newBox();
      const id = await send(box, { from: 'a@x.com', to: 'b@x.com', subject: 's', text: 't' });
      for (const e of messageEndpoints(box.sb.id, randomUUID())) {
        await assertNotFound(await call(box.ws, e), `${e.method} ${e.path}`);
      }
      assert.deepEqual(await listIds(box), [id]);
    });

    it('attachment index out of range is 404', async () => {
      const box = await newBox();
      const id = await send(box, richMail());
      for (const index of ['3', '10000']) {
        await assertNotFound(await box.ws.api(messagePath(box, id, `/attachments/${index}`)), index);
      }
    });

    it("another workspace's sandbox and message are 404 on every endpoint, and stay unchanged", async () => {
      const owner = await newBox();
      const id = await send(owner, richMail());
      const intruder = await newBox();
      // Their sandbox with its message id...
      for (const e of endpoints(owner.sb.id, id)) {
        await assertNotFound(await call(intruder.ws, e), `${e.method} ${e.path}`);
      }
      // ...and the message id under the intruder's own sandbox.
      for (const e of messageEndpoints(intruder.sb.id, id)) {
        await assertNotFound(await call(intruder.ws, e), `own sandbox: ${e.method} ${e.path}`);
      }
      assert.deepEqual(await listIds(owner), [id]);
      const d = await detail(owner, id);
      assert.equal(d.isRead, false);
      assert.equal(d.attachments.length, 3);
    });

    it('a message of another sandbox of the same workspace is 404 under this sandbox', async () => {
      const a = await newBox();
      const b = await newBox(a.ws);
      const id = await send(a, { from: 'a@x.com', to: 'b@x.com', subject: 'in a', text: 'a' });
      for (const e of messageEndpoints(b.sb.id, id)) {
        await assertNotFound(await call(a.ws, e), `${e.method} ${e.path}`);
      }
      assert.deepEqual(await listIds(a), [id]);
      assert.equal((await detail(a, id)).isRead, false);
    });

    it('a deleted sandbox is 404 on every endpoint', async () => {
      const box = await newBox();
      const id = await send(box, richMail());
      await assertNoContent(await box.ws.api(`/sandboxes/${box.sb.id}`, { method: 'DELETE' }));
      for (const e of endpoints(box.sb.id, id)) {
        await assertNotFound(await call(box.ws, e), `${e.method} ${e.path}`);
      }
    });

    it('an expired ephemeral sandbox is 404 on every endpoint', async () => {
      const box = await newBox(undefined, { name: 'short-lived', ephemeral: true, ttlMinutes: 1 });
      const id = await send(box, richMail());
      assert.deepEqual(await listIds(box), [id]);
      assert.equal((await detail(box, id)).id, id);
      server.clock.advance(2 * 60_000);
      for (const e of endpoints(box.sb.id, id)) {
        await assertNotFound(await call(box.ws, e), `${e.method} ${e.path}`);
      }
    });
  });
});
