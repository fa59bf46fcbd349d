// Failed token requests per client (10 in 60 s, then 429 until the window passes), counted only when a request
// fails, so a client guessing secrets, codes or verifiers is slowed while a working client never is. The count
// is core's limiter (shared through Redis with REDIS_URL, as every other limit).
import { createHash } from 'node:crypto';
import type { Limiter } from '../../core/rateLimits.ts';

export interface TokenFailureLimit {
  /** Seconds to wait when the client is already over the limit, else undefined (counts nothing). */
  blockedFor(key: string): Promise<number | undefined>;
  /** Counts one failure. */
  failed(key: string): Promise<void>;
}

/** Client ids are the caller's text (metadata document URLs can be long): counters are keyed by a digest. */
const keyOf = (key: string) => createHash('sha256').update(key).digest('base64url');

export function tokenFailureLimit(limiter: Limiter): TokenFailureLimit {
  return {
    async blockedFor(key) {
      const res = await limiter.check(keyOf(key));
      return res.ok ? undefined : res.retryAfterSeconds;
    },
    async failed(key) {
      // Over the limit already is fine: the next request is refused by blockedFor.
      await limiter.consume(keyOf(key));
    },
  };
}
