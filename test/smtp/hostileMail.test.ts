// Mail that used to be refused for its content or parsed in part, over both SMTP ports (nodemailer) on every
// store: lone UTF-16 surrogates from encoded-words, an out-of-range character reference in HTML-only mail,
// 1,200 parts, 1,000 and 10,000 nested multiparts, a 1.3 MB header section, a message that is one 4 MB line,
// and one that ends inside an inline message/rfc822 header block (mailparser never finished it). Each is
// answered 250, its detail reads back over REST as valid JSON of well-formed strings, and /raw is byte-exact.
// Previews and extraction read HTML through one HTML-to-text (checked against extract_from_body over MCP).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import nodemailer, { type Transporter } from 'nodemailer';
import { sandboxTransport } from '../helpers/mail.ts';
import { freePort } from '../helpers/process.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { connectHttp, ok } from '../mcp/client.ts';

const DOMAIN = 'capture.localhost';
const SENDER = 'sender@example.org';
/** An encoded-word that decodes to a lone high surrogate (0xD800 as UTF-16BE). */
const LONE = '=?UTF-16BE?B?2AA=?=';

type Detail = Record<string, any>;

/** Every string in a JSON value, recursively. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

const crlf = (lines: string[]) => Buffer.from(`${lines.join('\r\n')}\r\n`, 'utf8');

function surrogateMail(): Buffer {
  return crlf([
    `From: ${LONE} <${SENDER}>`,
    `To: ${LONE} <rcpt@example.net>`,
    `Subject: ${LONE}`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b1"',
    '',
    '--b1',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'body text',
    '--b1',
    `Content-Type: application/octet-stream; name="${LONE}"`,
    `Content-Disposition: attachment; filename="${LONE}"`,
    'Content-Transfer-Encoding: base64',
    '',
    'aGVsbG8=',
    '--b1--',
  ]);
}

function manyParts(n: number): Buffer {
  const lines = [
    `From: ${SENDER}`,
    'Subject: many parts',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="BB"',
    '',
    '--BB',
    'Content-Type: text/plain',
    '',
    'the text part',
  ];
  for (let i = 0; i < n; i++) {
    lines.push(
      '--BB',
      'Content-Type: application/octet-stream',
      `Content-Disposition: attachment; filename="f${i}.bin"`,
      '',
      `data${i}`,
    );
  }
  lines.push('--BB--');
  return crlf(lines);
}

function deepNest(levels: number): Buffer {
  const lines = [
    `From: ${SENDER}`,
    'Subject: deep',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b0"',
    '',
  ];
  for (let i = 1; i < levels; i++)
    lines.push(`--b${i - 1}`, `Content-Type: multipart/mixed; boundary="b${i}"`, '');
  lines.push(`--b${levels - 1}`, 'Content-Type: text/plain', '', 'the deep text part', `--b${levels - 1}--`);
  for (let i = levels - 2; i >= 0; i--) lines.push(`--b${i}--`);
  return crlf(lines);
}

function hugeHeaders(bytes: number): { raw: Buffer; fields: number } {
  const lines = [`From: ${SENDER}`, 'Subject: huge headers'];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `X-Filler-${i}: ${'v'.repeat(200)}`;
    lines.push(line);
    size += line.length + 2;
  }
  lines.push('Content-Type: text/plain', '', 'body after huge headers');
  return { raw: crlf(lines), fields: lines.length - 2 };
}

/** One 4 MB line of bytes that are neither a line break nor a colon: no header field, no body. */
function oneLine(bytes: number): Buffer {
  const out = Buffer.alloc(bytes + 2);
  let seed = 7;
  for (let i = 0; i < bytes; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const b = 0x20 + ((seed >>> 16) % 0xdf);
    out[i] = b === 0x3a ? 0x3b : b;
  }
  out.write('\r\n', bytes, 'latin1');
  return out;
}

const fold = (text: string) => text.replace(/\s+/g, ' ').trim();

