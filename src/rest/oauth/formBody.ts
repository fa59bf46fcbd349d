// The form bodies of the token and revocation endpoints: application/x-www-form-urlencoded only (RFC 6749
// §3.2), refused before the body is read when another type is sent.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Params } from '../../core/oauth/params.ts';
import { sendOAuthError } from './oauthReply.ts';

/** Token and revocation requests are a few hundred bytes; a long client metadata URL still fits. */
export const FORM_BODY_LIMIT = 16 * 1024;

const FORM = 'application/x-www-form-urlencoded';

function mediaType(request: FastifyRequest): string | undefined {
  return request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
}

/** onRequest: a body of another type is invalid_request (no body at all reads as an empty form). */
export async function requireForm(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const type = mediaType(request);
  if (type === undefined || type === FORM) return;
  await sendOAuthError(
    reply,
    400,
    'invalid_request',
    `Send the parameters as ${FORM} (the body was ${type}).`,
  );
}

/** The parsed form: fast-querystring gives an array for a parameter sent twice, which core refuses. */
export function formOf(request: FastifyRequest): Params {
  const body = request.body;
  return typeof body === 'object' && body !== null ? (body as Params) : {};
}
