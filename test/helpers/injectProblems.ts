// Assertions on REST API responses from app.inject: problem+json bodies and validation problems.
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { components } from '../../openapi/schema.d.ts';

export type Problem = components['schemas']['ValidationProblem'];

/** problem+json with `status`, type `urn:sandtrap:problem:<slug>`, a title, a detail and the request id. */
export function assertProblem(res: LightMyRequestResponse, status: number, slug: string): Problem {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = res.json<Problem>();
  assert.equal(body.status, status);
  assert.equal(body.type, `urn:sandtrap:problem:${slug}`);
  assert.equal(typeof body.title, 'string');
  assert.ok(typeof body.detail === 'string' && body.detail.length > 0, 'detail is a non-empty string');
  assert.ok(typeof body.requestId === 'string' && body.requestId.length > 0, 'requestId is set');
  assert.equal(body.requestId, res.headers['x-request-id']);
  return body;
}

/** A 400 validation problem whose `errors` name exactly the given paths (each at least once). */
export function assertValidation(res: LightMyRequestResponse, paths: string[]): Problem {
  const body = assertProblem(res, 400, 'validation-error');
  assert.equal(body.title, 'Invalid request');
  assert.ok(Array.isArray(body.errors) && body.errors.length > 0, `errors array expected: ${res.body}`);
  for (const e of body.errors) {
    assert.equal(typeof e.path, 'string');
    assert.ok(typeof e.message === 'string' && e.message.length > 0, `message for ${e.path}`);
  }
  const got = [...new Set(body.errors.map((e) => e.path))].sort();
  assert.deepEqual(got, [...paths].sort(), `error paths: ${JSON.stringify(body.errors)}`);
  return body;
}
