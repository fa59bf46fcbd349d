// POST /oauth/register: Dynamic Client Registration (RFC 7591), the metadata checked in core.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Core } from '../../core/core.ts';
import { sendOAuthError } from './oauthReply.ts';

/** Client metadata is a small JSON object; a generous bound for many redirect URIs and a long name. */
export const REGISTRATION_BODY_LIMIT = 64 * 1024;

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

export function registerRoute(scope: FastifyInstance, core: Core): void {
  scope.post(
    '/oauth/register',
    { bodyLimit: REGISTRATION_BODY_LIMIT, onRequest: requireJson },
    async (request, reply) => {
      const result = await core.oauth.register(request.body);
      if (!result.ok) {
        request.log.info({ error: result.error }, 'client registration refused');
        return sendOAuthError(reply, result.status, result.error, result.description);
      }
      request.log.info({ clientId: result.registration.client_id }, 'client registered');
      // The answer may carry the client secret: never kept by a cache.
      return reply.code(201).header('Cache-Control', 'no-store').send(result.registration);
    },
  );
}
