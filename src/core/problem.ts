// Problem details (RFC 9457), the one shape every HTTP door (REST, MCP, capture) answers errors in: the fixed
// type URIs and titles, the mapping from core's error codes, and well-formed correlation ids.
import { randomUUID } from 'node:crypto';
import type { ErrorCode, FieldError } from './errors.ts';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  requestId: string;
  errors?: FieldError[];
}

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
    // A refused credential may have come in the query string (?api_key=stk_...): a 401 never echoes it.
    instance: slug === 'unauthorized' ? (instance.split('?', 1)[0] as string) : instance,
    requestId,
    ...(errors === undefined ? {} : { errors }),
  };
}

const WELL_FORMED_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Keeps a well-formed incoming X-Request-Id (1-128 of A-Z a-z 0-9 . _ -), else mints a UUID. */
export function requestIdFrom(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && WELL_FORMED_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
