// Ingress rate limits (fixed 60 s windows) with rate-limiter-flexible. Over the limit is a returned "no"
// with the seconds to wait, never an exception. RATE_LIMITS=off disables them all.
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from './config.ts';

export type LimitResult = { ok: true } | { ok: false; retryAfterSeconds: number };

export interface Limiter {
  /** Counts one event for `key`. */
  consume(key: string): Promise<LimitResult>;
  /** Whether `key` is already over the limit, without counting. */
  check(key: string): Promise<LimitResult>;
}

const OK: LimitResult = { ok: true };
const unlimited: Limiter = { consume: async () => OK, check: async () => OK };

function limiter(points: number, durationSeconds: number, enabled: boolean): Limiter {
  if (!enabled) return unlimited;
  const impl: RateLimiterAbstract = new RateLimiterMemory({ points, duration: durationSeconds });
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
  };
}

export function createRateLimits(config: Pick<Config, 'rateLimits' | 'limits'>) {
  const on = config.rateLimits;
  const l = config.limits;
  return {
    smtpMessagesPerIp: limiter(l.smtpPerIp, 60, on),
    smtpMessagesPerWorkspace: limiter(l.smtpPerWorkspace, 60, on),
    /** Failed SMTP AUTH per client IP: 10 in 10 minutes, then AUTH is refused until the window passes. */
    smtpAuthFailuresPerIp: limiter(10, 600, on),
    capturePerIp: limiter(l.capturePerIp, 60, on),
    capturePerWorkspace: limiter(l.capturePerWorkspace, 60, on),
  };
}

export type RateLimits = ReturnType<typeof createRateLimits>;
