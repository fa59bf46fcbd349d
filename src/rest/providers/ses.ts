// Amazon SES v2's send API as @aws-sdk/client-sesv2 calls it: `POST /v2/email/outbound-emails` with Simple, Raw
// or Template content, signed with SigV4 (access key id = smtpUsername, secret = smtpPassword). Success
// `{ MessageId }`; errors `{ message }` with the type in `x-amzn-ErrorType`, which the SDK turns into its classes.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Handlebars from 'handlebars';
import libmime from 'libmime';
import type { Core } from '../../core/core.ts';
import type {
  ProviderAddress,
  ProviderAttachment,
  ProviderMail,
} from '../../core/mail/providers/providerMail.ts';
import {
  attachmentOf,
  capture,
  checkedAddresses,
  decodeBase64,
  fail,
  installBodyErrors,
  isFail,
  isRecord,
  nonEmpty,
  PROVIDER_BODY_LIMIT,
  sendRefusal,
  type Dialect,
  type Fail,
  type Parsed,
  type ProviderError,
} from './flow.ts';
import { checkSigV4 } from './sigv4.ts';

/** SES's status and error type for each refusal; the SDK names its exception after the type. */
function errorOf(error: ProviderError): { status: number; type: string; message: string } {
  switch (error.reason) {
    case 'missing_key':
      return {
        status: 403,
        type: 'MissingAuthenticationTokenException',
        message: 'Missing Authentication Token',
      };
    case 'unauthorized':
      // One answer for an unknown access key id and a wrong secret: neither says whether a sandbox exists.
      return {
        status: 403,
        type: 'SignatureDoesNotMatch',
        message:
          'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key (the sandbox smtpPassword) and signing method.',
      };
    case 'invalid':
      return {
        status: 400,
        type: 'BadRequestException',
        message: error.errors.map((e) => e.message).join('; '),
      };
    case 'bad_body':
      return { status: 400, type: 'BadRequestException', message: 'The request body is not valid JSON.' };
    case 'too_large':
      return {
        status: 400,
        type: 'MessageRejected',
        message: `Message length is more than ${error.limitBytes} bytes long.`,
      };
    case 'rate_limited':
      return {
        status: 429,
        type: 'TooManyRequestsException',
        message: 'Too many requests; try again later.',
      };
    case 'unavailable':
      return {
        status: 503,
        type: 'ServiceUnavailableException',
        message: 'The service is unavailable; try again later.',
      };
  }
}

/** SES's error: the type in `x-amzn-ErrorType` (what the SDK names its exception after), `{ message }` as body. */
function typed(reply: FastifyReply, type: string): FastifyReply {
  return reply.header('x-amzn-RequestId', randomUUID()).header('x-amzn-ErrorType', type);
}

const dialect: Dialect = {
  name: 'ses',
  // Replaced per request by the signature's access key id (the route checks SigV4 first).
  credential: () => undefined,
  refuse(reply: FastifyReply, error: ProviderError) {
    const { status, type, message } = errorOf(error);
    return sendRefusal(typed(reply, type), error, status, { message });
  },
};

const strings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((v) => typeof v === 'string');

function addressList(value: unknown, field: string): ProviderAddress[] | Fail {
  if (value === undefined || value === null) return [];
  if (!strings(value)) return fail(`${field} must be a list of email addresses.`, field);
  return checkedAddresses(value, (bad) => `Illegal address in ${field}: ${bad}`);
}

type Destination = { to: ProviderAddress[]; cc: ProviderAddress[]; bcc: ProviderAddress[] };

function destination(value: unknown): Destination | Fail {
  if (value === undefined || value === null) return { to: [], cc: [], bcc: [] };
  if (!isRecord(value)) return fail('Destination must be an object.', 'Destination');
  const to = addressList(value.ToAddresses, 'Destination.ToAddresses');
  if (isFail(to)) return to;
  const cc = addressList(value.CcAddresses, 'Destination.CcAddresses');
  if (isFail(cc)) return cc;
  const bcc = addressList(value.BccAddresses, 'Destination.BccAddresses');
  if (isFail(bcc)) return bcc;
  return { to, cc, bcc };
}

/** EmailTags, configuration set and tenant, kept as `X-Sandtrap-Provider-*` headers (Resend's `Tag` form). */
function providerFields(body: Record<string, unknown>): Array<[string, string]> | Fail {
  const fields: Array<[string, string]> = [];
  const tags = body.EmailTags ?? [];
  if (!Array.isArray(tags)) return fail('EmailTags must be a list of { Name, Value }.', 'EmailTags');
  for (const tag of tags) {
    if (!isRecord(tag) || typeof tag.Name !== 'string' || typeof tag.Value !== 'string')
      return fail('Each of EmailTags needs a string Name and Value.', 'EmailTags');
    fields.push(['Tag', `${tag.Name}=${tag.Value}`]);
  }
  const set = nonEmpty(body.ConfigurationSetName);
  if (set !== undefined) fields.push(['Configuration-Set', set]);
  const tenant = nonEmpty(body.TenantName);
  if (tenant !== undefined) fields.push(['Tenant', tenant]);
  return fields;
}

