// Correlation ids for the API listener: fastify's genReqId, from the incoming X-Request-Id when well formed.
import type { IncomingMessage } from 'node:http';
import { requestIdFrom } from '../core/problem.ts';

export function requestIdFor(req: IncomingMessage): string {
  return requestIdFrom(req.headers['x-request-id']);
}
