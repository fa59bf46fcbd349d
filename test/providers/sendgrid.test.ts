// @sendgrid/mail pointed at sandtrap by the client's baseUrl: sends land as Messages of the sandbox whose
// smtpPassword is the key; a wrong key or a body SendGrid refuses gets SendGrid's error and stores nothing.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Client } from '@sendgrid/client';
import { MailService } from '@sendgrid/mail';
import { listMessages } from '../helpers/mail.ts';
import { describeEachStore } from '../helpers/stores.ts';
import {
  assertFullSend,
  header,
  HTML,
  PNG,
  readBack,
  serverPerSuite,
  TEXT,
  waitForEmailWhile,
} from './helpers.ts';

function mailer(baseUrl: string, key: string) {
  const client = new Client();
  client.setApiKey(key);
  // After setApiKey, which resets the base URL to SendGrid's region host.
  client.setDefaultRequest('baseUrl', baseUrl);
  const mail = new MailService();
  mail.setClient(client);
  return mail;
}

describeEachStore('SendGrid v3 mail send', (getStore) => {
  const suite = serverPerSuite(getStore);

  it('wait_for_email over MCP returns a SendGrid send with its code and attachments', async () => {
    const sb = await suite.ws.createSandbox();
    const got = await waitForEmailWhile(suite.server, suite.ws, sb.id, () =>
      mailer(sb.providerBaseUrls.sendgrid, sb.smtpPassword).send({
        from: 'app@example.test',
        to: 'ann@example.test',
        subject: 'Your sign-in code',
        text: TEXT,
        html: HTML,
        attachments: [
          {
            content: PNG.toString('base64'),
            filename: 'logo.png',
            type: 'image/png',
            disposition: 'inline',
            contentId: 'logo@app',
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

  it('captures a send with cc, bcc, reply-to, an inline image, an attachment, headers and categories', async () => {
    const sb = await suite.ws.createSandbox();
    assert.equal(sb.providerBaseUrls.sendgrid, `${suite.server.apiUrl}/providers/sendgrid`);
    const [response] = await mailer(sb.providerBaseUrls.sendgrid, `SG.${sb.smtpPassword}`).send({
      from: { email: 'app@example.test', name: 'The App' },
      to: 'ann@example.test',
      cc: 'cc@example.test',
      bcc: 'audit@example.test',
      replyTo: 'support@example.test',
      subject: 'Your sign-in code',
      text: TEXT,
      html: HTML,
      attachments: [
        {
          content: PNG.toString('base64'),
          filename: 'logo.png',
          type: 'image/png',
          disposition: 'inline',
          contentId: 'logo@app',
        },
        {
          content: Buffer.from('%PDF-1.4 terms').toString('base64'),
          filename: 'terms.pdf',
          type: 'application/pdf',
        },
      ],
      headers: { 'X-Entity-Ref-ID': 'ref-1' },
      categories: ['signin', 'otp'],
      customArgs: { userId: '42' },
    });
    assert.equal(response.statusCode, 202);
    const [got] = await readBack(suite.ws, sb.id);
    assert.ok(got !== undefined);
    assert.equal(response.headers['x-message-id'], got.detail.id, 'X-Message-Id is the stored Message id');
    assertFullSend(got, 'sendgrid');
    assert.deepEqual(header(got.detail, 'x-sandtrap-provider-category'), ['signin', 'otp']);
    assert.deepEqual(JSON.parse(header(got.detail, 'x-sandtrap-provider-custom-args')[0] ?? ''), {
      userId: '42',
    });
  });

  it('stores one Message per personalization, with its own subject and substitutions', async () => {
    const sb = await suite.ws.createSandbox();
    await mailer(sb.providerBaseUrls.sendgrid, `SG.${sb.smtpPassword}`).send({
      from: 'app@example.test',
      subject: 'Hello {{name}}',
      content: [{ type: 'text/plain', value: 'Hi {{name}}, welcome.' }],
      personalizations: [
        { to: [{ email: 'a@example.test' }], substitutions: { name: 'Ann' } },
        { to: [{ email: 'b@example.test' }], substitutions: { name: 'Bob' }, subject: 'Hey {{name}}' },
      ],
    } as never);
    const got = (await readBack(suite.ws, sb.id))
      .map((m) => [m.detail.subject, m.detail.textBody?.trim()])
      .sort();
    assert.deepEqual(got, [
      ['Hello Ann', 'Hi Ann, welcome.'],
      ['Hey Bob', 'Hi Bob, welcome.'],
    ]);
  });

  it('answers a wrong key with 401 in SendGrid’s shape (ResponseError) and stores nothing', async () => {
    const sb = await suite.ws.createSandbox();
    const send = mailer(sb.providerBaseUrls.sendgrid, `SG.${sb.smtpPassword}x`).send({
      from: 'app@example.test',
      to: 'ann@example.test',
      subject: 's',
      text: 't',
    });
    const err = await send.then(
      () => assert.fail('refused'),
      (e: unknown) => e as { code: number; response: { body: { errors: Array<{ message: string }> } } },
    );
    assert.equal(err.code, 401);
    assert.equal(err.constructor.name, 'ResponseError');
    assert.match(err.response.body.errors[0]?.message ?? '', /authorization grant is invalid/);
    assert.deepEqual(await listMessages(suite.ws, sb.id), []);
  });

  it('refuses what SendGrid refuses (no from, no content, bad JSON) with 400 and the field', async () => {
    const sb = await suite.ws.createSandbox();
    const post = (body: string) =>
      fetch(`${sb.providerBaseUrls.sendgrid}/v3/mail/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sb.smtpPassword}`, 'content-type': 'application/json' },
        body,
      });
    const noFrom = await post(
      JSON.stringify({
        personalizations: [{ to: [{ email: 'a@example.test' }] }],
        subject: 's',
        content: [{ type: 'text/plain', value: 'x' }],
      }),
    );
    assert.equal(noFrom.status, 400);
    assert.equal(((await noFrom.json()) as any).errors[0].field, 'from.email');
    const noContent = await post(
      JSON.stringify({
        from: { email: 'app@example.test' },
        personalizations: [{ to: [{ email: 'a@example.test' }] }],
        subject: 's',
      }),
    );
    assert.equal(noContent.status, 400);
    assert.equal(((await noContent.json()) as any).errors[0].field, 'content');
    const badJson = await post('{"from":');
    assert.equal(badJson.status, 400);
    assert.ok(Array.isArray(((await badJson.json()) as any).errors));
    assert.deepEqual(await listMessages(suite.ws, sb.id), []);
  });
});
