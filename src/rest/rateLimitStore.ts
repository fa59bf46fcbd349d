// The REST limits' counter store with REDIS_URL: Redis, shared by every process, and while Redis is away this
// process's own memory, so the API keeps answering (limits fail open to per-process counts, never closed).
import { createRequire } from 'node:module';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';

type Counted = Parameters<FastifyRateLimitStore['incr']>[1];

// The plugin's own two stores: the fallback keeps their exact counting rules.
const require = createRequire(import.meta.url);
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  nameSpace: string,
) => FastifyRateLimitStore;
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
) => FastifyRateLimitStore;

class RedisOrLocal implements FastifyRateLimitStore {
  private readonly redis: Redis;
  private readonly shared: FastifyRateLimitStore;
  private readonly local: FastifyRateLimitStore;

  constructor(redis: Redis, shared: FastifyRateLimitStore, local: FastifyRateLimitStore) {
    this.redis = redis;
    this.shared = shared;
    this.local = local;
  }

  incr(key: string, callback: Counted, timeWindow: number, max: number): void {
    if (this.redis.status !== 'ready') return this.local.incr(key, callback, timeWindow, max);
    this.shared.incr(
      key,
      (err, result) => (err ? this.local.incr(key, callback, timeWindow, max) : callback(null, result)),
      timeWindow,
      max,
    );
  }

  child(routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
    return new RedisOrLocal(this.redis, this.shared.child(routeOptions), this.local.child(routeOptions));
  }
}

export function redisOrLocalStore(redis: Redis, nameSpace: string): FastifyRateLimitStoreCtor {
  return class extends RedisOrLocal {
    constructor(options: { continueExceeding?: boolean; exponentialBackoff?: boolean }) {
      const continueExceeding = options.continueExceeding ?? false;
      const exponentialBackoff = options.exponentialBackoff ?? false;
      super(
        redis,
        new RedisStore(continueExceeding, exponentialBackoff, redis, nameSpace),
        new LocalStore(continueExceeding, exponentialBackoff),
      );
    }
  };
}
