// The resend SDK pointed at sandtrap by its baseUrl option: /emails and /emails/batch land as Messages, found
// by REST and by the MCP wait_for_email; a wrong key is Resend's invalid_api_key, a refused body its 422.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Resend } from 'resend';
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

describeEachStore('Resend emails API', (getStore) => {
  const suite = serverPerSuite(getStore);

  it('captures /emails with cc, bcc, reply-to, an inline image, an attachment, headers and tags', async () => {
    const sb = await suite.ws.createSandbox();
    const resend = new Resend(sb.smtpPassword, { baseUrl: sb.providerBaseUrls.resend });
    const { data, error } = await resend.emails.send({
      from: 'The App <app@example.test>',
      to: ['ann@example.test'],
      cc: 'cc@example.test',
      bcc: ['audit@example.test'],
      replyTo: 'support@example.test',
      subject: 'Your sign-in code',
      text: TEXT,
      html: HTML,
      headers: { 'X-Entity-Ref-ID': 'ref-1' },
      tags: [{ name: 'category', value: 'signin' }],
      attachments: [
        { filename: 'logo.png', content: PNG, contentType: 'image/png', contentId: 'logo@app' },
        { filename: 'terms.pdf', content: Buffer.from('%PDF-1.4 terms'), contentType: 'application/pdf' },
      ],
    });
    assert.equal(error, null);
    const [got] = await readBack(suite.ws, sb.id);
    assert.ok(got !== undefined);
    assert.equal(data?.id, got.detail.id);
    assertFullSend(got, 'resend');
    assert.deepEqual(header(got.detail, 'x-sandtrap-provider-tag'), ['category=signin']);
  });

  it('captures a batch and answers { data: [{ id }] } in order', async () => {
    const sb = await suite.ws.createSandbox();
    const resend = new Resend(sb.smtpPassword, { baseUrl: sb.providerBaseUrls.resend });
    const { data, error } = await resend.batch.send([
      { from: 'app@example.test', to: 'a@example.test', subject: 'one', text: 'first' },
      { from: 'app@example.test', to: 'b@example.test', subject: 'two', html: '<p>second</p>' },
    ]);
    assert.equal(error, null);
    const listed = await listMessages(suite.ws, sb.id);
    const idOf = (subject: string) => listed.find((m) => m.subject === subject)?.id;
    assert.deepEqual(
      data?.data.map((d) => d.id),
      [idOf('one'), idOf('two')],
    );
  });

  it('a strict batch with one invalid email stores none of them', async () => {
    const sb = await suite.ws.createSandbox();
    const resend = new Resend(sb.smtpPassword, { baseUrl: sb.providerBaseUrls.resend });
    const { data, error } = await resend.batch.send([
      { from: 'app@example.test', to: 'a@example.test', subject: 'one', text: 'first' },
      { from: 'app@example.test', to: 'not an address', subject: 'two', text: 'second' },
    ]);
    assert.equal(data, null);
    assert.equal(error?.name, 'validation_error');
    assert.equal(error?.statusCode, 422);
    assert.deepEqual(await listMessages(suite.ws, sb.id), []);
  });

  it('wait_for_email over MCP returns a Resend send with its code', async () => {
    const sb = await suite.ws.createSandbox();
    const resend = new Resend(sb.smtpPassword, { baseUrl: sb.providerBaseUrls.resend });
    const got = await waitForEmailWhile(suite.server, suite.ws, sb.id, async () => {
      const { error } = await resend.emails.send({
        from: 'app@example.test',
        to: 'ann@example.test',
        subject: 'Your code',
        text: 'Your verification code is 640219.',
      });
      assert.equal(error, null);
    });
    assert.equal(got.status, 'received');
    assert.equal(got.email.otp.code, '640219');
  });

  it('answers a wrong key with invalid_api_key, a missing one with missing_api_key, and stores nothing', async () => {
    const sb = await suite.ws.createSandbox();
    const mail = { from: 'app@example.test', to: 'ann@example.test', subject: 's', text: 't' };
    const wrong = await new Resend(`${sb.smtpPassword}x`, {
      baseUrl: sb.providerBaseUrls.resend,
    }).emails.send(mail);
    assert.equal(wrong.data, null);
    assert.equal(wrong.error?.name, 'invalid_api_key');
    assert.equal(wrong.error?.statusCode, 403);
    const missing = await fetch(`${sb.providerBaseUrls.resend}/emails`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(mail),
    });
    assert.equal(missing.status, 401);
    assert.equal(((await missing.json()) as any).name, 'missing_api_key');
    const noFrom = await new Resend(sb.smtpPassword, { baseUrl: sb.providerBaseUrls.resend }).emails.send({
      ...mail,
      from: '',
    });
    assert.equal(noFrom.error?.statusCode, 422);
    assert.match(noFrom.error?.message ?? '', /Missing `from` field/);
    assert.deepEqual(await listMessages(suite.ws, sb.id), []);
  });
});