function headerList(value: unknown): Array<[string, string]> | Fail {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return fail('Headers must be a list of { Name, Value }.', 'Headers');
  const out: Array<[string, string]> = [];
  for (const h of value) {
    if (!isRecord(h) || typeof h.Name !== 'string' || typeof h.Value !== 'string')
      return fail('Each header needs a string Name and Value.', 'Headers');
    out.push([h.Name, h.Value]);
  }
  return out;
}

function attachmentList(value: unknown): ProviderAttachment[] | Fail {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return fail('Attachments must be a list.', 'Attachments');
  const out: ProviderAttachment[] = [];
  for (const a of value) {
    if (!isRecord(a) || nonEmpty(a.FileName) === undefined)
      return fail('Each attachment needs a FileName.', 'Attachments');
    const bytes = decodeBase64(a.RawContent);
    if (bytes === undefined)
      return fail(`Attachment '${a.FileName}' has no base64 RawContent.`, 'Attachments');
    const contentId = nonEmpty(a.ContentId);
    // SES places an attachment by ContentDisposition; one with a content id is inline unless told otherwise.
    const disposition =
      a.ContentDisposition === 'ATTACHMENT'
        ? 'attachment'
        : a.ContentDisposition === 'INLINE' || contentId !== undefined
          ? 'inline'
          : undefined;
    out.push(
      attachmentOf(a.FileName as string, bytes, { contentType: a.ContentType, contentId, disposition }),
    );
  }
  return out;
}

/** Renders SES's Handlebars templates in an environment of their own (no helpers or partials beyond the built-ins). */
const handlebars = Handlebars.create();

function render(
  template: string | undefined,
  data: Record<string, unknown>,
  html: boolean,
): string | undefined {
  if (template === undefined) return undefined;
  return handlebars.compile(template, { noEscape: !html, strict: false })(data);
}

type Body = Pick<ProviderMail, 'subject' | 'text' | 'html' | 'attachments' | 'headers' | 'providerFields'>;

function simpleContent(simple: Record<string, unknown>): Body | Fail {
  const subject = isRecord(simple.Subject) ? simple.Subject.Data : undefined;
  if (typeof subject !== 'string')
    return fail('Content.Simple.Subject.Data is required.', 'Content.Simple.Subject');
  const body = isRecord(simple.Body) ? simple.Body : {};
  const text = isRecord(body.Text) ? nonEmpty(body.Text.Data) : undefined;
  const html = isRecord(body.Html) ? nonEmpty(body.Html.Data) : undefined;
  if (text === undefined && html === undefined)
    return fail('Content.Simple.Body needs Text or Html data.', 'Content.Simple.Body');
  const headers = headerList(simple.Headers);
  if (isFail(headers)) return headers;
  const attachments = attachmentList(simple.Attachments);
  if (isFail(attachments)) return attachments;
  return { subject, text, html, attachments, headers, providerFields: [] };
}

function templateContent(template: Record<string, unknown>): Body | Fail {
  const name = nonEmpty(template.TemplateName);
  const arn = nonEmpty(template.TemplateArn);
  const inline = isRecord(template.TemplateContent) ? template.TemplateContent : undefined;
  if (name === undefined && arn === undefined && inline === undefined)
    return fail('Content.Template needs TemplateName, TemplateArn or TemplateContent.', 'Content.Template');
  const rawData = template.TemplateData ?? '{}';
  let data: unknown;
  try {
    data = typeof rawData === 'string' ? JSON.parse(rawData) : undefined;
  } catch {
    data = undefined;
  }
  if (!isRecord(data))
    return fail('Content.Template.TemplateData must be a JSON object.', 'Content.Template.TemplateData');
  const headers = headerList(template.Headers);
  if (isFail(headers)) return headers;
  const attachments = attachmentList(template.Attachments);
  if (isFail(attachments)) return attachments;
  const fields: Array<[string, string]> = [];
  if (name !== undefined) fields.push(['Template-Name', name]);
  if (arn !== undefined) fields.push(['Template-Arn', arn]);
  fields.push(['Template-Data', JSON.stringify(data)]);
  if (inline === undefined) {
    // The template renders at SES; here its data is the body, so codes and links in it can be found.
    return { subject: '', text: JSON.stringify(data, null, 2), attachments, headers, providerFields: fields };
  }
  try {
    const text = render(nonEmpty(inline.Text), data, false);
    const html = render(nonEmpty(inline.Html), data, true);
    if (text === undefined && html === undefined)
      return fail('Content.Template.TemplateContent needs Text or Html.', 'Content.Template.TemplateContent');
    const subject = render(nonEmpty(inline.Subject), data, false) ?? '';
    return { subject, text, html, attachments, headers, providerFields: fields };
  } catch (err) {
    return fail(
      `The template does not render: ${(err as Error).message}`,
      'Content.Template.TemplateContent',
    );
  }
}

