// Tells a store failure that refuses work for a while (a lost or refused database connection, a full or failing
// disk) from every other failure, and turns it into core's `unavailable` error with the reason named: adapters
// answer it with a retryable refusal (503, SMTP 451) that says what is wrong, instead of a crash or a 500.
import { AppError, isAppError } from '../errors.ts';

/** Seconds a refused client is told to wait: a PostgreSQL restart or failover takes a few seconds. */
export const STORE_RETRY_AFTER_SECONDS = 5;

/** Seconds a client refused for a full or failing disk is told to wait: freeing space takes a person. */
export const DISK_RETRY_AFTER_SECONDS = 30;

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

/** The write failures of a disk that refuse every write until someone acts: the store stops writing on them. */
export type DiskFaultCode = 'ENOSPC' | 'EDQUOT' | 'EIO' | 'EROFS';

export const DISK_FAULT_CODES: ReadonlySet<string> = new Set<DiskFaultCode>([
  'ENOSPC',
  'EDQUOT',
  'EIO',
  'EROFS',
]);

/** SQLSTATE disk_full (postgres reports EDQUOT with it too), io_error, and insufficient_privilege (EROFS). */
const DISK_FULL = '53100';
const IO_ERROR = '58030';
const NO_PRIVILEGE = '42501';

/**
 * The disk fault behind an error: a system error's own code, or a postgres error's SQLSTATE and the system's
 * words in its message (postgres writes strerror after the file name); undefined for every other error.
 */
export function diskFaultOf(err: unknown): DiskFaultCode | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code !== 'string') return undefined;
  if (DISK_FAULT_CODES.has(code)) return code as DiskFaultCode;
  const text = typeof message === 'string' ? message : '';
  if (code === NO_PRIVILEGE) return /read-only file system/i.test(text) ? 'EROFS' : undefined;
  if (code === DISK_FULL) return /quota/i.test(text) ? 'EDQUOT' : 'ENOSPC';
  if (code === IO_ERROR) return 'EIO';
  return undefined;
}

const DATA_DIR_REASONS: Record<DiskFaultCode, string> = {
  ENOSPC: 'disk full in DATA_DIR',
  EDQUOT: 'disk quota exceeded in DATA_DIR',
  EIO: 'I/O error in DATA_DIR',
  EROFS: 'DATA_DIR is read-only',
};

const SERVER_REASONS: Record<DiskFaultCode, string> = {
  ENOSPC: "the database server's disk is full",
  EDQUOT: "the database server's disk quota is exceeded",
  EIO: "the database server's disk failed (I/O error)",
  EROFS: "the database server's disk is read-only",
};

/** The reason a refusal names for a fault of the embedded store's disk. */
export function dataDirReason(code: DiskFaultCode): string {
  return DATA_DIR_REASONS[code];
}

const capitalized = (phrase: string) => phrase.charAt(0).toUpperCase() + phrase.slice(1);

/** `unavailable` for a store that cannot write now: `reason` named, `outcome` saying what was (not) done. */
export function storeRefusal(
  reason: string,
  outcome: string,
  retryAfterSeconds: number,
  cause?: unknown,
): AppError {
  return new AppError('unavailable', `${capitalized(reason)}: ${outcome} Retry in ${retryAfterSeconds} s.`, {
    reason,
    retryAfterSeconds,
    cause,
  });
}

/**
 * `err` as core's `unavailable` error when the database could not be reached or its server cannot write
 * (PostgreSQL's disk_full and io_error); otherwise `err` unchanged.
 */
export function asStoreUnavailable(err: unknown): unknown {
  if (isAppError(err)) return err;
  if (isConnectionFailure(err)) {
    return new AppError(
      'unavailable',
      `The database is unreachable right now, so this could not be done. Retry in ${STORE_RETRY_AFTER_SECONDS} s.`,
      { reason: 'the database is unreachable', retryAfterSeconds: STORE_RETRY_AFTER_SECONDS, cause: err },
    );
  }
  const fault = diskFaultOf(err);
  if (fault === undefined) return err;
  return storeRefusal(SERVER_REASONS[fault], 'nothing was changed.', DISK_RETRY_AFTER_SECONDS, err);
}

/** The reason of a PANIC in the embedded store with no disk fault seen (embeddedDatabase.ts). */
export const EMBEDDED_PANIC_REASON = 'the embedded database stopped (PANIC)';

const DISK_REASONS: ReadonlySet<string> = new Set([
  ...Object.values(DATA_DIR_REASONS),
  ...Object.values(SERVER_REASONS),
  EMBEDDED_PANIC_REASON,
]);

/** Whether `err` is a store refusal (unreachable, disk full), which carries its reason for the reply and log. */
export function isStoreRefusal(err: unknown): err is AppError & { reason: string } {
  return isAppError(err) && err.code === 'unavailable' && err.reason !== undefined;
}

/**
 * Whether `err` refuses for the disk (full, failing): every write fails the same way until someone acts, where a
 * lost connection may already be back for the next try.
 */
export function isDiskRefusal(err: unknown): boolean {
  return isStoreRefusal(err) && DISK_REASONS.has(err.reason);
}

/**
 * The error a capture path throws when `what` (say "the message") could not be stored: the store's refusal,
 * its reason kept, or a plain `unavailable` for a failure the store did not explain.
 */
export function storeWriteFailure(err: unknown, what: string): AppError {
  const known = asStoreUnavailable(err);
  if (isStoreRefusal(known)) {
    const refusal = known;
    return storeRefusal(
      refusal.reason,
      `${what} was not stored.`,
      refusal.retryAfterSeconds ?? STORE_RETRY_AFTER_SECONDS,
      err,
    );
  }
  return new AppError('unavailable', `${capitalized(what)} could not be stored; retry later.`, {
    cause: err,
  });
}
