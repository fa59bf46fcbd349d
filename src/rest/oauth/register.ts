// POST /oauth/register: Dynamic Client Registration (RFC 7591), the metadata checked and the registrations per
// address counted in core.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import proxyaddr from 'proxy-addr';
import type { Core } from '../../core/core.ts';
import { MAX_CLIENT_METADATA_BYTES } from '../../core/oauth/clientMetadata.ts';
import { sendOAuthError } from './oauthReply.ts';

/** Never read more than core would accept; a larger body is refused as it arrives (endpoints.ts). */
export const REGISTRATION_BODY_LIMIT = MAX_CLIENT_METADATA_BYTES;

async function requireJson(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (type === undefined || type === 'application/json') return;
  await sendOAuthError(
    reply,
    400,
    'invalid_client_metadata',
    `Send the client metadata as application/json (the body was ${type}).`,
  );
}

/** The body's size as sent, for the log: its Content-Length, else (chunked) the parsed JSON's. */
function bodyBytes(request: FastifyRequest): number {
  const declared = Number(request.headers['content-length']);
  return Number.isInteger(declared) ? declared : Buffer.byteLength(JSON.stringify(request.body) ?? '');
}

export function registerRoute(scope: FastifyInstance, core: Core): void {
  // Behind a trusted proxy (TRUSTED_PROXIES) the client's own address, as the token failure limit counts it.
  const trust = proxyaddr.compile(core.config.trustedProxies);
  scope.post(
    '/oauth/register',
    { bodyLimit: REGISTRATION_BODY_LIMIT, onRequest: requireJson },
    async (request, reply) => {
      const address = proxyaddr(request.raw, trust);
      const bytes = bodyBytes(request);
      const result = await core.oauth.register(request.body, { address });
      if (!result.ok) {
        request.log.info({ error: result.error, bytes, address }, 'client registration refused');
        if (result.status === 429) reply.header('Retry-After', String(result.retryAfterSeconds));
        return sendOAuthError(reply, result.status, result.error, result.description);
      }
      request.log.info({ clientId: result.registration.client_id, bytes, address }, 'client registered');
      // The answer may carry the client secret: never kept by a cache.
      return reply.code(201).header('Cache-Control', 'no-store').send(result.registration);
    },
  );
}
