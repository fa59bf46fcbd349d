// Postmark's send API as the postmark SDK calls it: `POST /email`, `/email/batch`, `/email/withTemplate`, key in
// X-Postmark-Server-Token. Success `{ To, SubmittedAt, MessageID, ErrorCode: 0, Message: "OK" }`; errors
// `{ ErrorCode, Message }` with 422 (401 for the token), as the SDK's ErrorHandler expects.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Core } from '../../core/core.ts';
import { logFailure } from '../../core/failureLog.ts';
import type {
  ProviderAddress,
  ProviderAttachment,
  ProviderMail,
} from '../../core/mail/providers/providerMail.ts';
import type { ProviderRefusal } from '../../core/mail/providers/service.ts';
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

/** Postmark's limits: recipients per message, messages per batch. */
const MAX_RECIPIENTS = 50;
const MAX_BATCH = 500;

/** Postmark's API error codes (postmarkapp.com/developer/api/overview#error-codes). */
const CODE = { badToken: 10, invalidRequest: 300, invalidJson: 402 } as const;

function errorOf(error: ProviderError): { status: number; ErrorCode: number; Message: string } {
  switch (error.reason) {
    case 'missing_key':
    case 'unauthorized':
      return {
        status: 401,
        ErrorCode: CODE.badToken,
        Message:
          'The Server Token you provided in the X-Postmark-Server-Token request header was invalid. Please verify that you are using a valid token.',
      };
    case 'invalid':
      return {
        status: 422,
        ErrorCode: CODE.invalidRequest,
        Message: error.errors.map((e) => e.message).join('; '),
      };
    case 'bad_body':
      return { status: 422, ErrorCode: CODE.invalidJson, Message: 'Received invalid JSON input.' };
    case 'too_large':
      return {
        status: 422,
        ErrorCode: CODE.invalidRequest,
        Message: `The message is larger than ${error.limitBytes / (1024 * 1024)} MB.`,
      };
    case 'rate_limited':
      return { status: 429, ErrorCode: 0, Message: 'Rate limit exceeded; try again later.' };
    case 'unavailable':
      return { status: 503, ErrorCode: 0, Message: 'The service is unavailable; try again later.' };
  }
}

const dialect: Dialect = {
  name: 'postmark',
  credential(request: FastifyRequest) {
    const token = request.headers['x-postmark-server-token'];
    return typeof token === 'string' && token !== '' ? { key: token.trim() } : undefined;
  },
  refuse(reply: FastifyReply, error: ProviderError) {
    const { status, ...body } = errorOf(error);
    return sendRefusal(reply, error, status, body);
  },
};

function list(value: unknown, field: string): ProviderAddress[] | Fail {
  if (value === undefined || value === null || value === '') return [];
  if (typeof value !== 'string') return fail(`Error parsing '${field}': it must be a string of addresses.`);
  return checkedAddresses([value], (bad) => `Error parsing '${field}': Illegal email address '${bad}'.`);
}

