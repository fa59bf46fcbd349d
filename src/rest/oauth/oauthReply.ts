// OAuth errors as the RFCs answer them (RFC 6749 §5.2, RFC 7591 §3.2.2): a JSON object with `error` and an
// `error_description` that says what to fix, never cached.
import type { FastifyReply } from 'fastify';
import type { OAuthErrorCode } from '../../core/oauth/types.ts';

export interface OAuthErrorBody {
  error: OAuthErrorCode;
  error_description: string;
}

export function sendOAuthError(
  reply: FastifyReply,
  status: number,
  error: OAuthErrorCode,
  description: string,
): FastifyReply {
  // A 401 must name a scheme (RFC 9110 §15.5.2); the token and revocation endpoints take HTTP Basic.
  if (status === 401) reply.header('WWW-Authenticate', 'Basic realm="sandtrap"');
  const body: OAuthErrorBody = { error, error_description: description };
  return reply.code(status).header('Cache-Control', 'no-store').type('application/json').send(body);
}