describeEachStore('hostile mail over SMTP', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let sandbox: Record<string, any>;
  let submission: Transporter;
  let inbound: Transporter;
  let mcp: Client;
  let n = 0;

  before(async () => {
    server = await startTestServer(getStore(), {
      RATE_LIMITS: 'off',
      SMTP_INBOUND_PORT: String(await freePort()),
    });
    ws = await server.workspace();
    sandbox = await ws.createSandbox({ name: 'hostile' });
    // mailparser never finished some messages: without a reply the send fails here instead of hanging.
    const timeouts = { socketTimeout: 30_000 };
    submission = sandboxTransport(server.ports.smtp, sandbox, timeouts);
    inbound = nodemailer.createTransport({
      host: '127.0.0.1',
      port: server.ports.smtpInbound as number,
      secure: false,
      tls: { rejectUnauthorized: false },
      ...timeouts,
    });
    mcp = await connectHttp(server.apiUrl, ws.key);
  });
  after(async () => {
    submission.close();
    inbound.close();
    await mcp.close();
    await server.close();
  });

  const ports = [
    { name: 'submission port', send: () => submission, rcpt: (tag: string) => `${tag}@example.net` },
    {
      name: 'inbound port',
      send: () => inbound,
      rcpt: (tag: string) => `${tag}@${sandbox.id}.${DOMAIN}`,
    },
  ];

  for (const port of ports) {
    describe(port.name, () => {
      /** Sends `raw`, expects 250, and returns the stored detail, checked readable and raw byte-exact. */
      async function deliver(raw: Buffer): Promise<Detail> {
        const rcpt = port.rcpt(`hostile-${++n}`);
        const info = await port.send().sendMail({ envelope: { from: SENDER, to: [rcpt] }, raw });
        assert.match(String(info.response), /^250 /);
        const list = await ws.api(
          `/sandboxes/${sandbox.id}/messages?capturedFor=${encodeURIComponent(rcpt)}`,
        );
        assert.equal(list.status, 200);
        const items = ((await list.json()) as { items: Detail[] }).items;
        assert.equal(items.length, 1, 'stored once');
        const id = (items[0] as Detail).id as string;
        const res = await ws.api(`/sandboxes/${sandbox.id}/messages/${id}`);
        assert.equal(res.status, 200);
        const detail = JSON.parse(await res.text()) as Detail;
        for (const s of strings(detail))
          assert.ok(s.isWellFormed(), `well-formed: ${JSON.stringify(s.slice(0, 80))}`);
        const back = await ws.api(`/sandboxes/${sandbox.id}/messages/${id}/raw`);
        assert.equal(back.status, 200);
        assert.ok(Buffer.from(await back.arrayBuffer()).equals(raw), '/raw is byte-exact');
        return { ...detail, summary: items[0] };
      }

      async function attachment(detail: Detail, index: number): Promise<Buffer> {
        const res = await ws.api(`/sandboxes/${sandbox.id}/messages/${detail.id}/attachments/${index}`);
        assert.equal(res.status, 200);
        return Buffer.from(await res.arrayBuffer());
      }

      it('a lone surrogate in the Subject, display names and an attachment file name becomes U+FFFD', async () => {
        const d = await deliver(surrogateMail());
        assert.equal(d.subject, '\uFFFD');
        assert.equal(d.from, `\uFFFD <${SENDER}>`);
        assert.deepEqual(d.to, ['\uFFFD <rcpt@example.net>']);
        assert.equal(d.headers.find((h: Detail) => h.name === 'Subject')?.value, '\uFFFD');
        assert.equal(d.textBody, 'body text');
        assert.equal(d.attachments.length, 1);
        assert.equal(d.attachments[0].fileName, '\uFFFD');
        assert.equal((await attachment(d, 0)).toString(), 'hello');
        assert.equal(d.parseError, null);
      });

      it('HTML-only mail with &#99999999999; is stored as sent; the preview shows U+FFFD as a browser does', async () => {
        const html = '<p>Code &#99999999999; here</p>';
        const d = await deliver(
          crlf([`From: ${SENDER}`, 'Subject: entity', 'Content-Type: text/html; charset=utf-8', '', html]),
        );
        assert.equal(d.htmlBody, `${html}\n`);
        assert.equal(d.textBody, null);
        assert.equal(d.summary.preview, 'Code \uFFFD here');
        assert.equal(d.parseError, null);
      });

      it('1,200 parts: every attachment is listed and the last one downloads', async () => {
        const d = await deliver(manyParts(1200));
        assert.equal(d.textBody, 'the text part');
        assert.equal(d.summary.attachmentCount, 1200);
        assert.equal(d.attachments.length, 1200);
        for (const [i, a] of (d.attachments as Detail[]).entries()) {
          assert.deepEqual(a, {
            index: i,
            fileName: `f${i}.bin`,
            contentId: null,
            contentType: 'application/octet-stream',
            sizeBytes: `data${i}`.length,
          });
        }
        assert.equal((await attachment(d, 1199)).toString(), 'data1199');
        assert.equal(d.parseError, null);
      });

      for (const levels of [1000, 10_000]) {
        it(`${levels.toLocaleString('en')} nested multiparts: the text part is kept`, async () => {
          const d = await deliver(deepNest(levels));
          assert.equal(d.subject, 'deep');
          assert.equal(d.textBody, 'the deep text part');
          assert.deepEqual(d.attachments, []);
          assert.equal(d.parseError, null);
        });
      }

      it('a 1.3 MB header section: every header field and the body are kept', async () => {
        const { raw, fields } = hugeHeaders(1_300_000);
        const d = await deliver(raw);
        assert.equal(d.headers.length, fields);
        assert.equal(d.subject, 'huge headers');
        assert.equal(d.headers.at(-1).name, 'Content-Type');
        assert.equal(d.textBody, 'body after huge headers\n');
        assert.equal(d.parseError, null);
      });

      it('a message that is one 4 MB line is stored unparsed with its raw source and parseError', async () => {
        const d = await deliver(oneLine(4 * 1024 * 1024));
        assert.equal(typeof d.parseError, 'string');
        assert.match(d.parseError, /header field.*not kept/);
        assert.equal(d.from, SENDER);
        assert.deepEqual(d.to, []);
        assert.equal(d.subject, null);
        assert.equal(d.textBody, null);
        assert.equal(d.htmlBody, null);
        assert.deepEqual(d.headers, []);
        assert.deepEqual(d.attachments, []);
      });

      it('a message ending inside the header block of an inline message/rfc822 part is stored', async () => {
        const d = await deliver(
          crlf([
            `From: ${SENDER}`,
            'Subject: cut short',
            'Content-Type: message/rfc822',
            'Content-Disposition: inline',
          ]),
        );
        assert.equal(d.subject, 'cut short');
        assert.equal(d.textBody, null);
        assert.equal(d.parseError, null);
      });

      /** The visible text extract_from_body reads from the message's HTML, whitespace folded. */
      async function extractedText(d: Detail): Promise<string> {
        const text = await ok(mcp, 'extract_from_body', {
          sandbox_id: sandbox.id,
          email_id: d.id,
          mode: 'text',
        });
        assert.equal(text.matches.length, 1);
        return fold(text.matches[0].value as string);
      }

      it('the preview of HTML-only mail is the text extract_from_body reads (one HTML-to-text)', async () => {
        const html =
          '<html><head><title>t</title></head><body><p>Caf&eacute; &rsquo;ok&rsquo; &amp;lt;b&amp;gt;</p>' +
          '<!-- a > b --><div>x&#8203;y &hellip; <textarea>hidden</textarea>end</div></body></html>';
        const d = await deliver(
          crlf([`From: ${SENDER}`, 'Subject: one html-to-text', 'Content-Type: text/html', '', html]),
        );
        assert.equal(d.summary.preview, 'Café ’ok’ &lt;b&gt; xy … end');
        assert.equal(d.summary.preview, await extractedText(d));
      });

      it('HTML-to-text reads the first 1,000,000 characters of the HTML, for previews and extraction', async () => {
        const html = `<p>start</p>${'<i></i>'.repeat(150_000)}<p>past the bound</p>`;
        const d = await deliver(
          crlf([`From: ${SENDER}`, 'Subject: bounded', 'Content-Type: text/html', '', html]),
        );
        assert.equal(d.htmlBody, `${html}\n`);
        assert.equal(d.summary.preview, 'start');
        assert.equal(await extractedText(d), 'start');
      });
    });
  }
});
