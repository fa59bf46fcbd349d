// SendGrid's v3 send API (`POST /v3/mail/send`), as @sendgrid/mail calls it: one Message per personalization,
// 202 with an empty body and X-Message-Id; errors as `{ errors: [{ message, field, help }] }`.
import type { FastifyInstance } from 'fastify';
import type { Core } from '../../core/core.ts';
import {
  isValidAddress,
  type ProviderAddress,
  type ProviderAttachment,
  type ProviderMail,
} from '../../core/mail/providers/providerMail.ts';
import {
  attachmentOf,
  bearerKey,
  capture,
  decodeBase64,
  fail,
  headerPairs,
  installBodyErrors,
  isFail,
  isRecord,
  nonEmpty,
  PROVIDER_BODY_LIMIT,
  type Dialect,
  type Fail,
  type Parsed,
} from './flow.ts';

const errorBody = (message: string, field: string | null = null) => ({
  errors: [{ message, field, help: null }],
});

const dialect: Dialect = {
  name: 'sendgrid',
  // `SG.<smtpPassword>` works too: the SDK warns about any key without SendGrid's `SG.` prefix.
  credential(request) {
    const presented = bearerKey(request);
    return presented !== undefined && 'key' in presented
      ? { key: presented.key.replace(/^SG\./, '') }
      : presented;
  },
  refuse(reply, error) {
    const send = (status: number, message: string, field: string | null = null) =>
      reply.code(status).type('application/json').send(errorBody(message, field));
    switch (error.reason) {
      case 'missing_key':
      case 'unauthorized':
        return send(401, 'The provided authorization grant is invalid, expired, or revoked');
      case 'invalid':
        return reply
          .code(400)
          .type('application/json')
          .send({
            errors: error.errors.map((e) => ({ message: e.message, field: e.path || null, help: null })),
          });
      case 'bad_body':
        return send(400, 'Bad Request');
      case 'too_large':
        return send(413, `The message is larger than ${error.limitBytes / (1024 * 1024)} MB`);
      case 'rate_limited':
        reply.header('Retry-After', String(error.retryAfterSeconds));
        return send(429, 'too many requests');
      case 'unavailable':
        return send(503, 'The service is unavailable; try again later');
    }
  },
};

function address(value: unknown, field: string): ProviderAddress | Fail {
  if (!isRecord(value) || typeof value.email !== 'string' || !isValidAddress(value.email))
    return fail('Does not contain a valid address.', field);
  return typeof value.name === 'string' && value.name !== ''
    ? { name: value.name, address: value.email }
    : { address: value.email };
}

function addresses(value: unknown, field: string): ProviderAddress[] | Fail {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return fail('Must be an array of email objects.', field);
  const out: ProviderAddress[] = [];
  for (const [i, item] of value.entries()) {
    const a = address(item, `${field}.${i}.email`);
    if ('ok' in a) return a;
    out.push(a);
  }
  return out;
}

function substitute(text: string | undefined, subs: Array<[string, string]>): string | undefined {
  if (text === undefined) return undefined;
  return subs.reduce((t, [key, value]) => t.replaceAll(key, value), text);
}

