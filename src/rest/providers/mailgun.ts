// Mailgun's send API as mailgun.js calls it: `POST /v3/<domain>/messages` (form or multipart: from, to, cc, bcc,
// subject, text, html, attachment, inline, h:<header>, v:<variable>, o:<option>) and `/messages.mime` (a built
// message in `message`). Basic auth `api:<smtpPassword>`. Success `{ id, message: "Queued. Thank you." }`;
// errors `{ message }` with 400 (401 `Forbidden` for the key), as mailgun.js reads them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Core } from '../../core/core.ts';
import {
  parseAddressList,
  type ProviderAddress,
  type ProviderAttachment,
  type ProviderMail,
} from '../../core/mail/providers/providerMail.ts';
import {
  capture,
  checkedAddresses,
  fail,
  installBodyErrors,
  isFail,
  PROVIDER_BODY_LIMIT,
  sendRefusal,
  type Dialect,
  type Fail,
  type Parsed,
  type ProviderError,
} from './flow.ts';
import { readForm, type FormBody } from './form.ts';

function errorOf(error: ProviderError): { status: number; message: string } {
  switch (error.reason) {
    case 'missing_key':
    case 'unauthorized':
      return { status: 401, message: 'Forbidden' };
    case 'invalid':
      return { status: 400, message: error.errors.map((e) => e.message).join('; ') };
    case 'bad_body':
      return { status: 400, message: 'The request body is not a valid form.' };
    case 'too_large':
      return { status: 413, message: `The message is larger than ${error.limitBytes / (1024 * 1024)} MB.` };
    case 'rate_limited':
      return { status: 429, message: 'Too many requests; try again later.' };
    case 'unavailable':
      return { status: 503, message: 'The service is unavailable; try again later.' };
  }
}

