// POST /oauth/token and POST /oauth/revoke: client authentication read from the request, the grant decided in
// core; failed token requests counted per client and address so guessing is slowed.
import type { FastifyInstance } from 'fastify';
import proxyaddr from 'proxy-addr';
import type { Core } from '../../core/core.ts';
import { presentedClient } from './clientAuth.ts';
import { FORM_BODY_LIMIT, formOf, requireForm } from './formBody.ts';
import { sendOAuthError } from './oauthReply.ts';
import type { TokenFailureLimit } from './tokenFailureLimit.ts';

export function tokenRoutes(scope: FastifyInstance, core: Core, failures: TokenFailureLimit): void {
  // Behind a trusted proxy (TRUSTED_PROXIES) the client's own address, so users of one proxy are told apart.
  const trust = proxyaddr.compile(core.config.trustedProxies);
  scope.post(
    '/oauth/token',
    { bodyLimit: FORM_BODY_LIMIT, onRequest: requireForm },
    async (request, reply) => {
      const form = formOf(request);
      const presented = presentedClient(request.raw.rawHeaders, form);
      if (!presented.ok) {
        return sendOAuthError(reply, presented.status, presented.error, presented.description);
      }
      const clientId = presented.client.clientId;
      // Counted per client AND address: client ids are public (a metadata document's URL is shared by every
      // user of that client), so a count per id alone would let anyone lock the client out.
      const failureKey = (id: string) => `${id}\u0000${proxyaddr(request.raw, trust)}`;
      if (clientId !== undefined) {
        const wait = await failures.blockedFor(failureKey(clientId));
        if (wait !== undefined) {
          request.log.warn({ clientId }, 'token request refused: too many failures for this client');
          reply.header('Retry-After', String(wait));
          return sendOAuthError(
            reply,
            429,
            'invalid_request',
            `Too many failed token requests for this client; retry in ${wait} s.`,
          );
        }
      }
      const result = await core.oauth.token(form, presented.client);
      if (result.ok) {
        return reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache').send(result.tokens);
      }
      const failedFor = result.clientId ?? clientId;
      if (failedFor !== undefined) await failures.failed(failureKey(failedFor));
      request.log.info({ error: result.error, clientId: failedFor }, 'token request refused');
      return sendOAuthError(reply, result.status, result.error, result.description);
    },
  );

  scope.post(
    '/oauth/revoke',
    { bodyLimit: FORM_BODY_LIMIT, onRequest: requireForm },
    async (request, reply) => {
      const form = formOf(request);
      const presented = presentedClient(request.raw.rawHeaders, form);
      if (!presented.ok) {
        return sendOAuthError(reply, presented.status, presented.error, presented.description);
      }
      const result = await core.oauth.revoke(form, presented.client);
      // RFC 7009 §2.2: 200 whether or not the token was known (an unknown one is already "revoked").
      if (result.ok) return reply.code(200).header('Cache-Control', 'no-store').send();
      return sendOAuthError(reply, result.status, result.error, result.description);
    },
  );
}
