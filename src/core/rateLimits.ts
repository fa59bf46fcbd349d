// Every door's rate limits (fixed windows, mostly 60 s) with rate-limiter-flexible. Over the limit is a
// returned "no" with the seconds to wait, never an exception. RATE_LIMITS=off disables them all.
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Config } from './config.ts';

export type LimitResult = { ok: true } | { ok: false; retryAfterSeconds: number };

export interface Limiter {
  /** Counts one event for `key`. */
  consume(key: string): Promise<LimitResult>;
  /** Whether `key` is already over the limit, without counting. */
  check(key: string): Promise<LimitResult>;
  /** Gives back one event counted for `key` (it turned out not to count). */
  refund(key: string): Promise<void>;
}

export const OAUTH_TOKEN_FAILURES = 10;

const OK: LimitResult = { ok: true };
const unlimited: Limiter = { consume: async () => OK, check: async () => OK, refund: async () => {} };

function limiter(
  name: string,
  points: number,
  durationSeconds: number,
  enabled: boolean,
  redis: unknown,
): Limiter {
  if (!enabled) return unlimited;
  const options = { points, duration: durationSeconds, keyPrefix: `sandtrap-${name}` };
  const impl: RateLimiterAbstract =
    redis === undefined
      ? new RateLimiterMemory(options)
      : new RateLimiterRedis({
          ...options,
          storeClient: redis,
          // Redis away: count in this process's memory at once rather than fail or wait for it.
          rejectIfRedisNotReady: true,
          insuranceLimiter: new RateLimiterMemory(options),
        });
  const refused = (res: RateLimiterRes): LimitResult => ({
    ok: false,
    retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  });
  return {
    async consume(key) {
      try {
        await impl.consume(key);
        return OK;
      } catch (err) {
        if (err instanceof RateLimiterRes) return refused(err);
        throw err;
      }
    },
    async check(key) {
      const res = await impl.get(key);
      return res !== null && res.consumedPoints >= points ? refused(res) : OK;
    },
    async refund(key) {
      await impl.reward(key, 1);
    },
  };
}

/** `redis` is an ioredis client when REDIS_URL is set, so several processes share the counters. */
export function createRateLimits(config: Pick<Config, 'rateLimits' | 'limits'>, redis?: unknown) {
  const on = config.rateLimits;
  const l = config.limits;
  return {
    smtpMessagesPerIp: limiter('smtp-ip', l.smtpPerIp, 60, on, redis),
    /** Authenticated submission per workspace: the workspace's own apps. */
    smtpMessagesPerWorkspace: limiter('smtp-ws', l.smtpPerWorkspace, 60, on, redis),
    /** Anonymous inbound mail per workspace, counted apart: strangers who know an inbound address cannot
     * spend the budget of the workspace's own apps on the submission port. */
    smtpInboundPerWorkspace: limiter('smtp-inbound-ws', l.smtpInboundPerWorkspace, 60, on, redis),
    /** Failed SMTP AUTH per client address and username: 10 in 10 minutes, then AUTH as that username from
     * that address is refused until the window passes; other usernames from the address are not affected. */
    smtpAuthFailures: limiter('smtp-auth', 10, 600, on, redis),
    capturePerIp: limiter('capture-ip', l.capturePerIp, 60, on, redis),
    capturePerWorkspace: limiter('capture-ws', l.capturePerWorkspace, 60, on, redis),
    /** Failed OAuth token requests per client and address: 10 in 60 s, then 429 until the window passes. */
    oauthTokenFailures: limiter('oauth-token-fail', OAUTH_TOKEN_FAILURES, 60, on, redis),
    /** Anonymous client registrations per client address: OAUTH_REGISTRATIONS_PER_HOUR in an hour, then 429. */
    oauthRegistrations: limiter('oauth-register', l.oauthRegistrationsPerHour, 3_600, on, redis),
    /** REST and MCP requests per client address, counted before authentication. */
    apiPerIp: limiter('api-ip', l.apiPerIp, 60, on, redis),
    /** REST requests per API key, counted after authentication; a wait counts once, when it starts. */
    apiPerKey: limiter('api-key', l.apiPerKey, 60, on, redis),
    /** GET /healthz per client address: it needs no key, so it has a budget of its own. */
    healthzPerIp: limiter('healthz-ip', l.healthzPerIp, 60, on, redis),
  };
}

export type RateLimits = ReturnType<typeof createRateLimits>;
