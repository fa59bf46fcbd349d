// @aws-sdk/client-sesv2 pointed at sandtrap by its endpoint option, signing with SigV4 (access key id = smtpUsername,
// secret = smtpPassword): Simple, Raw and Template content land as Messages, found by REST and the MCP
// wait_for_email; a wrong secret or an unknown key id is the same 403, a body SES refuses its BadRequestException.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  BadRequestException,
  SendEmailCommand,
  SESv2Client,
  SESv2ServiceException,
  type SendEmailCommandInput,
} from '@aws-sdk/client-sesv2';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import MailComposer from 'nodemailer/lib/mail-composer';
import { listMessages } from '../helpers/mail.ts';
import type { TestServerWorkspace } from '../helpers/server.ts';
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

type Sandbox = Awaited<ReturnType<TestServerWorkspace['createSandbox']>>;

/** The SDK's documented settings: `endpoint` for the base URL, the sandbox's pair as static credentials. */
function client(sb: Sandbox, secret = sb.smtpPassword, accessKeyId = sb.smtpUsername): SESv2Client {
  return new SESv2Client({
    endpoint: sb.providerBaseUrls.ses,
    region: 'us-east-1',
    credentials: { accessKeyId, secretAccessKey: secret },
    // A refusal is final here; the SDK's retries would only repeat it.
    maxAttempts: 1,
  });
}

const send = (c: SESv2Client, input: SendEmailCommandInput) => c.send(new SendEmailCommand(input));

/** The SDK's own exception for a refused send. */
async function refused(p: Promise<unknown>): Promise<SESv2ServiceException> {
  const e = await refusal(p);
  assert.ok(e instanceof SESv2ServiceException, String(e));
  return e;
}

const simple = (subject: string, text: string): SendEmailCommandInput['Content'] => ({
  Simple: { Subject: { Data: subject }, Body: { Text: { Data: text } } },
});

