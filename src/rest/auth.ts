// API key authentication for /api/v1: `Authorization: Bearer <key>` or `X-Api-Key: <key>`.
import type { FastifyInstance } from 'fastify';
import type { AuthResult, Principal } from '../core/apiKeys.ts';
import type { Core } from '../core/core.ts';
import { duplicateCredentialMessage, presentedCredential } from '../core/credentials.ts';
import { sendProblem } from './errorHandler.ts';
import { problem } from '../core/problem.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

const REASONS: Record<Exclude<AuthResult, { ok: true }>['reason'], string> = {
  missing: 'No API key was sent. Send it as "Authorization: Bearer <key>" or "X-Api-Key: <key>".',
  malformed:
    'The API key is malformed (keys start with stk_ and carry a checksum). Check for a copy/paste error.',
  unknown: 'The API key is not recognised. Create a key with POST /api/v1/keys or `sandtrap keys create`.',
  revoked: 'The API key has been revoked. Use another key, or create a new one.',
  expired: 'The API key has expired. Create a new one with POST /api/v1/keys.',
};

export function installAuth(app: FastifyInstance, core: Core): void {
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (request, reply) => {
    const presented = presentedCredential(request.raw.rawHeaders);
    if (!presented.ok) {
      return sendProblem(
        reply,
        problem('validation-error', duplicateCredentialMessage(presented.header), request.id, request.url, [
          { path: presented.header, message: 'sent more than once' },
        ]),
      );
    }
    const result = await core.apiKeys.authenticate(presented.key, request.ip);
    if (result.ok) {
      request.principal = result.principal;
      return;
    }
    request.log.info({ reason: result.reason }, 'authentication refused');
    const challenge = result.reason === 'missing' ? '' : ', error="invalid_token"';
    reply.header('WWW-Authenticate', `Bearer realm="sandtrap"${challenge}`);
    return sendProblem(reply, problem('unauthorized', REASONS[result.reason], request.id, request.url));
  });
}
