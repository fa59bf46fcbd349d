// Resend's send API as the resend SDK calls it: `POST /emails` answers `{ id }`, `POST /emails/batch` answers
// `{ data: [{ id }] }` (strict by default: one invalid email refuses the batch; `x-batch-validation: permissive`
// stores the valid ones and lists the rest in `errors`). Errors `{ statusCode, name, message }`.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Core } from '../../core/core.ts';
import type {
  ProviderAddress,
  ProviderAttachment,
  ProviderMail,
} from '../../core/mail/providers/providerMail.ts';
import {
  attachmentOf,
  bearerKey,
  capture,
  checkedAddresses,
  decodeBase64,
  fail,
  headerPairs,
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

/** Resend's limits: recipients per field, emails per batch. */
const MAX_RECIPIENTS = 50;
const MAX_BATCH = 100;

function errorOf(error: ProviderError): { statusCode: number; name: string; message: string } {
  switch (error.reason) {
    case 'missing_key':
      return {
        statusCode: 401,
        name: 'missing_api_key',
        message: 'Missing API key in the authorization header',
      };
    case 'unauthorized':
      // Resend's own status for a key it does not know (403), not 401.
      return { statusCode: 403, name: 'invalid_api_key', message: 'API key is invalid' };
    case 'invalid':
      return {
        statusCode: 422,
        name: 'validation_error',
        message: error.errors.map((e) => e.message).join('; '),
      };
    case 'bad_body':
      return { statusCode: 400, name: 'validation_error', message: 'The request body is not valid JSON.' };
    case 'too_large':
      return {
        statusCode: 422,
        name: 'validation_error',
        message: `The email is larger than ${error.limitBytes / (1024 * 1024)} MB.`,
      };
    case 'rate_limited':
      return { statusCode: 429, name: 'rate_limit_exceeded', message: 'Too many requests; try again later.' };
    case 'unavailable':
      return {
        statusCode: 503,
        name: 'application_error',
        message: 'The service is unavailable; try again later.',
      };
  }
}

const dialect: Dialect = {
  name: 'resend',
  credential: bearerKey,
  refuse(reply: FastifyReply, error: ProviderError) {
    const body = errorOf(error);
    return sendRefusal(reply, error, body.statusCode, body);
  },
};

function list(value: unknown, field: string): ProviderAddress[] | Fail {
  if (value === undefined || value === null) return [];
  const items = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(items) || items.some((v) => typeof v !== 'string'))
    return fail(`The \`${field}\` field must be a string or an array of strings.`);
  const parsed = checkedAddresses(
    items as string[],
    () =>
      `Invalid \`${field}\` field. The email address needs to follow the \`email@example.com\` or \`Name <email@example.com>\` format.`,
  );
  if (isFail(parsed)) return parsed;
  if (parsed.length > MAX_RECIPIENTS)
    return fail(`The \`${field}\` field may have at most ${MAX_RECIPIENTS} addresses.`);
  return parsed;
}

