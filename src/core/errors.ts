// The one error type of core: a closed set of codes that every adapter maps to its own protocol in one place.

export type ErrorCode =
  | 'not_found'
  | 'invalid_input'
  | 'conflict'
  | 'unauthorized'
  | 'rate_limited'
  | 'payload_too_large'
  | 'unavailable';

export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly errors: FieldError[] | undefined;
  readonly retryAfterSeconds: number | undefined;
  /**
   * For `unavailable`: what is wrong, as a phrase an adapter puts in its own reply and log ("disk full in
   * DATA_DIR", "the database is unreachable"). A refusal that only says "unavailable" sends people to look for
   * the fault in the wrong place.
   */
  readonly reason: string | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    extra: { errors?: FieldError[]; retryAfterSeconds?: number; reason?: string; cause?: unknown } = {},
  ) {
    super(message, { cause: extra.cause });
    this.name = 'AppError';
    this.code = code;
    this.errors = extra.errors;
    this.retryAfterSeconds = extra.retryAfterSeconds;
    this.reason = extra.reason;
  }
}

export function notFound(what: string): AppError {
  return new AppError('not_found', `${what} does not exist in this workspace.`);
}

export function invalidInput(message: string, errors: FieldError[]): AppError {
  return new AppError('invalid_input', message, { errors });
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
