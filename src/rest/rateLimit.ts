// REST rate limits as fastify hooks over core's limiters (core/rateLimits.ts): per client IP before
// authentication, per API key after it. A wait counts once, when it starts.
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Config } from '../core/config.ts';
import { AppError } from '../core/errors.ts';
import type { Limiter, RateLimits } from '../core/rateLimits.ts';

export interface ApiLimiters {
  perIp: onRequestHookHandler;
  perKey: onRequestHookHandler;
  /** GET /healthz per client address: it needs no key, so it has a budget of its own. */
  healthz: onRequestHookHandler;
}

/** One hook per limit: counts the request under its key, and past the limit answers 429 (errorHandler.ts). */
function hook(
  limiter: Limiter,
  max: number,
  keyOf: (request: FastifyRequest) => string,
): onRequestHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const result = await limiter.consume(keyOf(request));
    if (result.ok) return;
    reply.header('X-RateLimit-Limit', String(max));
    reply.header('X-RateLimit-Remaining', '0');
    throw new AppError(
      'rate_limited',
      `Rate limit of ${max} requests per minute exceeded; retry in ${result.retryAfterSeconds} s.`,
      { retryAfterSeconds: result.retryAfterSeconds },
    );
  };
}

/** The hooks, or undefined when RATE_LIMITS=off (no hook, no header). */
export function apiLimiters(
  limits: Pick<RateLimits, 'apiPerIp' | 'apiPerKey' | 'healthzPerIp'>,
  config: Pick<Config, 'rateLimits' | 'limits'>,
): ApiLimiters | undefined {
  if (!config.rateLimits) return undefined;
  return {
    perIp: hook(limits.apiPerIp, config.limits.apiPerIp, (request) => request.ip),
    perKey: hook(limits.apiPerKey, config.limits.apiPerKey, (request) => request.principal.keyId),
    healthz: hook(limits.healthzPerIp, config.limits.healthzPerIp, (request) => request.ip),
  };
}
