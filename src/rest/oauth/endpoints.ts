// The authorization server and resource discovery on the API listener (discovery documents, /oauth/authorize,
// /oauth/token, /oauth/register, /oauth/revoke), in one scope that reads form bodies, answers every error in
// the RFCs' JSON and runs under the per-IP REST limit.
import formBody from '@fastify/formbody';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
} from 'fastify';
import type { Core } from '../../core/core.ts';
import { isAppError } from '../../core/errors.ts';
import { tooLarge } from '../../core/oauth/clientMetadata.ts';
import { authorizeRoute } from './authorize.ts';
import { allowAnyOrigin } from './cors.ts';
import { sendOAuthError } from './oauthReply.ts';
import { registerRoute } from './register.ts';
import { tokenFailureLimit } from './tokenFailureLimit.ts';
import { tokenRoutes } from './token.ts';
import { AUTHORIZATION_SERVER_PATHS, PROTECTED_RESOURCE_PATHS, wellKnownRoutes } from './wellKnown.ts';

export interface OAuthEndpointOptions {
  /** The per-IP REST limit (undefined with RATE_LIMITS=off). */
  perIp: onRequestHookHandler | undefined;
}

const REGISTER = '/oauth/register';

/** Framework and limit errors in this scope, in the RFC shape; anything else goes on to the API's handler. */
function oauthErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const metadata = request.routeOptions.url === REGISTER;
  const badInput = metadata ? 'invalid_client_metadata' : 'invalid_request';
  if (isAppError(err) && err.code === 'rate_limited') {
    if (err.retryAfterSeconds !== undefined) reply.header('Retry-After', String(err.retryAfterSeconds));
    return sendOAuthError(reply, 429, 'invalid_request', err.message);
  }
  if (isAppError(err)) throw err;
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      // RFC 7591 §3.2.2 answers every registration error with 400 and the error object; metadata past the
      // limit is invalid metadata, and clients read the reason from the body whatever the status.
      if (metadata) {
        // Refused from Content-Length before reading, or when a chunked body passed the limit (size unknown).
        const declared = Number(request.headers['content-length']);
        const bytes = Number.isInteger(declared) ? declared : undefined;
        request.log.info({ bytes }, 'client registration refused: metadata too large');
        return sendOAuthError(reply, 400, badInput, tooLarge(bytes).description);
      }
      return sendOAuthError(reply, 413, badInput, 'The request body is larger than this endpoint accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return sendOAuthError(
        reply,
        400,
        badInput,
        metadata
          ? 'Send the client metadata as application/json.'
          : 'Send the parameters as application/x-www-form-urlencoded.',
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return sendOAuthError(reply, 400, badInput, 'The request body is empty; send the client metadata.');
    default:
      if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
        return sendOAuthError(reply, 400, badInput, `The request body is not valid JSON: ${err.message}`);
      }
      if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
        return sendOAuthError(reply, 400, badInput, err.message);
      }
      throw err;
  }
}

export async function oauthEndpoints(
  scope: FastifyInstance,
  core: Core,
  { perIp }: OAuthEndpointOptions,
): Promise<void> {
  // Before the limit hook, so a 429 carries it too.
  allowAnyOrigin(scope, [
    ...PROTECTED_RESOURCE_PATHS,
    ...AUTHORIZATION_SERVER_PATHS,
    '/oauth/token',
    REGISTER,
    '/oauth/revoke',
  ]);
  if (perIp !== undefined) scope.addHook('onRequest', perIp);
  await scope.register(formBody);
  scope.setErrorHandler(oauthErrorHandler);
  wellKnownRoutes(scope, core);
  authorizeRoute(scope, core);
  tokenRoutes(scope, core, tokenFailureLimit(core.limits.oauthTokenFailures));
  registerRoute(scope, core);
}
