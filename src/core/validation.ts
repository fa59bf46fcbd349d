// Turns zod failures into the core's invalid_input error, naming each field as `a.b[0].c`.
import type { z } from 'zod';
import { invalidInput, type FieldError } from './errors.ts';
import { uuid } from './schemas.ts';

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    // A key may be the refused text itself (a tag key holding a lone surrogate); the path stays well-formed.
    const name = String(key).toWellFormed();
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? name : `.${name}`;
  }
  return out;
}

export function zodErrors(error: z.ZodError, prefix: readonly PropertyKey[] = []): FieldError[] {
  return error.issues.map((issue) => ({
    path: formatPath([...prefix, ...issue.path]) || '(root)',
    message: issue.message,
  }));
}

/** Parses `value` or throws invalid_input; `what` names the input in the message ("request body"). */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw invalidInput(`The ${what} is invalid; see errors for each field.`, zodErrors(result.error));
}

/**
 * An id as core takes it from any door; anything but a UUID is refused here, before SQL compares it with a
 * uuid column (which would fail with a driver error instead of naming the field).
 */
export function parseId(value: unknown, field: string): string {
  const result = uuid.safeParse(value);
  if (result.success) return result.data;
  throw invalidInput(`The ${field} is not a valid id.`, [{ path: field, message: 'must be a UUID' }]);
}
