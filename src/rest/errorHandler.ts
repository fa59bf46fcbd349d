// The one place where errors become HTTP answers: core errors, fastify's own errors, unknown routes, crashes.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAppError } from '../core/errors.ts';
import { logFailure } from '../core/failureLog.ts';
import type { components } from '../../openapi/schema.d.ts';
import { problem, SLUG_OF_CODE, type ProblemBody } from '../core/problem.ts';

/** The published problem shape: core's body must stay assignable to it, so a drift fails to compile. */
type PublishedProblem = components['schemas']['ValidationProblem'] & { requestId: string };

export function sendProblem(reply: FastifyReply, body: ProblemBody & PublishedProblem): FastifyReply {
  return reply
    .code(body.status ?? 500)
    .type('application/problem+json')
    .send(body);
}

/** fastify's own 4xx errors (bad JSON, wrong content type, body too large) in our shape. */
function frameworkProblem(err: FastifyError, request: FastifyRequest): ProblemBody | undefined {
  const at = request.url;
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problem('payload-too-large', 'The request body is larger than the API accepts.', request.id, at);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return problem(
        'validation-error',
        'Send the request body as JSON with Content-Type: application/json.',
        request.id,
        at,
        [
          {
            path: '(body)',
            message: `content type ${request.headers['content-type'] ?? '(none)'} is not accepted`,
          },
        ],
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return problem('validation-error', 'The request body is empty; send a JSON object.', request.id, at, [
        { path: '(body)', message: 'is empty' },
      ]);
    default:
      if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
        return problem('validation-error', 'The request body is not valid JSON.', request.id, at, [
          { path: '(body)', message: err.message },
        ]);
      }
      if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
        return problem('validation-error', err.message, request.id, at);
      }
      return undefined;
  }
}

export function installErrorHandling(
  app: FastifyInstance,
  /** Answers a browser's unknown page (the dashboard's 404 view); undefined leaves it to the problem below. */
  notFoundPage?: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>,
): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (isAppError(err)) {
      if (err.retryAfterSeconds !== undefined) reply.header('Retry-After', String(err.retryAfterSeconds));
      const body = problem(SLUG_OF_CODE[err.code], err.message, request.id, request.url, err.errors);
      if (err.code === 'unavailable' || (body.status ?? 0) >= 500)
        logFailure(request.log, err, {}, { refused: 'request refused', failed: 'request failed' });
      return sendProblem(reply, body);
    }
    const known = frameworkProblem(err, request);
    if (known !== undefined) return sendProblem(reply, known);
    request.log.error({ err }, 'unhandled error');
    return sendProblem(
      reply,
      problem(
        'internal',
        'Something went wrong on our side. Retry; if it persists, report this requestId.',
        request.id,
        request.url,
      ),
    );
  });

  app.setNotFoundHandler(async (request, reply) => {
    const page = await notFoundPage?.(request, reply);
    if (page !== undefined) return page;
    return sendProblem(
      reply,
      problem(
        'not-found',
        `No endpoint ${request.method} ${request.url.split('?')[0]}. The API lives under /api/v1; see /api-docs.`,
        request.id,
        request.url,
      ),
    );
  });
}
