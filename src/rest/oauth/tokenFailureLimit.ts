// Failed token requests per client_id (10 in 60 s, then 429 until the window passes), counted only when a
// request fails, so a client guessing secrets, codes or verifiers is slowed while a working client never is.
// With Redis every process shares the counts (and this process's memory stands in while Redis is away), as
// core's ingress limits do.
import { createHash } from 'node:crypto';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';

export const TOKEN_FAILURES_PER_CLIENT = 10;
export const TOKEN_FAILURE_WINDOW_S = 60;

export interface TokenFailureLimit {
  /** Seconds to wait when the client is already over the limit, else undefined (counts nothing). */
  blockedFor(clientId: string): Promise<number | undefined>;
  /** Counts one failure for the client. */
  failed(clientId: string): Promise<void>;
}

/** Client ids are the caller's text (metadata document URLs can be long): counters are keyed by a digest. */
const keyOf = (clientId: string) => createHash('sha256').update(clientId).digest('base64url');

export function tokenFailureLimit(enabled: boolean, redis: unknown): TokenFailureLimit {
  if (!enabled) return { blockedFor: async () => undefined, failed: async () => undefined };
  const options = {
    points: TOKEN_FAILURES_PER_CLIENT,
    duration: TOKEN_FAILURE_WINDOW_S,
    keyPrefix: 'sandtrap-oauth-token-fail',
  };
  const impl: RateLimiterAbstract =
    redis === undefined
      ? new RateLimiterMemory(options)
      : new RateLimiterRedis({
          ...options,
          storeClient: redis,
          rejectIfRedisNotReady: true,
          insuranceLimiter: new RateLimiterMemory(options),
        });
  return {
    async blockedFor(clientId) {
      const res = await impl.get(keyOf(clientId));
      if (res === null || res.consumedPoints < TOKEN_FAILURES_PER_CLIENT) return undefined;
      return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    },
    async failed(clientId) {
      try {
        await impl.consume(keyOf(clientId));
      } catch (err) {
        // Over the limit already: the next request is refused by blockedFor.
        if (!(err instanceof RateLimiterRes)) throw err;
      }
    },
  };
}
