// Turns zod failures into the core's invalid_input error, naming each field as `a.b[0].c`.
import type { z } from 'zod';
import { invalidInput, type FieldError } from './errors.ts';

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
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