function parse(body: unknown): Parsed<ProviderMail[]> {
  if (!isRecord(body)) return fail('Bad Request');
  const from = address(body.from, 'from.email');
  if (isFail(from))
    return fail(
      'The from object must be provided for every email send; it requires the email parameter.',
      'from.email',
    );
  let replyTo: ProviderAddress[] = [];
  if (body.reply_to !== undefined) {
    const r = address(body.reply_to, 'reply_to.email');
    if (isFail(r)) return r;
    replyTo = [r];
  } else if (body.reply_to_list !== undefined) {
    const list = addresses(body.reply_to_list, 'reply_to_list');
    if (isFail(list)) return list;
    replyTo = list;
  }
  const templated = typeof body.template_id === 'string' && body.template_id !== '';
  const content = body.content ?? [];
  if (!Array.isArray(content)) return fail('The content parameter must be an array.', 'content');
  if (content.length === 0 && !templated)
    return fail('Unless a valid template_id is provided, the content parameter is required.', 'content');
  let text: string | undefined;
  let html: string | undefined;
  const extraParts: ProviderAttachment[] = [];
  for (const [i, part] of content.entries()) {
    if (!isRecord(part) || typeof part.type !== 'string' || part.type === '')
      return fail('The content type is required.', `content.${i}.type`);
    if (typeof part.value !== 'string' || part.value === '')
      return fail(
        'The content value must be a string at least one character in length.',
        `content.${i}.value`,
      );
    const type = part.type.toLowerCase();
    if (type === 'text/plain' && text === undefined) text = part.value;
    else if (type === 'text/html' && html === undefined) html = part.value;
    else
      extraParts.push({ filename: `content-${i}`, content: Buffer.from(part.value), contentType: part.type });
  }
  const attachments: ProviderAttachment[] = [];
  for (const [i, a] of (Array.isArray(body.attachments) ? body.attachments : []).entries()) {
    if (!isRecord(a)) return fail('The attachment must be an object.', `attachments.${i}`);
    const bytes = decodeBase64(a.content);
    if (bytes === undefined || a.content === '')
      return fail('The attachment content must be base64 encoded.', `attachments.${i}.content`);
    if (typeof a.filename !== 'string' || a.filename === '')
      return fail('The attachment filename parameter is required.', `attachments.${i}.filename`);
    const disposition =
      a.disposition === 'inline' ? 'inline' : a.disposition === undefined ? undefined : 'attachment';
    if (a.disposition !== undefined && a.disposition !== 'inline' && a.disposition !== 'attachment')
      return fail('The disposition must be inline or attachment.', `attachments.${i}.disposition`);
    attachments.push(
      attachmentOf(a.filename, bytes, {
        contentType: a.type,
        // The v3 API names it content_id; @sendgrid/mail 8 sends its own camelCase contentId through unchanged.
        contentId: nonEmpty(a.content_id ?? a.contentId),
        disposition,
      }),
    );
  }
  const headers = headerPairs(body.headers);
  if (headers === undefined) return fail('Header values must be strings.', 'headers');
  const shared: Array<[string, string]> = [];
  if (Array.isArray(body.categories))
    for (const c of body.categories) if (typeof c === 'string' && c !== '') shared.push(['Category', c]);
  if (templated) shared.push(['Template-Id', body.template_id as string]);
  for (const key of ['send_at', 'batch_id', 'ip_pool_name'] as const)
    if (typeof body[key] === 'string' || typeof body[key] === 'number')
      shared.push([
        key === 'send_at' ? 'Send-At' : key === 'batch_id' ? 'Batch-Id' : 'Ip-Pool-Name',
        String(body[key]),
      ]);

  const personalizations = body.personalizations;
  if (!Array.isArray(personalizations) || personalizations.length === 0)
    return fail(
      'The personalizations field is required and must have at least one personalization.',
      'personalizations',
    );
  if (personalizations.length > 1000)
    return fail('The personalizations field may have at most 1000 personalizations.', 'personalizations');
  const mails: ProviderMail[] = [];
  for (const [i, p] of personalizations.entries()) {
    if (!isRecord(p)) return fail('A personalization must be an object.', `personalizations.${i}`);
    const to = addresses(p.to, `personalizations.${i}.to`);
    if (isFail(to)) return to;
    if (to.length === 0)
      return fail(
        'The to array is required for all personalization objects, and must have at least one email object with a valid email address.',
        `personalizations.${i}.to`,
      );
    const cc = addresses(p.cc, `personalizations.${i}.cc`);
    if (isFail(cc)) return cc;
    const bcc = addresses(p.bcc, `personalizations.${i}.bcc`);
    if (isFail(bcc)) return bcc;
    const subject = typeof p.subject === 'string' ? p.subject : body.subject;
    if ((typeof subject !== 'string' || subject === '') && !templated)
      return fail(
        'The subject is required. You can get around this requirement if you use a template with a subject defined or if every personalization has a subject defined.',
        'subject',
      );
    const ownHeaders = headerPairs(p.headers);
    if (ownHeaders === undefined)
      return fail('Header values must be strings.', `personalizations.${i}.headers`);
    const subs = headerPairs(p.substitutions);
    if (subs === undefined)
      return fail('Substitution values must be strings.', `personalizations.${i}.substitutions`);
    const fields = [...shared];
    const customArgs = {
      ...(isRecord(body.custom_args) ? body.custom_args : {}),
      ...(isRecord(p.custom_args) ? p.custom_args : {}),
    };
    if (Object.keys(customArgs).length > 0) fields.push(['Custom-Args', JSON.stringify(customArgs)]);
    if (isRecord(p.dynamic_template_data))
      fields.push(['Template-Data', JSON.stringify(p.dynamic_template_data)]);
    const mailText = substitute(text, subs);
    mails.push({
      from,
      to,
      cc,
      bcc,
      replyTo,
      subject: substitute(typeof subject === 'string' ? subject : '', subs) ?? '',
      // A template renders at SendGrid; here its data is the body, so codes and links in it can be found.
      text:
        mailText ??
        (isRecord(p.dynamic_template_data) && html === undefined
          ? JSON.stringify(p.dynamic_template_data, null, 2)
          : undefined),
      html: substitute(html, subs),
      attachments: [...attachments, ...extraParts],
      headers: [
        ...headers.filter(([n]) => !ownHeaders.some(([m]) => m.toLowerCase() === n.toLowerCase())),
        ...ownHeaders,
      ],
      providerFields: fields,
    });
  }
  return { ok: true, value: mails };
}

export function sendgridRoutes(scope: FastifyInstance, core: Core): void {
  installBodyErrors(scope, dialect);
  scope.post('/v3/mail/send', { bodyLimit: PROVIDER_BODY_LIMIT }, (request, reply) =>
    capture(
      core,
      dialect,
      request,
      reply,
      () => parse(request.body),
      (mails) => mails,
      (ids) => reply.code(202).header('X-Message-Id', ids[0]).send(),
    ),
  );
}