/** One message of Postmark's JSON; `template` for /email/withTemplate (model instead of bodies). */
function parseOne(body: unknown, template: boolean): Parsed<ProviderMail> {
  if (!isRecord(body)) return fail('Received invalid JSON input.');
  const from = list(body.From, 'From');
  if (isFail(from)) return from;
  if (from.length !== 1)
    return fail(`Invalid 'From' address: '${typeof body.From === 'string' ? body.From : ''}'.`);
  const to = list(body.To, 'To');
  if (isFail(to)) return to;
  const cc = list(body.Cc, 'Cc');
  if (isFail(cc)) return cc;
  const bcc = list(body.Bcc, 'Bcc');
  if (isFail(bcc)) return bcc;
  const replyTo = list(body.ReplyTo, 'ReplyTo');
  if (isFail(replyTo)) return replyTo;
  const count = to.length + cc.length + bcc.length;
  if (count === 0) return fail('Zero recipients specified');
  if (count > MAX_RECIPIENTS) return fail(`You may not have more than ${MAX_RECIPIENTS} recipients.`);
  const fields: Array<[string, string]> = [];
  let text = nonEmpty(body.TextBody);
  const html = nonEmpty(body.HtmlBody);
  if (template) {
    const id = body.TemplateId ?? body.TemplateAlias;
    if ((typeof id !== 'string' && typeof id !== 'number') || id === '')
      return fail('Either TemplateId or TemplateAlias must be specified.');
    fields.push([body.TemplateId === undefined ? 'Template-Alias' : 'Template-Id', String(id)]);
    const model = isRecord(body.TemplateModel) ? body.TemplateModel : {};
    fields.push(['Template-Model', JSON.stringify(model)]);
    // The template renders at Postmark; here its model is the body, so codes and links in it can be found.
    text = JSON.stringify(model, null, 2);
  } else if (text === undefined && html === undefined) {
    return fail('Provide either email TextBody or HtmlBody or both.');
  }
  if (nonEmpty(body.Tag) !== undefined) fields.push(['Tag', body.Tag as string]);
  if (nonEmpty(body.MessageStream) !== undefined)
    fields.push(['Message-Stream', body.MessageStream as string]);
  if (isRecord(body.Metadata)) fields.push(['Metadata', JSON.stringify(body.Metadata)]);
  for (const key of ['TrackOpens', 'TrackLinks'] as const)
    if (body[key] !== undefined && body[key] !== null)
      fields.push([key === 'TrackOpens' ? 'Track-Opens' : 'Track-Links', String(body[key])]);
  const headers: Array<[string, string]> = [];
  for (const h of Array.isArray(body.Headers) ? body.Headers : []) {
    if (!isRecord(h) || typeof h.Name !== 'string' || typeof h.Value !== 'string')
      return fail("Each header needs a 'Name' and a 'Value'.");
    headers.push([h.Name, h.Value]);
  }
  const attachments: ProviderAttachment[] = [];
  for (const a of Array.isArray(body.Attachments) ? body.Attachments : []) {
    if (!isRecord(a) || typeof a.Name !== 'string' || a.Name === '')
      return fail("Attachments need a 'Name'.");
    const bytes = decodeBase64(a.Content);
    if (bytes === undefined) return fail(`Attachment '${a.Name}' has no valid base64 'Content'.`);
    const cid = nonEmpty(a.ContentID)?.replace(/^cid:/i, '');
    attachments.push(
      attachmentOf(a.Name, bytes, {
        contentType: a.ContentType,
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
      subject: nonEmpty(body.Subject) ?? '',
      text,
      html,
      attachments,
      headers,
      providerFields: fields,
    },
  };
}

const success = (id: string, body: unknown, now: Date) => ({
  To: isRecord(body) && typeof body.To === 'string' ? body.To : '',
  SubmittedAt: now.toISOString(),
  MessageID: id,
  ErrorCode: 0,
  Message: 'OK',
});

/** A batch answers 200 with one entry per message, refused ones carrying their own error (as Postmark does). */
async function batch(core: Core, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const credential = dialect.credential(request);
  if (credential === undefined) return dialect.refuse(reply, { reason: 'missing_key' });
  const auth = await core.providers.authenticate(request.ip, credential);
  if (!auth.ok) return dialect.refuse(reply, auth);
  const items = request.body;
  if (!Array.isArray(items)) return dialect.refuse(reply, { reason: 'bad_body', message: 'not an array' });
  if (items.length > MAX_BATCH)
    return dialect.refuse(reply, {
      reason: 'invalid',
      errors: [{ path: '', message: `A batch may have at most ${MAX_BATCH} messages.` }],
    });
  const entries = await Promise.all(
    items.map(async (item) => {
      const parsed = parseOne(item, false);
      const refused = (error: ProviderError) => {
        const { status: _status, ...body } = errorOf(error);
        return { ...body, To: isRecord(item) && typeof item.To === 'string' ? item.To : '' };
      };
      if (!parsed.ok) return refused({ reason: 'invalid', errors: [{ path: '', message: parsed.message }] });
      const result = await core.providers.send({
        provider: 'postmark',
        target: auth.target,
        ip: request.ip,
        mails: [parsed.value],
      });
      if (!result.ok) return refused(result as ProviderRefusal);
      return success(result.messageIds[0] as string, item, core.clock.now());
    }),
  );
  return reply.code(200).send(entries);
}

export function postmarkRoutes(scope: FastifyInstance, core: Core): void {
  installBodyErrors(scope, dialect);
  for (const [path, template] of [
    ['/email', false],
    ['/email/withTemplate', true],
  ] as const) {
    scope.post(path, { bodyLimit: PROVIDER_BODY_LIMIT }, (request, reply) =>
      capture(
        core,
        dialect,
        request,
        reply,
        () => parseOne(request.body, template),
        (mail) => [mail],
        (ids) => reply.code(200).send(success(ids[0] as string, request.body, core.clock.now())),
      ),
    );
  }
  scope.post('/email/batch', { bodyLimit: PROVIDER_BODY_LIMIT }, (request, reply) =>
    batch(core, request, reply).catch((err: unknown) => {
      logFailure(request.log, err, {}, { refused: 'provider send refused', failed: 'provider send failed' });
      return dialect.refuse(reply, { reason: 'unavailable' });
    }),
  );
}
