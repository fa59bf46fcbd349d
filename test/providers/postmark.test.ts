// The postmark SDK pointed at sandtrap by requestHost: /email, /email/batch and /email/withTemplate land as
// Messages; a wrong token is the SDK's InvalidAPIKeyError, a body Postmark refuses its InvalidEmailRequestError.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import * as postmark from 'postmark';
import { listMessages } from '../helpers/mail.ts';
import { describeEachStore } from '../helpers/stores.ts';
import {
  assertFullSend,
  header,
  HTML,
  PNG,
  readBack,
  refusal,
  serverPerSuite,
  TEXT,
  waitForEmailWhile,
} from './helpers.ts';

/** The SDK's documented options: requestHost without scheme, useHttps off for a plain-http listener. */
function client(baseUrl: string, token: string): postmark.ServerClient {
  const url = new URL(baseUrl);
  return new postmark.ServerClient(token, {
    useHttps: url.protocol === 'https:',
    requestHost: `${url.host}${url.pathname}`,
  });
}

describeEachStore('Postmark email API', (getStore) => {
  const suite = serverPerSuite(getStore);

  it('wait_for_email over MCP returns a Postmark send with its code and attachments', async () => {
    const sb = await suite.ws.createSandbox();
    const got = await waitForEmailWhile(suite.server, suite.ws, sb.id, () =>
      client(sb.providerBaseUrls.postmark, sb.smtpPassword).sendEmail({
        From: 'app@example.test',
        To: 'ann@example.test',
        Subject: 'Your sign-in code',
        TextBody: TEXT,
        HtmlBody: HTML,
        Attachments: [
          {
            Name: 'logo.png',
            Content: PNG.toString('base64'),
            ContentType: 'image/png',
            ContentID: 'cid:logo@app',
          },
        ],
      }),
    );
    assert.equal(got.status, 'received');
    assert.equal(got.email.otp.code, '493817');
    assert.deepEqual(
      got.email.attachments.map((a) => [a.file_name, a.content_type]),
      [['logo.png', 'image/png']],
    );
  });

  it('captures /email with cc, bcc, reply-to, an inline image, an attachment, headers, tag and metadata', async () => {
    const sb = await suite.ws.createSandbox();
    const sent = await client(sb.providerBaseUrls.postmark, sb.smtpPassword).sendEmail({
      From: 'The App <app@example.test>',
      To: 'ann@example.test',
      Cc: 'cc@example.test',
      Bcc: 'audit@example.test',
      ReplyTo: 'support@example.test',
      Subject: 'Your sign-in code',
      TextBody: TEXT,
      HtmlBody: HTML,
      Headers: [{ Name: 'X-Entity-Ref-ID', Value: 'ref-1' }],
      Tag: 'signin',
      Metadata: { userId: '42' },
      MessageStream: 'outbound',
      Attachments: [
        {
          Name: 'logo.png',
          Content: PNG.toString('base64'),
          ContentType: 'image/png',
          ContentID: 'cid:logo@app',
        },
        {
          Name: 'terms.pdf',
          Content: Buffer.from('%PDF-1.4 terms').toString('base64'),
          ContentType: 'application/pdf',
          ContentID: null as never,
        },
      ],
    });
    assert.equal(sent.ErrorCode, 0);
    assert.equal(sent.Message, 'OK');
    assert.equal(sent.To, 'ann@example.test');
    assert.ok(!Number.isNaN(Date.parse(sent.SubmittedAt)));
    const [got] = await readBack(suite.ws, sb.id);
    assert.ok(got !== undefined);
    assert.equal(sent.MessageID, got.detail.id);
    assertFullSend(got, 'postmark');
    assert.deepEqual(header(got.detail, 'x-sandtrap-provider-tag'), ['signin']);
    assert.deepEqual(header(got.detail, 'x-sandtrap-provider-message-stream'), ['outbound']);
    assert.deepEqual(JSON.parse(header(got.detail, 'x-sandtrap-provider-metadata')[0] ?? ''), {
      userId: '42',
    });
  });

  it('captures a batch, one entry per message, and a refused message in it gets its own error', async () => {
    const sb = await suite.ws.createSandbox();
    const results = await client(sb.providerBaseUrls.postmark, sb.smtpPassword).sendEmailBatch([
      { From: 'app@example.test', To: 'a@example.test', Subject: 'one', TextBody: 'first' },
      { From: 'app@example.test', To: 'b@example.test', Subject: 'two' },
      { From: 'app@example.test', To: 'c@example.test', Subject: 'three', HtmlBody: '<p>third</p>' },
    ]);
    assert.deepEqual(
      results.map((r) => r.ErrorCode),
      [0, 300, 0],
    );
    assert.match(results[1]?.Message ?? '', /TextBody or HtmlBody/);
    const subjects = (await listMessages(suite.ws, sb.id)).map((m) => m.subject).sort();
    assert.deepEqual(subjects, ['one', 'three']);
  });

  it('stores a template send with its model, whose code can be read', async () => {
    const sb = await suite.ws.createSandbox();
    const sent = await client(sb.providerBaseUrls.postmark, sb.smtpPassword).sendEmailWithTemplate({
      From: 'app@example.test',
      To: 'ann@example.test',
      TemplateAlias: 'sign-in',
      TemplateModel: { name: 'Ann', code: '771204' },
    });
    assert.equal(sent.ErrorCode, 0);
    const [got] = await readBack(suite.ws, sb.id);
    assert.ok(got !== undefined);
    assert.deepEqual(header(got.detail, 'x-sandtrap-provider-template-alias'), ['sign-in']);
    assert.deepEqual(JSON.parse(header(got.detail, 'x-sandtrap-provider-template-model')[0] ?? ''), {
      name: 'Ann',
      code: '771204',
    });
    assert.equal(got.detail.otp?.code, '771204');
  });

  it('answers a wrong token with InvalidAPIKeyError (401) and a refused body with InvalidEmailRequestError (422)', async () => {
    const sb = await suite.ws.createSandbox();
    const wrong = await refusal<postmark.Errors.PostmarkError>(
      client(sb.providerBaseUrls.postmark, `${sb.smtpPassword}x`).sendEmail({
        From: 'app@example.test',
        To: 'ann@example.test',
        Subject: 's',
        TextBody: 't',
      }),
    );
    assert.ok(wrong instanceof postmark.Errors.InvalidAPIKeyError, wrong.constructor.name);
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.code, 10);
    const noRecipient = await refusal<postmark.Errors.PostmarkError>(
      client(sb.providerBaseUrls.postmark, sb.smtpPassword).sendEmail({
        From: 'app@example.test',
        Subject: 's',
        TextBody: 't',
      }),
    );
    assert.ok(noRecipient instanceof postmark.Errors.InvalidEmailRequestError, noRecipient.constructor.name);
    assert.equal(noRecipient.statusCode, 422);
    assert.match(noRecipient.message, /Zero recipients/);
    assert.deepEqual(await listMessages(suite.ws, sb.id), []);
  });
});
