// The path every provider request takes: read the key, authenticate, parse the body into provider-independent
// mails, hand them to core, answer in the provider's own success or error shape (each dialect says how).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Core } from '../../core/core.ts';
import { isAppError } from '../../core/errors.ts';
import { logFailure } from '../../core/failureLog.ts';
import {
  isValidAddress,
  parseAddressList,
  type ProviderAddress,
  type ProviderAttachment,
  type ProviderMail,
  type ProviderName,
} from '../../core/mail/providers/providerMail.ts';
import type {
  ProviderCredential,
  ProviderRefusal,
  ProviderSendResult,
} from '../../core/mail/providers/service.ts';
import type { MailTarget } from '../../core/mail/smtpAccess.ts';

/** What a provider refuses, in words its error shape carries. `missing_key` and `unauthorized` differ only where
 * the provider tells them apart (Resend); neither says whether a sandbox exists. */
export type ProviderError =
  | ProviderRefusal
  | { reason: 'missing_key' }
  | { reason: 'bad_body'; message: string }
  | { reason: 'unavailable' };

/** A refused part of a request: the message the provider's error carries, and the field when it names one. */
export type Fail = { ok: false; message: string; field?: string };
export type Parsed<T> = { ok: true; value: T } | Fail;

export const fail = (message: string, field?: string): Fail => ({
  ok: false,
  message,
  ...(field === undefined ? {} : { field }),
});
export const isFail = (v: unknown): v is Fail => isRecord(v) && v.ok === false;

/** A string field that is set: undefined when absent, empty or not a string. */
export const nonEmpty = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : undefined;

/**
 * Addresses as the providers take them: strings that may each hold several (`Ann <a@x.test>, b@x.test`), all
 * checked; `refusal` words the provider's message for the first bad one.
 */
export function checkedAddresses(
  items: readonly string[],
  refusal: (bad: string) => string,
): ProviderAddress[] | Fail {
  const parsed = parseAddressList(items);
  const bad = parsed.find((a) => !isValidAddress(a.address));
  return bad === undefined ? parsed : fail(refusal(bad.address));
}

/** An attachment from the provider's fields, each optional one left out when it is not set. */
export function attachmentOf(
  filename: string,
  content: Buffer,
  options: {
    contentType?: unknown;
    contentId?: string | undefined;
    disposition?: 'attachment' | 'inline' | undefined;
  },
): ProviderAttachment {
  const type = nonEmpty(options.contentType);
  return {
    filename,
    content,
    ...(type === undefined ? {} : { contentType: type }),
    ...(options.contentId === undefined ? {} : { contentId: options.contentId }),
    ...(options.disposition === undefined ? {} : { disposition: options.disposition }),
  };
}

/** The provider's error body with its status, and Retry-After when the refusal is a rate limit. */
export function sendRefusal(
  reply: FastifyReply,
  error: ProviderError,
  status: number,
  body: Record<string, unknown>,
): FastifyReply {
  if (error.reason === 'rate_limited') reply.header('Retry-After', String(error.retryAfterSeconds));
  return reply.code(status).type('application/json').send(body);
}

export interface Dialect {
  name: ProviderName;
  /** The key as the provider's SDK presents it; undefined when absent. */
  credential(request: FastifyRequest): ProviderCredential | undefined;
  /** Sends the error in the provider's shape and status. */
  refuse(reply: FastifyReply, error: ProviderError): FastifyReply;
}

/** The provider's "body is not JSON" and "body too large" in its own shape (fastify's parser errors). */
export function installBodyErrors(scope: FastifyInstance, dialect: Dialect): void {
  scope.setErrorHandler((err: Error & { code?: string; statusCode?: number }, request, reply) => {
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return dialect.refuse(reply, { reason: 'too_large', limitBytes: PROVIDER_BODY_LIMIT });
    if (err.statusCode !== undefined && err.statusCode < 500)
      return dialect.refuse(reply, { reason: 'bad_body', message: err.message });
    logFailure(
      request.log,
      err,
      {},
      { refused: 'provider request refused', failed: 'provider request failed' },
    );
    return dialect.refuse(reply, { reason: 'unavailable' });
  });
}

/** Room for a 10 MB message whose attachments are base64 in JSON (4/3 of their size), and some to spare. */
export const PROVIDER_BODY_LIMIT = 30 * 1024 * 1024;

/**
 * Authenticates, parses and captures; `answer` sends the provider's success shape from the stored ids.
 * Authentication comes first, as at the providers: a wrong key is 401 whatever the body says.
 */
export async function capture<T>(
  core: Core,
  dialect: Dialect,
  request: FastifyRequest,
  reply: FastifyReply,
  parse: () => Parsed<T> | Promise<Parsed<T>>,
  /** The mails to store, or (messages.mime, Raw content) a send of its own kind. */
  toSend: (parsed: T) => ProviderMail[] | ((target: MailTarget) => Promise<ProviderSendResult>),
  answer: (ids: string[], parsed: T) => FastifyReply,
): Promise<FastifyReply> {
  const credential = dialect.credential(request);
  if (credential === undefined) return dialect.refuse(reply, { reason: 'missing_key' });
  try {
    const auth = await core.providers.authenticate(request.ip, credential);
    if (!auth.ok) return dialect.refuse(reply, auth);
    const parsed = await parse();
    if (!parsed.ok)
      return dialect.refuse(reply, {
        reason: 'invalid',
        errors: [{ path: parsed.field ?? '', message: parsed.message }],
      });
    const what = toSend(parsed.value);
    const result =
      typeof what === 'function'
        ? await what(auth.target)
        : await core.providers.send({
            provider: dialect.name,
            target: auth.target,
            ip: request.ip,
            mails: what,
          });
    if (!result.ok) return dialect.refuse(reply, result);
    return answer(result.messageIds, parsed.value);
  } catch (err) {
    logFailure(request.log, err, {}, { refused: 'provider send refused', failed: 'provider send failed' });
    if (isAppError(err) && err.code === 'payload_too_large')
      return dialect.refuse(reply, { reason: 'too_large', limitBytes: PROVIDER_BODY_LIMIT });
    return dialect.refuse(reply, { reason: 'unavailable' });
  }
}

/** `Authorization: Bearer <key>` (SendGrid, Resend). */
export function bearerKey(request: FastifyRequest): ProviderCredential | undefined {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.authorization ?? '');
  return match === null ? undefined : { key: match[1] as string };
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Attachment content as the providers send it: base64, line breaks allowed; undefined when it is not base64. */
export function decodeBase64(text: unknown): Buffer | undefined {
  if (typeof text !== 'string') return undefined;
  const compact = text.replace(/[\r\n]/g, '');
  if (compact.length % 4 === 1 || !BASE64.test(compact)) return undefined;
  return Buffer.from(compact, 'base64');
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A header object `{ "X-Name": "value" }` as ordered pairs; undefined when a value is not a string. */
export function headerPairs(value: unknown): Array<[string, string]> | undefined {
  if (value === undefined || value === null) return [];
  if (!isRecord(value)) return undefined;
  const out: Array<[string, string]> = [];
  for (const [name, v] of Object.entries(value)) {
    if (typeof v !== 'string') return undefined;
    out.push([name, v]);
  }
  return out;
}
