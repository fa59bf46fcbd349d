// Tells a lost or refused database connection from every other failure, and turns it into core's
// `unavailable` error: adapters answer it with a retryable refusal (503, SMTP 451) instead of a crash or a 500.
import { AppError, isAppError } from '../errors.ts';

/** Seconds a refused client is told to wait: a PostgreSQL restart or failover takes a few seconds. */
export const STORE_RETRY_AFTER_SECONDS = 5;

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOENT', // a Unix-socket DATABASE_URL whose server is down
]);

// SQLSTATE class 08 (connection exception), the shutdown codes of class 57, and too_many_connections.
const SQLSTATE = /^(08...|57P0[1-3]|53300)$/;

const MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'is not queryable',
  'Connection ended unexpectedly',
];

export function isConnectionFailure(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATE.test(code))) return true;
  if (typeof message === 'string' && MESSAGES.some((m) => message.includes(m))) return true;
  // AggregateError from a host name that resolves to several addresses, each refused.
  const errors = (err as { errors?: unknown }).errors;
  return Array.isArray(errors) && errors.length > 0 && errors.every(isConnectionFailure);
}

/** `err` as core's `unavailable` error when the database could not be reached; otherwise `err` unchanged. */
export function asStoreUnavailable(err: unknown): unknown {
  if (isAppError(err) || !isConnectionFailure(err)) return err;
  return new AppError(
    'unavailable',
    `The database is unreachable right now, so this could not be done. Retry in ${STORE_RETRY_AFTER_SECONDS} s.`,
    { retryAfterSeconds: STORE_RETRY_AFTER_SECONDS, cause: err },
  );
}
