// Assertions on REST responses read over fetch: JSON 200s, problem+json bodies and empty 204s.
import assert from 'node:assert/strict';
import type { components } from '../../openapi/schema.d.ts';

export type Problem = components['schemas']['ValidationProblem'] & { requestId?: string };

/** A 200 JSON reply: its parsed body. */
export async function assertJson<T>(res: Response): Promise<T> {
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  return JSON.parse(text) as T;
}

/** A problem+json reply with `status` and type `urn:sandtrap:problem:<slug>`, a detail and the request id. */
export async function assertProblem(res: Response, status: number, slug: string): Promise<Problem> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const body = JSON.parse(text) as Problem;
  assert.equal(body.status, status);
  assert.equal(body.type, `urn:sandtrap:problem:${slug}`);
  assert.ok(typeof body.detail === 'string' && body.detail.length > 0, 'detail is a non-empty string');
  assert.equal(body.requestId, res.headers.get('x-request-id'));
  return body;
}

/** What a validation assertion checks besides the status, type and error paths. */
export interface ValidationChecks {
  /** The exact `title`. */
  title?: string;
  /** Whether every error must carry a non-empty message. */
  messages?: boolean;
}

/**
 * An assertValidation with `checks`: it asserts a 400 validation problem whose `errors` name exactly the
 * given paths, and returns the problem.
 */
export function validationAssertion(checks: ValidationChecks = {}) {
  return async (res: Response, paths: string[]): Promise<Problem> => {
    const body = await assertProblem(res, 400, 'validation-error');
    if (checks.title !== undefined) assert.equal(body.title, checks.title);
    assert.ok(Array.isArray(body.errors) && body.errors.length > 0, 'errors array expected');
    if (checks.messages === true) {
      for (const e of body.errors) assert.ok(e.message.length > 0, `message for ${e.path}`);
    }
    const got = [...new Set(body.errors.map((e) => e.path))].sort();
    assert.deepEqual(got, [...paths].sort(), `error paths: ${JSON.stringify(body.errors)}`);
    return body;
  };
}

export async function assertNotFound(res: Response, what: string): Promise<void> {
  const body = await assertProblem(res, 404, 'not-found');
  assert.equal(body.title, 'Not found', what);
}

export async function assertUnauthorized(res: Response, why: RegExp): Promise<void> {
  const body = await assertProblem(res, 401, 'unauthorized');
  assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
  assert.match(String(body.detail), why);
}

export async function assertNoContent(res: Response): Promise<void> {
  const text = await res.text();
  assert.equal(res.status, 204, text);
  assert.equal(text, '');
}
