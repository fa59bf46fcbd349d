// GET /oauth/authorize: checks the request in core and sends the browser on to the consent page, or back to the
// client with an error, or (when the client or redirect_uri cannot be trusted) answers the error itself.
import type { FastifyInstance } from 'fastify';
import type { Core } from '../../core/core.ts';
import { sendOAuthError } from './oauthReply.ts';

export function authorizeRoute(scope: FastifyInstance, core: Core): void {
  scope.get('/oauth/authorize', async (request, reply) => {
    const start = await core.oauth.startAuthorization(request.query as Record<string, unknown>);
    // A redirect carrying a request id or an error for one client is never to be replayed from a cache.
    reply.header('Cache-Control', 'no-store');
    if (start.ok) {
      const consent = `${core.oauth.urls.issuer()}/oauth/consent/${encodeURIComponent(start.requestId)}`;
      return reply.redirect(consent, 302);
    }
    if (start.redirectTo !== undefined) return reply.redirect(start.redirectTo, 302);
    request.log.info({ error: start.error }, 'authorization request refused');
    return sendOAuthError(reply, start.status, start.error, start.description);
  });
}
