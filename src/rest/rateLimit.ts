// REST rate limits with @fastify/rate-limit: per client IP before authentication, per API key after it.
// A wait counts once, when it starts. With Redis the counters are shared by every process (and kept in this
// process's memory while Redis is away).
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../core/config.ts';
import { AppError } from '../core/errors.ts';
import { redisOrLocalStore } from './rateLimitStore.ts';

const WINDOW_MS = 60_000;

export interface ApiLimiters {
  perIp: onRequestHookHandler;
  perKey: onRequestHookHandler;
  /** GET /healthz per client address: it needs no key, so it has a budget of its own. */
  healthz: onRequestHookHandler;
}

export async function installRateLimit(
  app: FastifyInstance,
  config: Pick<Config, 'rateLimits' | 'limits'>,
  redis: Redis | undefined,
): Promise<ApiLimiters | undefined> {
  if (!config.rateLimits) return undefined;
  await app.register(rateLimit, {
    global: false,
    ...(redis === undefined ? {} : { store: redisOrLocalStore(redis, 'sandtrap-rl-') }),
  });

  // `createRateLimit` (not `rateLimit`): the plugin's ready-made hooks run once per request, and a request
  // here passes two limits.
  const hook = (max: number, keyOf: (request: FastifyRequest) => string): onRequestHookHandler => {
    const check = app.createRateLimit({ max, timeWindow: WINDOW_MS, keyGenerator: keyOf });
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const result = await check(request);
      if (result.isAllowed || !result.isExceeded) return;
      const seconds = Math.max(1, result.ttlInSeconds);
      reply.header('X-RateLimit-Limit', String(max));
      reply.header('X-RateLimit-Remaining', '0');
      throw new AppError(
        'rate_limited',
        `Rate limit of ${max} requests per minute exceeded; retry in ${seconds} s.`,
        {
          retryAfterSeconds: seconds,
        },
      );
    };
  };
  return {
    perIp: hook(config.limits.apiPerIp, (request) => `ip:${request.ip}`),
    perKey: hook(config.limits.apiPerKey, (request) => `key:${request.principal.keyId}`),
    healthz: hook(config.limits.healthzPerIp, (request) => `healthz:${request.ip}`),
  };
}