function parseOne(body: unknown, inBatch: boolean): Parsed<ProviderMail> {
  if (!isRecord(body)) return fail('The email must be a JSON object.');
  if (body.from === undefined || body.from === '') return fail('Missing `from` field.');
  const from = list(body.from, 'from');
  if (isFail(from)) return from;
  if (from.length !== 1) return fail('Invalid `from` field. It must be one address.');
  if (body.to === undefined || body.to === '') return fail('Missing `to` field.');
  const to = list(body.to, 'to');
  if (isFail(to)) return to;
  const cc = list(body.cc, 'cc');
  if (isFail(cc)) return cc;
  const bcc = list(body.bcc, 'bcc');
  if (isFail(bcc)) return bcc;
  const replyTo = list(body.reply_to, 'reply_to');
  if (isFail(replyTo)) return replyTo;
  const template = isRecord(body.template) ? body.template : undefined;
  if ((typeof body.subject !== 'string' || body.subject === '') && template === undefined)
    return fail('Missing `subject` field.');
  let text = nonEmpty(body.text);
  const html = nonEmpty(body.html);
  const fields: Array<[string, string]> = [];
  if (template !== undefined) {
    fields.push(['Template-Id', String(template.id ?? '')]);
    const variables = isRecord(template.variables) ? template.variables : {};
    fields.push(['Template-Variables', JSON.stringify(variables)]);
    // The template renders at Resend; here its variables are the body, so codes and links in them can be found.
    if (text === undefined && html === undefined) text = JSON.stringify(variables, null, 2);
  } else if (text === undefined && html === undefined) {
    return fail('Missing `html` or `text` field.');
  }
  if (Array.isArray(body.tags)) {
    for (const tag of body.tags) {
      if (
        !isRecord(tag) ||
        typeof tag.name !== 'string' ||
        (tag.value !== undefined && typeof tag.value !== 'string')
      )
        return fail('Each tag needs a `name` and a string `value`.');
      fields.push(['Tag', tag.value === undefined ? tag.name : `${tag.name}=${tag.value}`]);
    }
  }
  if (nonEmpty(body.scheduled_at) !== undefined) fields.push(['Scheduled-At', body.scheduled_at as string]);
  const headers = headerPairs(body.headers);
  if (headers === undefined) return fail('The `headers` field must be an object of strings.');
  const attachments: ProviderAttachment[] = [];
  const given = Array.isArray(body.attachments) ? body.attachments : [];
  if (inBatch && given.length > 0) return fail('The `attachments` field is not supported in batch emails.');
  for (const a of given) {
    if (!isRecord(a)) return fail('Each attachment must be an object.');
    if (a.path !== undefined && a.content === undefined)
      return fail('Attachments by `path` are not fetched by sandtrap; send their `content` as base64.');
    const bytes = decodeBase64(a.content);
    if (bytes === undefined) return fail('The attachment `content` must be base64.');
    if (typeof a.filename !== 'string' || a.filename === '')
      return fail('The attachment `filename` is required.');
    const cid = nonEmpty(a.content_id);
    attachments.push(
      attachmentOf(a.filename, bytes, {
        contentType: a.content_type,
        contentId: cid,
        disposition: cid === undefined ? undefined : 'inline',
      }),
    );
  }
  return {
    ok: true,
    value: {
      from: from[0] as ProviderAddress,
      to,
      cc,
      bcc,
      replyTo,
      subject: nonEmpty(body.subject) ?? '',
      text,
      html,
      attachments,
      headers,
      providerFields: fields,
    },
  };
}

type BatchParse = { mails: ProviderMail[]; errors: Array<{ index: number; message: string }> };

function parseBatch(body: unknown, permissive: boolean): Parsed<BatchParse> {
  if (!Array.isArray(body)) return fail('The batch must be a JSON array of emails.');
  if (body.length === 0) return fail('The batch must have at least one email.');
  if (body.length > MAX_BATCH) return fail(`A batch may have at most ${MAX_BATCH} emails.`);
  const out: BatchParse = { mails: [], errors: [] };
  for (const [index, item] of body.entries()) {
    const parsed = parseOne(item, true);
    if (parsed.ok) out.mails.push(parsed.value);
    else if (permissive) out.errors.push({ index, message: parsed.message });
    else return fail(`emails[${index}]: ${parsed.message}`);
  }
  return { ok: true, value: out };
}

export function resendRoutes(scope: FastifyInstance, core: Core): void {
  installBodyErrors(scope, dialect);
  scope.post('/emails', { bodyLimit: PROVIDER_BODY_LIMIT }, (request, reply) =>
    capture(
      core,
      dialect,
      request,
      reply,
      () => parseOne(request.body, false),
      (mail) => [mail],
      (ids) => reply.code(200).send({ id: ids[0] }),
    ),
  );
  scope.post('/emails/batch', { bodyLimit: PROVIDER_BODY_LIMIT }, (request: FastifyRequest, reply) => {
    const permissive = String(request.headers['x-batch-validation'] ?? '').toLowerCase() === 'permissive';
    return capture(
      core,
      dialect,
      request,
      reply,
      () => parseBatch(request.body, permissive),
      (batch) => batch.mails,
      (ids, batch) =>
        reply
          .code(200)
          .send({ data: ids.map((id) => ({ id })), ...(permissive ? { errors: batch.errors } : {}) }),
    );
  });
}
