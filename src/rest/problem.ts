// Problem details (RFC 9457): the fixed type URIs and titles, and the mapping from core error codes.
import type { ErrorCode, FieldError } from '../core/errors.ts';
import type { components } from '../../openapi/schema.d.ts';

export type ProblemBody = components['schemas']['ValidationProblem'] & { requestId: string };

export type ProblemSlug =
  | 'validation-error'
  | 'unauthorized'
  | 'not-found'
  | 'conflict'
  | 'rate-limited'
  | 'payload-too-large'
  | 'unavailable'
  | 'internal';

const TITLES: Record<ProblemSlug, string> = {
  'validation-error': 'Invalid request',
  unauthorized: 'Unauthorized',
  'not-found': 'Not found',
  conflict: 'Conflict',
  'rate-limited': 'Too many requests',
  'payload-too-large': 'Payload too large',
  unavailable: 'Service unavailable',
  internal: 'Internal server error',
};

const STATUS: Record<ProblemSlug, number> = {
  'validation-error': 400,
  unauthorized: 401,
  'not-found': 404,
  conflict: 409,
  'rate-limited': 429,
  'payload-too-large': 413,
  unavailable: 503,
  internal: 500,
};

export const SLUG_OF_CODE: Record<ErrorCode, ProblemSlug> = {
  invalid_input: 'validation-error',
  unauthorized: 'unauthorized',
  not_found: 'not-found',
  conflict: 'conflict',
  rate_limited: 'rate-limited',
  payload_too_large: 'payload-too-large',
  unavailable: 'unavailable',
};

export function problem(
  slug: ProblemSlug,
  detail: string,
  requestId: string,
  instance: string,
  errors?: FieldError[],
): ProblemBody {
  return {
    type: `urn:sandtrap:problem:${slug}`,
    title: TITLES[slug],
    status: STATUS[slug],
    detail,
    instance,
    requestId,
    ...(errors === undefined ? {} : { errors }),
  };
}
