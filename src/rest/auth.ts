// Authentication for /api/v1: `Authorization: Bearer <key>` or `X-Api-Key: <key>`, or else the dashboard's
// session cookie. A write made with the cookie must come from our own origin (the browser's Origin header):
// the cookie is sent by the browser on its own, the key never is. OAuth tokens are for /mcp only.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthResult, Principal } from '../core/apiKeys.ts';
import type { Core } from '../core/core.ts';
import { duplicateCredentialMessage, presentedCredential } from '../core/credentials.ts';
import type { SessionAuth } from '../core/sessions.ts';
import { sendProblem } from './errorHandler.ts';
import { problem } from '../core/problem.ts';
import {
  clearedSessionCookie,
  clearedSessionCookies,
  presentedSession,
  requestOrigin,
  type RequestOrigin,
} from './sessionCookie.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

export const KEY_REFUSALS: Record<Exclude<AuthResult, { ok: true }>['reason'], string> = {
  missing: 'No API key was sent. Send it as "Authorization: Bearer <key>" or "X-Api-Key: <key>".',
  malformed:
    'The API key is malformed (keys start with stk_ and carry a checksum). Check for a copy/paste error.',
  unknown: 'The API key is not recognised. Create a key with POST /api/v1/keys or `sandtrap keys create`.',
  revoked: 'The API key has been revoked. Use another key, or create a new one.',
  expired: 'The API key has expired. Create a new one with POST /api/v1/keys.',
};

export const SESSION_REFUSALS: Record<Exclude<SessionAuth, { ok: true }>['reason'], string> = {
  unknown: 'The dashboard session is not valid (signed out, or never opened). Sign in again with an API key.',
  expired: 'The dashboard session has expired. Sign in again with an API key.',
  'key-revoked': 'The API key this session was opened with has been revoked. Sign in with another key.',
  'key-expired': 'The API key this session was opened with has expired. Sign in with another key.',
};

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** 401 for a refused session; the dead cookie is cleared so the browser stops sending it. */
export function refuseSession(
  request: FastifyRequest,
  reply: FastifyReply,
  reason: Exclude<SessionAuth, { ok: true }>['reason'],
  origin: RequestOrigin,
): FastifyReply {
  request.log.info({ reason }, 'session refused');
  reply.header('WWW-Authenticate', 'Bearer realm="sandtrap"');
  reply.header('Set-Cookie', clearedSessionCookie(origin.https(request)));
  return sendProblem(reply, problem('unauthorized', SESSION_REFUSALS[reason], request.id, request.url));
}

export const SEVERAL_SESSIONS_REFUSAL =
  'More than one dashboard session cookie was sent, so none is trusted (one may have been planted by another ' +
  'site on this host). They are cleared now: sign in again with an API key.';

/** 401 for a request that carries two or more session cookies; the reply clears every one it can reach. */
export function refuseSeveralSessions(
  request: FastifyRequest,
  reply: FastifyReply,
  names: string[],
  origin: RequestOrigin,
): FastifyReply {
  request.log.warn({ names }, 'several session cookies refused');
  reply.header('WWW-Authenticate', 'Bearer realm="sandtrap"');
  reply.header('Set-Cookie', clearedSessionCookies(names, request.url, origin.https(request)));
  return sendProblem(reply, problem('unauthorized', SEVERAL_SESSIONS_REFUSAL, request.id, request.url));
}

/** 403 for a cookie-authenticated write from another origin (or none): a cross-site request forgery. */
export function refuseCrossSite(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  request.log.warn({ origin: request.headers.origin ?? null }, 'cross-site write refused');
  const sent = request.headers.origin === undefined ? 'no Origin header' : `Origin ${request.headers.origin}`;
  return reply
    .code(403)
    .type('application/problem+json')
    .send({
      type: 'urn:sandtrap:problem:cross-site',
      title: 'Forbidden',
      status: 403,
      detail:
        `A change made with the dashboard's session cookie must come from the dashboard itself; this one ` +
        `came with ${sent}, so nothing was changed. Scripts and other sites send the API key instead.`,
      instance: request.url,
      requestId: request.id,
    });
}

/** 401 for an OAuth access or refresh token: its audience is /mcp, never the REST API (RFC 8707). */
function refuseOAuthToken(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  request.log.info('OAuth token refused on REST');
  reply.header('WWW-Authenticate', 'Bearer realm="sandtrap", error="invalid_token"');
  return sendProblem(reply, problem('unauthorized', OAUTH_TOKEN_REFUSAL, request.id, request.url));
}

export const OAUTH_TOKEN_REFUSAL =
  'This is an OAuth access token for /mcp; the REST API takes an API key (stk_...). Send an API key as ' +
  '"Authorization: Bearer <key>" or "X-Api-Key: <key>"; create one with POST /api/v1/keys or `sandtrap keys create`.';

export function installAuth(app: FastifyInstance, core: Core): void {
  const origin = requestOrigin(core.config);
  // Declared null before hooks run (fastify keeps request shapes stable); the empty list picks the null overload.
  app.decorateRequest('principal', null, []);
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
    if (presented.key !== undefined && core.oauth.isOAuthToken(presented.key)) {
      return refuseOAuthToken(request, reply);
    }
    const cookie =
      presented.key === undefined
        ? presentedSession(request.headers.cookie, origin.https(request))
        : ({ kind: 'none' } as const);
    if (cookie.kind === 'several') return refuseSeveralSessions(request, reply, cookie.names, origin);
    if (cookie.kind === 'one') {
      const session = await core.sessions.authenticate(cookie.token);
      if (!session.ok) return refuseSession(request, reply, session.reason, origin);
      if (WRITES.has(request.method) && !origin.isOwnOrigin(request)) return refuseCrossSite(request, reply);
      request.principal = session.principal;
      return;
    }
    const result = await core.apiKeys.authenticate(presented.key, request.ip);
    if (result.ok) {
      request.principal = result.principal;
      return;
    }
    request.log.info({ reason: result.reason }, 'authentication refused');
    const challenge = result.reason === 'missing' ? '' : ', error="invalid_token"';
    reply.header('WWW-Authenticate', `Bearer realm="sandtrap"${challenge}`);
    return sendProblem(reply, problem('unauthorized', KEY_REFUSALS[result.reason], request.id, request.url));
  });
}