describeEachStore('Amazon SES v2 SendEmail', (getStore) => {
  const suite = serverPerSuite(getStore);

  describe('200', () => {
    it('captures Simple content with cc, bcc, reply-to, an inline image, an attachment, headers and tags', async () => {
      const sb = await suite.ws.createSandbox();
      const sent = await send(client(sb), {
        FromEmailAddress: 'The App <app@example.test>',
        Destination: {
          ToAddresses: ['ann@example.test'],
          CcAddresses: ['cc@example.test'],
          BccAddresses: ['audit@example.test'],
        },
        ReplyToAddresses: ['support@example.test'],
        Content: {
          Simple: {
            Subject: { Data: 'Your sign-in code', Charset: 'UTF-8' },
            Body: { Text: { Data: TEXT }, Html: { Data: HTML } },
            Headers: [{ Name: 'X-Entity-Ref-ID', Value: 'ref-1' }],
            Attachments: [
              {
                FileName: 'logo.png',
                RawContent: PNG,
                ContentType: 'image/png',
                ContentId: 'logo@app',
                ContentDisposition: 'INLINE',
              },
              {
                FileName: 'terms.pdf',
                RawContent: Buffer.from('%PDF-1.4 terms'),
                ContentType: 'application/pdf',
                ContentDisposition: 'ATTACHMENT',
              },
            ],
          },
        },
        EmailTags: [{ Name: 'flow', Value: 'signin' }],
        ConfigurationSetName: 'transactional',
      });
      assert.equal(sent.$metadata.httpStatusCode, 200);
      const [got] = await readBack(suite.ws, sb.id);
      assert.ok(got !== undefined);
      assert.equal(sent.MessageId, got.detail.id);
      assertFullSend(got, 'ses');
      assert.deepEqual(header(got.detail, 'x-sandtrap-provider-tag'), ['flow=signin']);
      assert.deepEqual(header(got.detail, 'x-sandtrap-provider-configuration-set'), ['transactional']);
    });

    it('captures Raw content as sent, for the Destination or else the recipients in its headers', async () => {
      const sb = await suite.ws.createSandbox();
      const built = await new MailComposer({
        from: 'app@example.test',
        to: 'ann@example.test',
        cc: 'cc@example.test',
        subject: 'Built by the app',
        text: 'Your code is 118822.',
        headers: { 'X-Entity-Ref-ID': 'raw-1' },
      })
        .compile()
        .build();
      const fromHeaders = await send(client(sb), { Content: { Raw: { Data: built } } });
      const [first] = await readBack(suite.ws, sb.id);
      assert.ok(first !== undefined);
      assert.equal(fromHeaders.MessageId, first.detail.id);
      assert.equal(first.detail.subject, 'Built by the app');
      assert.equal(first.detail.otp?.code, '118822');
      assert.deepEqual(header(first.detail, 'x-entity-ref-id'), ['raw-1']);
      assert.deepEqual(header(first.detail, 'x-sandtrap-provider'), ['ses']);
      assert.deepEqual([...first.detail.capturedFor].sort(), ['ann@example.test', 'cc@example.test']);

      await send(client(sb), {
        Destination: { ToAddresses: ['ann@example.test'], BccAddresses: ['audit@example.test'] },
        Content: { Raw: { Data: built } },
        EmailTags: [{ Name: 'flow', Value: 'raw\r\nBcc: x@example.test' }],
        ConfigurationSetName: 'bulk',
      });
      const messages = await readBack(suite.ws, sb.id);
      assert.equal(messages.length, 2);
      const second = messages.find((m) => m.detail.id !== first.detail.id);
      assert.deepEqual([...(second?.detail.capturedFor ?? [])].sort(), [
        'ann@example.test',
        'audit@example.test',
      ]);
      assert.ok(second !== undefined);
      // A line break in a tag stays inside its header: it starts no Bcc of its own.
      assert.deepEqual(header(second.detail, 'x-sandtrap-provider-tag'), ['flow=raw Bcc: x@example.test']);
      assert.deepEqual(header(second.detail, 'bcc'), []);
      assert.deepEqual(header(second.detail, 'x-sandtrap-provider-configuration-set'), ['bulk']);
    });

    it('renders an inline TemplateContent with its TemplateData, HTML-escaped in the HTML part', async () => {
      const sb = await suite.ws.createSandbox();
      await send(client(sb), {
        FromEmailAddress: 'app@example.test',
        Destination: { ToAddresses: ['ann@example.test'] },
        Content: {
          Template: {
            TemplateContent: {
              Subject: 'Your code, {{name}}',
              Text: 'Hi {{name}}, your code is {{code}}.',
              Html: '<p>Hi {{name}}, your code is <b>{{code}}</b>.</p>',
            },
            TemplateData: JSON.stringify({ name: 'Ann & Bo', code: '552901' }),
          },
        },
      });
      const [got] = await readBack(suite.ws, sb.id);
      assert.ok(got !== undefined);
      assert.equal(got.detail.subject, 'Your code, Ann & Bo');
      assert.equal(got.detail.textBody?.trim(), 'Hi Ann & Bo, your code is 552901.');
      assert.match(got.detail.htmlBody ?? '', /Hi Ann &amp; Bo, your code is <b>552901<\/b>/);
      assert.equal(got.detail.otp?.code, '552901');
      assert.deepEqual(JSON.parse(header(got.detail, 'x-sandtrap-provider-template-data')[0] ?? ''), {
        name: 'Ann & Bo',
        code: '552901',
      });
    });

    it('stores a named template with its data as headers and the data as the body, whose code can be read', async () => {
      const sb = await suite.ws.createSandbox();
      await send(client(sb), {
        FromEmailAddress: 'app@example.test',
        Destination: { ToAddresses: ['ann@example.test'] },
        Content: {
          Template: {
            TemplateName: 'sign-in',
            TemplateData: JSON.stringify({ name: 'Ann', code: '771204' }),
          },
        },
      });
      const [got] = await readBack(suite.ws, sb.id);
      assert.ok(got !== undefined);
      assert.deepEqual(header(got.detail, 'x-sandtrap-provider-template-name'), ['sign-in']);
      assert.deepEqual(JSON.parse(header(got.detail, 'x-sandtrap-provider-template-data')[0] ?? ''), {
        name: 'Ann',
        code: '771204',
      });
      assert.equal(got.detail.otp?.code, '771204');
    });

    it('wait_for_email over MCP returns an SES send with its code', async () => {
      const sb = await suite.ws.createSandbox();
      const got = await waitForEmailWhile(suite.server, suite.ws, sb.id, () =>
        send(client(sb), {
          FromEmailAddress: 'app@example.test',
          Destination: { ToAddresses: ['ann@example.test'] },
          Content: simple('Your code', 'Your verification code is 640219.'),
        }),
      );
      assert.equal(got.status, 'received');
      assert.equal(got.email.otp.code, '640219');
    });
  });

  describe('400', () => {
    it('answers a send without FromEmailAddress or with two contents with BadRequestException, storing nothing', async () => {
      const sb = await suite.ws.createSandbox();
      const noFrom = await refused(
        send(client(sb), {
          Destination: { ToAddresses: ['ann@example.test'] },
          Content: simple('s', 't'),
        }),
      );
      assert.ok(noFrom instanceof BadRequestException, noFrom.name);
      assert.equal(noFrom.$metadata.httpStatusCode, 400);
      assert.match(noFrom.message, /FromEmailAddress is required/);
      const both = await refused(
        send(client(sb), {
          FromEmailAddress: 'app@example.test',
          Destination: { ToAddresses: ['ann@example.test'] },
          Content: { ...simple('s', 't'), Raw: { Data: Buffer.from('Subject: x\r\n\r\nx') } },
        }),
      );
      assert.ok(both instanceof BadRequestException, both.name);
      assert.deepEqual(await listMessages(suite.ws, sb.id), []);
    });
  });

  describe('403', () => {
    it('answers a wrong secret and an unknown access key id alike, storing nothing', async () => {
      const sb = await suite.ws.createSandbox();
      const input: SendEmailCommandInput = {
        FromEmailAddress: 'app@example.test',
        Destination: { ToAddresses: ['ann@example.test'] },
        Content: simple('s', 't'),
      };
      const wrongSecret = await refused(send(client(sb, `${sb.smtpPassword}x`), input));
      const unknownKey = await refused(send(client(sb, sb.smtpPassword, randomUUID()), input));
      for (const e of [wrongSecret, unknownKey]) {
        assert.equal(e.name, 'SignatureDoesNotMatch');
        assert.equal(e.$metadata.httpStatusCode, 403);
        assert.equal(e.$fault, 'client');
      }
      assert.equal(wrongSecret.message, unknownKey.message);
      assert.deepEqual(await listMessages(suite.ws, sb.id), []);
    });

    it('refuses a send signed an hour off with InvalidSignatureException; the SDK corrects its clock from it', async () => {
      const sb = await suite.ws.createSandbox();
      const skewed = new SESv2Client({
        endpoint: sb.providerBaseUrls.ses,
        region: 'eu-west-1',
        credentials: { accessKeyId: sb.smtpUsername, secretAccessKey: sb.smtpPassword },
        systemClockOffset: -60 * 60 * 1000,
        maxAttempts: 1,
      });
      const input: SendEmailCommandInput = {
        FromEmailAddress: 'app@example.test',
        Destination: { ToAddresses: ['ann@example.test'] },
        Content: simple('late', 'signed late'),
      };
      const late = await refused(send(skewed, input));
      assert.equal(late.name, 'InvalidSignatureException');
      assert.equal(late.$metadata.httpStatusCode, 403);
      assert.deepEqual(await listMessages(suite.ws, sb.id), []);
      // The SDK took the offset from the answer's Date header, as it does with SES: the next send is signed in time.
      await send(skewed, input);
      assert.deepEqual(
        (await listMessages(suite.ws, sb.id)).map((m) => m.subject),
        ['late'],
      );
    });

    it('refuses an unsigned request, a body changed after signing, and a scope for another service', async () => {
      const sb = await suite.ws.createSandbox();
      const url = new URL(`${sb.providerBaseUrls.ses}/v2/email/outbound-emails`);
      const body = JSON.stringify({
        FromEmailAddress: 'app@example.test',
        Destination: { ToAddresses: ['ann@example.test'] },
        Content: simple('s', 't'),
      });
      const signed = async (service: string) =>
        new SignatureV4({
          credentials: { accessKeyId: sb.smtpUsername, secretAccessKey: sb.smtpPassword },
          region: 'us-east-1',
          service,
          sha256: Hash.bind(null, 'sha256'),
        }).sign({
          method: 'POST',
          protocol: url.protocol,
          hostname: url.hostname,
          port: Number(url.port),
          path: url.pathname,
          query: {},
          headers: { host: url.host, 'content-type': 'application/json' },
          body,
        });
      const post = async (headers: Record<string, string>, payload: string) => {
        const res = await fetch(url, { method: 'POST', headers, body: payload });
        return {
          status: res.status,
          type: res.headers.get('x-amzn-errortype'),
          body: (await res.json()) as { message?: string; MessageId?: string },
        };
      };
      const unsigned = await post({ 'content-type': 'application/json' }, body);
      assert.deepEqual([unsigned.status, unsigned.type], [403, 'MissingAuthenticationTokenException']);
      const good = await signed('ses');
      const changed = await post(good.headers, body.replace('"s"', '"S"'));
      assert.deepEqual([changed.status, changed.type], [403, 'SignatureDoesNotMatch']);
      const other = await post((await signed('sqs')).headers, body);
      assert.deepEqual([other.status, other.type], [403, 'SignatureDoesNotMatch']);
      assert.match(other.body.message ?? '', /scoped to correct service: 'ses'/);
      assert.deepEqual(await listMessages(suite.ws, sb.id), []);
      // The same signed request, unchanged, is taken: the refusals above were about what changed.
      const taken = await post(good.headers, body);
      assert.equal(taken.status, 200);
      assert.equal(typeof taken.body.MessageId, 'string');
    });
  });
});
