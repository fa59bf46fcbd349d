// REST rate limits with @fastify/rate-limit: per client IP before authentication, per API key after it.
// A wait counts once, when it starts. With Redis the counters are shared by every process.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../core/config.ts';
import { AppError } from '../core/errors.ts';

const WINDOW_MS = 60_000;

export interface ApiLimiters {
  perIp: onRequestHookHandler;
  perKey: onRequestHookHandler;
}

export async function installRateLimit(
  app: FastifyInstance,
  config: Pick<Config, 'rateLimits' | 'limits'>,
  redis: Redis | undefined,
): Promise<ApiLimiters | undefined> {
  if (!config.rateLimits) return undefined;
  await app.register(rateLimit, {
    global: false,
    ...(redis === undefined ? {} : { redis, nameSpace: 'sandtrap-rl-' }),
    errorResponseBuilder: (_request, context) =>
      new AppError(
        'rate_limited',
        `Rate limit of ${context.max} requests per minute exceeded; retry after ${Math.ceil(context.ttl / 1000)} s.`,
        { retryAfterSeconds: Math.max(1, Math.ceil(context.ttl / 1000)) },
      ),
  });
  return {
    perIp: app.rateLimit({
      max: config.limits.apiPerIp,
      timeWindow: WINDOW_MS,
      keyGenerator: (request) => `ip:${request.ip}`,
    }),
    perKey: app.rateLimit({
      max: config.limits.apiPerKey,
      timeWindow: WINDOW_MS,
      keyGenerator: (request) => `key:${request.principal.keyId}`,
    }),
  };
}