const dialect: Dialect = {
  name: 'mailgun',
  credential(request: FastifyRequest) {
    const basic = /^Basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i.exec(request.headers.authorization ?? '');
    if (basic === null) return undefined;
    const decoded = Buffer.from(basic[1] as string, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    // Mailgun's user is always `api`; any other is a wrong key, answered the same way.
    return decoded.slice(0, colon) === 'api' ? { key: decoded.slice(colon + 1) } : { key: '' };
  },
  refuse(reply: FastifyReply, error: ProviderError) {
    const { status, message } = errorOf(error);
    return sendRefusal(reply, error, status, { message });
  },
};

function all(form: FormBody, name: string): string[] {
  return form.fields.filter(([n]) => n === name).map(([, v]) => v);
}

function addresses(form: FormBody, name: string): ProviderAddress[] | Fail {
  return checkedAddresses(all(form, name), (bad) => `'${name}' parameter is not a valid address: ${bad}`);
}

function parseMessage(form: FormBody | undefined): Parsed<ProviderMail> {
  if (form === undefined) return fail('The request body is not a valid form.');
  const from = addresses(form, 'from');
  if (isFail(from)) return from;
  if (from.length === 0) return fail("'from' parameter is missing");
  const to = addresses(form, 'to');
  if (isFail(to)) return to;
  if (to.length === 0) return fail("'to' parameter is missing");
  const cc = addresses(form, 'cc');
  if (isFail(cc)) return cc;
  const bcc = addresses(form, 'bcc');
  if (isFail(bcc)) return bcc;
  const first = (name: string) => all(form, name).find((v) => v !== '');
  const template = first('template');
  let text = first('text');
  const html = first('html');
  const fields: Array<[string, string]> = [];
  if (template !== undefined) {
    fields.push(['Template', template]);
    const variables = first('t:variables') ?? first('h:X-Mailgun-Variables');
    if (variables !== undefined) fields.push(['Template-Variables', variables]);
    // The template renders at Mailgun; here its variables are the body, so codes and links in them can be found.
    if (text === undefined && html === undefined) text = variables ?? '';
  } else if (text === undefined && html === undefined && first('amp-html') === undefined) {
    return fail("Need at least one of 'text', 'html' or 'template' parameters specified");
  }
  const subject = first('subject');
  if (subject === undefined && template === undefined) return fail("'subject' parameter is missing");
  let replyTo: ProviderAddress[] = [];
  const headers: Array<[string, string]> = [];
  const variables: Record<string, string> = {};
  for (const [name, value] of form.fields) {
    if (name.startsWith('h:')) {
      const header = name.slice(2);
      // Mailgun takes Reply-To as a header; it is a field of its own here.
      if (header.toLowerCase() === 'reply-to') {
        const parsed = checkedAddresses([value], () => `'h:Reply-To' is not a valid address`);
        if (isFail(parsed)) return parsed;
        replyTo = parsed;
      } else headers.push([header, value]);
    } else if (name.startsWith('v:')) variables[name.slice(2)] = value;
    else if (name === 'o:tag') fields.push(['Tag', value]);
    else if (name.startsWith('o:')) fields.push([`Option-${name.slice(2)}`, value]);
    else if (name === 'recipient-variables') fields.push(['Recipient-Variables', value]);
  }
  if (Object.keys(variables).length > 0) fields.push(['Variables', JSON.stringify(variables)]);
  const attachments: ProviderAttachment[] = form.files
    .filter((f) => f.field === 'attachment' || f.field === 'inline')
    .map((f) => ({
      filename: f.filename,
      content: f.content,
      contentType: f.contentType,
      // Mailgun's inline images are referred to by file name: <img src="cid:logo.png">.
      ...(f.field === 'inline' ? { contentId: f.filename, disposition: 'inline' as const } : {}),
    }));
  return {
    ok: true,
    value: {
      from: from[0] as ProviderAddress,
      to,
      cc,
      bcc,
      replyTo,
      subject: subject ?? '',
      text,
      html,
      attachments,
      headers,
      providerFields: fields,
    },
  };
}

type Mime = { raw: Buffer; recipients: string[] };

function parseMime(form: FormBody | undefined): Parsed<Mime> {
  if (form === undefined) return fail('The request body is not a valid form.');
  const to = parseAddressList(all(form, 'to'));
  if (to.length === 0) return fail("'to' parameter is missing");
  const file = form.files.find((f) => f.field === 'message');
  const text = all(form, 'message')[0];
  if (file === undefined && text === undefined) return fail("'message' parameter is missing");
  return {
    ok: true,
    value: { raw: file?.content ?? Buffer.from(text as string), recipients: to.map((a) => a.address) },
  };
}

const queued = (reply: FastifyReply, domain: string, id: string) =>
  reply.code(200).send({ id: `<${id}@${domain}>`, message: 'Queued. Thank you.' });

export function mailgunRoutes(scope: FastifyInstance, core: Core): void {
  installBodyErrors(scope, dialect);
  // Kept as bytes here and read as a form in the route, after the key is checked.
  scope.addContentTypeParser(
    ['application/x-www-form-urlencoded', 'multipart/form-data'],
    { parseAs: 'buffer', bodyLimit: PROVIDER_BODY_LIMIT },
    (_request, body, done) => done(null, body),
  );
  const form = (request: FastifyRequest) =>
    Buffer.isBuffer(request.body)
      ? readForm(request.headers['content-type'] ?? '', request.body)
      : Promise.resolve(undefined);
  scope.post<{ Params: { domain: string } }>(
    '/v3/:domain/messages',
    { bodyLimit: PROVIDER_BODY_LIMIT },
    (request, reply) =>
      capture(
        core,
        dialect,
        request,
        reply,
        async () => parseMessage(await form(request)),
        (mail) => [mail],
        (ids) => queued(reply, request.params.domain, ids[0] as string),
      ),
  );
  scope.post<{ Params: { domain: string } }>(
    '/v3/:domain/messages.mime',
    { bodyLimit: PROVIDER_BODY_LIMIT },
    (request, reply) =>
      capture(
        core,
        dialect,
        request,
        reply,
        async () => parseMime(await form(request)),
        (mime) => (target) =>
          core.providers.sendMime({ provider: 'mailgun', target, ip: request.ip, ...mime }),
        (ids) => queued(reply, request.params.domain, ids[0] as string),
      ),
  );
}
