// mailgun.js pointed at sandtrap by its `url` option: messages (multipart, with files) and messages.mime land as
// Messages; a wrong key is the SDK's MailgunAPIError with status 401, a body Mailgun refuses its 400.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import FormData from 'form-data';
import Mailgun from 'mailgun.js';
import nodemailer from 'nodemailer';
import { listMessages } from '../helpers/mail.ts';
import { describeEachStore } from '../helpers/stores.ts';
import {
  assertFullSend,
  header,
  PNG,
  readBack,
  refusal,
  serverPerSuite,
  TEXT,
  waitForEmailWhile,
} from './helpers.ts';

const client = (url: string, key: string) => new Mailgun(FormData).client({ username: 'api', key, url });

type MailgunError = { status: number; details: string; type: string };

describeEachStore('Mailgun messages API', (getStore) => {
  const suite = serverPerSuite(getStore);

  it('wait_for_email over MCP returns a Mailgun send with its code and attachments', async () => {
    const sb = await suite.ws.createSandbox();
    const got = await waitForEmailWhile(suite.server, suite.ws, sb.id, () =>
      client(sb.providerBaseUrls.mailgun, sb.smtpPassword).messages.create('mg.example.test', {
        from: 'app@example.test',
        to: ['ann@example.test'],
        subject: 'Your sign-in code',
        text: TEXT,
        attachment: {
          filename: 'terms.pdf',
          data: Buffer.from('%PDF-1.4 terms'),
          contentType: 'application/pdf',
        },
      }),
    );
    assert.equal(got.status, 'received');
    assert.equal(got.email.otp.code, '493817');
    assert.deepEqual(
      got.email.attachments.map((a) => [a.file_name, a.content_type]),
      [['terms.pdf', 'application/pdf']],
    );
  });

  it('captures a multipart send with cc, bcc, reply-to, an inline image, an attachment, headers and tags', async () => {
    const sb = await suite.ws.createSandbox();
    const sent = await client(sb.providerBaseUrls.mailgun, sb.smtpPassword).messages.create(
      'mg.example.test',
      {
        from: 'The App <app@example.test>',
        to: ['ann@example.test'],
        cc: 'cc@example.test',
        bcc: 'audit@example.test',
        'h:Reply-To': 'support@example.test',
        'h:X-Entity-Ref-ID': 'ref-1',
        subject: 'Your sign-in code',
        text: TEXT,
        // Mailgun's inline images are named by file name.
        html: '<p>Your sign-in code is <b>493817</b>.</p><img src="cid:logo@app">',
        inline: { filename: 'logo@app', data: PNG, contentType: 'image/png' },
        attachment: {
          filename: 'terms.pdf',
          data: Buffer.from('%PDF-1.4 terms'),
          contentType: 'application/pdf',
        },
        'o:tag': ['signin', 'otp'],
        'v:user-id': '42',
      },
    );
    assert.equal(sent.status, 200);
    assert.equal(sent.message, 'Queued. Thank you.');
    const [got] = await readBack(suite.ws, sb.id);
    assert.ok(got !== undefined);
    assert.equal(sent.id, `<${got.detail.id}@mg.example.test>`);
    assertFullSend(got, 'mailgun', 'logo@app');
    assert.deepEqual(header(got.detail, 'x-sandtrap-provider-tag'), ['signin', 'otp']);
    assert.deepEqual(JSON.parse(header(got.detail, 'x-sandtrap-provider-variables')[0] ?? ''), {
      'user-id': '42',
    });
  });

  it('captures messages.mime as sent, for the recipients given beside it', async () => {
    const sb = await suite.ws.createSandbox();
    const built = await nodemailer.createTransport({ streamTransport: true, buffer: true }).sendMail({
      from: 'app@example.test',
      to: 'ann@example.test',
      subject: 'Built by the app',
      text: 'Your code is 118822.',
    });
    const sent = await client(sb.providerBaseUrls.mailgun, sb.smtpPassword).messages.create(
      'mg.example.test',
      {
        to: ['ann@example.test', 'audit@example.test'],
        message: built.message as Buffer,
      },
    );
    assert.equal(sent.status, 200);
    const [got] = await readBack(suite.ws, sb.id);
    assert.ok(got !== undefined);
    assert.equal(got.detail.subject, 'Built by the app');
    assert.equal(got.detail.otp?.code, '118822');
    assert.deepEqual([...got.detail.capturedFor].sort(), ['ann@example.test', 'audit@example.test']);
    assert.deepEqual(header(got.detail, 'x-sandtrap-provider'), ['mailgun']);
  });

  it('answers a wrong key with 401 and a send without from with 400 (MailgunAPIError), storing nothing', async () => {
    const sb = await suite.ws.createSandbox();
    const wrong = await refusal<MailgunError>(
      client(sb.providerBaseUrls.mailgun, `${sb.smtpPassword}x`).messages.create('mg.example.test', {
        from: 'app@example.test',
        to: 'ann@example.test',
        subject: 's',
        text: 't',
      }),
    );
    assert.equal(wrong.type, 'MailgunAPIError');
    assert.equal(wrong.status, 401);
    const noFrom = await refusal<MailgunError>(
      client(sb.providerBaseUrls.mailgun, sb.smtpPassword).messages.create('mg.example.test', {
        to: 'ann@example.test',
        subject: 's',
        text: 't',
      } as never),
    );
    assert.equal(noFrom.status, 400);
    assert.match(noFrom.details, /'from' parameter is missing/);
    assert.deepEqual(await listMessages(suite.ws, sb.id), []);
  });
});
