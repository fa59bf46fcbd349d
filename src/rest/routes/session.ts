// The dashboard's sign-in: POST /session exchanges an API key for a session cookie, GET /session says who the
// cookie stands for, DELETE /session signs out. These routes authenticate themselves (the key is in the body,
// or the cookie is the subject), so they sit outside the /api/v1 auth hook.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Core } from '../../core/core.ts';
import type { SessionView } from '../../core/sessions.ts';
import { parseInput } from '../../core/validation.ts';
import { problem } from '../../core/problem.ts';
import type { components } from '../../../openapi/schema.d.ts';
import { KEY_REFUSALS, refuseCrossSite, refuseSession, refuseSeveralSessions } from '../auth.ts';
import { sendProblem } from '../errorHandler.ts';
import {
  clearedSessionCookie,
  clearedSessionCookies,
  presentedSession,
  requestOrigin,
  sessionCookie,
} from '../sessionCookie.ts';

const signIn = z.object({ apiKey: z.string().max(200) });

function sessionDto(s: SessionView): components['schemas']['Session'] {
  return {
    workspaceId: s.workspaceId,
    keyId: s.keyId,
    keyLabel: s.keyLabel,
    expiresAt: s.expiresAt.toISOString(),
  };
}

export function sessionRoutes(app: FastifyInstance, core: Core): void {
  const origin = requestOrigin(core.config);
  // Nothing about a session may be kept by a cache between the browser and us.
  app.addHook('onSend', async (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
  });

  app.post('/session', async (request, reply) => {
    // A browser always names the page that sends a POST; another site's page must not sign this browser in
    // (into the other site's workspace). Scripts and curl send no Origin and are not at risk.
    if (request.headers.origin !== undefined && !origin.isOwnOrigin(request)) {
      return refuseCrossSite(request, reply);
    }
    const { apiKey } = parseInput(signIn, request.body, 'request body');
    const opened = await core.sessions.open(apiKey, request.ip);
    if (!opened.ok) {
      request.log.info({ reason: opened.reason }, 'sign-in refused');
      reply.header('WWW-Authenticate', 'Bearer realm="sandtrap", error="invalid_token"');
      return sendProblem(
        reply,
        problem('unauthorized', KEY_REFUSALS[opened.reason], request.id, request.url),
      );
    }
    const maxAge = (opened.session.expiresAt.getTime() - core.clock.now().getTime()) / 1000;
    reply.header('Set-Cookie', sessionCookie(opened.token, maxAge, origin.https(request)));
    return sessionDto(opened.session);
  });

  app.get('/session', async (request, reply) => {
    const cookie = presentedSession(request.headers.cookie, origin.https(request));
    if (cookie.kind === 'several') return refuseSeveralSessions(request, reply, cookie.names, origin);
    if (cookie.kind === 'none') return notSignedIn(request, reply);
    const session = await core.sessions.authenticate(cookie.token);
    if (!session.ok) return refuseSession(request, reply, session.reason, origin);
    return sessionDto(session.session);
  });

  app.delete('/session', async (request, reply) => {
    const cookie = presentedSession(request.headers.cookie, origin.https(request));
    if (cookie.kind === 'one') {
      if (!origin.isOwnOrigin(request)) return refuseCrossSite(request, reply);
      await core.sessions.end(cookie.token);
    }
    // Signing out with several cookies ends none of their sessions (which is the person's is unknown) but
    // drops them all from the browser.
    reply.header(
      'Set-Cookie',
      cookie.kind === 'several'
        ? clearedSessionCookies(cookie.names, request.url, origin.https(request))
        : clearedSessionCookie(origin.https(request)),
    );
    return reply.code(204).send();
  });
}

function notSignedIn(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('WWW-Authenticate', 'Bearer realm="sandtrap"');
  return sendProblem(
    reply,
    problem(
      'unauthorized',
      'Not signed in: no session cookie was sent. Sign in with POST /api/v1/session {"apiKey": "stk_..."}.',
      request.id,
      request.url,
    ),
  );
}