type Send =
  | { kind: 'mail'; mail: ProviderMail }
  | { kind: 'raw'; raw: Buffer; recipients: string[]; providerFields: Array<[string, string]> };

/** The recipients of a Raw message without a Destination: its To, Cc and Bcc headers, as SES takes them. */
function headerRecipients(raw: Buffer): string[] {
  const text = raw.toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  const headers = libmime.decodeHeaders(end < 0 ? text : text.slice(0, end));
  const values = ['to', 'cc', 'bcc'].flatMap((name) => headers[name] ?? []);
  const parsed = checkedAddresses(values, () => '');
  return isFail(parsed) ? [] : parsed.map((a) => a.address);
}

function parse(bytes: Buffer): Parsed<Send> {
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    return fail('The request body is not valid JSON.');
  }
  if (!isRecord(body)) return fail('The request body must be a JSON object.');
  const content = isRecord(body.Content) ? body.Content : {};
  const kinds = (['Simple', 'Raw', 'Template'] as const).filter(
    (k) => content[k] !== undefined && content[k] !== null,
  );
  if (kinds.length !== 1)
    return fail('Content must contain exactly one of Simple, Raw or Template.', 'Content');
  const kind = kinds[0] as 'Simple' | 'Raw' | 'Template';
  const part = content[kind];
  if (!isRecord(part)) return fail(`Content.${kind} must be an object.`, `Content.${kind}`);
  const dest = destination(body.Destination);
  if (isFail(dest)) return dest;
  const fields = providerFields(body);
  if (isFail(fields)) return fields;
  if (kind === 'Raw') {
    const raw = decodeBase64(part.Data);
    if (raw === undefined || raw.length === 0)
      return fail('Content.Raw.Data must be the message, base64-encoded.', 'Content.Raw.Data');
    const given = [...dest.to, ...dest.cc, ...dest.bcc].map((a) => a.address);
    return {
      ok: true,
      value: {
        kind: 'raw',
        raw,
        recipients: given.length > 0 ? given : headerRecipients(raw),
        providerFields: fields,
      },
    };
  }
  if (nonEmpty(body.FromEmailAddress) === undefined)
    return fail('FromEmailAddress is required for Simple and Template content.', 'FromEmailAddress');
  const from = checkedAddresses([body.FromEmailAddress as string], (bad) => `Illegal address: ${bad}`);
  if (isFail(from)) return from;
  if (from.length !== 1) return fail('FromEmailAddress must be one address.', 'FromEmailAddress');
  if (dest.to.length + dest.cc.length + dest.bcc.length === 0)
    return fail('Destination needs at least one address.', 'Destination');
  const replyTo = addressList(body.ReplyToAddresses, 'ReplyToAddresses');
  if (isFail(replyTo)) return replyTo;
  const built = kind === 'Simple' ? simpleContent(part) : templateContent(part);
  if (isFail(built)) return built;
  return {
    ok: true,
    value: {
      kind: 'mail',
      mail: {
        ...built,
        from: from[0] as ProviderAddress,
        ...dest,
        replyTo,
        providerFields: [...built.providerFields, ...fields],
      },
    },
  };
}

export function sesRoutes(scope: FastifyInstance, core: Core): void {
  installBodyErrors(scope, dialect);
  // The signature covers the body's bytes: kept as sent and read as JSON only after the signature is checked.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: PROVIDER_BODY_LIMIT },
    (_request, body, done) => done(null, body),
  );
  scope.post(
    '/v2/email/outbound-emails',
    { bodyLimit: PROVIDER_BODY_LIMIT },
    (request: FastifyRequest, reply) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const signed = checkSigV4(
        { method: request.method, url: request.url, headers: request.headers, body },
        core.clock.now(),
        'ses',
      );
      if (!signed.ok)
        return typed(reply, signed.problem)
          .code(403)
          .type('application/json')
          .send({ message: signed.message });
      const credential = { username: signed.accessKeyId, verify: signed.verify };
      return capture(
        core,
        { ...dialect, credential: () => credential },
        request,
        reply,
        () => parse(body),
        (send) =>
          send.kind === 'mail'
            ? [send.mail]
            : (target) =>
                core.providers.sendMime({
                  provider: 'ses',
                  target,
                  ip: request.ip,
                  raw: send.raw,
                  recipients: send.recipients,
                  providerFields: send.providerFields,
                }),
        (ids) =>
          reply
            .code(200)
            .header('x-amzn-RequestId', randomUUID())
            .type('application/json')
            .send({ MessageId: ids[0] }),
      );
    },
  );
}
