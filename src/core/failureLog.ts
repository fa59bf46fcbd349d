// How every door logs a failure it answers for: a store that refused (disk full in DATA_DIR, unreachable) is a
// warning that names its reason, anything else an error with its stack. One rule for SMTP, capture and REST.
import { isAppError } from './errors.ts';

/** The part of a pino logger this uses. */
export interface FailureLogger {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** The store's reason for refusing (AppError `unavailable`), or undefined for any other failure. */
export function storeRefusalReason(err: unknown): string | undefined {
  return isAppError(err) && err.code === 'unavailable' ? (err.reason ?? 'the store failed') : undefined;
}

/** Logs `err` as `<refused>: <reason>` (warn) when the store refused, else as `failed` (error). */
export function logFailure(
  log: FailureLogger,
  err: unknown,
  fields: Record<string, unknown>,
  messages: { refused: string; failed: string },
): void {
  const reason = storeRefusalReason(err);
  if (reason !== undefined)
    log.warn({ ...fields, err: (err as Error).message }, `${messages.refused}: ${reason}`);
  else log.error({ ...fields, err }, messages.failed);
}
