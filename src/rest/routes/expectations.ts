// POST /sandboxes/{id}/expectations/wait: counts over mail and requests, pass or fail, in one long poll.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Core } from '../../core/core.ts';
import type { ExpectationResult } from '../../core/expectations/service.ts';
import type { ExpectedItem } from '../../core/expectations/items.ts';
import { expectationInput, uuid } from '../../core/schemas.ts';
import { parseInput } from '../../core/validation.ts';
import type { MessageMiss, RequestMiss } from '../../core/waitMisses.ts';
import type { components } from '../../../openapi/schema.d.ts';
import { clientGone } from './waits.ts';

type Schemas = components['schemas'];

const sandboxParams = z.object({ sandboxId: uuid });

function itemDto(item: ExpectedItem): Schemas['ExpectationItem'] {
  const at = item.receivedAt.toISOString();
  return item.stream === 'messages'
    ? { stream: item.stream, id: item.id, receivedAt: at, subject: item.subject, from: item.from }
    : { stream: item.stream, id: item.id, receivedAt: at, method: item.method, path: item.path };
}

function missDto(m: MessageMiss | RequestMiss): Schemas['ExpectationMiss'] {
  const { receivedAt, failedFilters, ...rest } = m;
  const stream = 'method' in m ? 'requests' : 'messages';
  return { stream, ...rest, receivedAt: receivedAt.toISOString(), failedFilters };
}

export function expectationResultDto(r: ExpectationResult): Schemas['ExpectationResult'] {
  const f = r.failure;
  return {
    result: r.result,
    summary: r.summary,
    since: r.since.toISOString(),
    failure:
      f === undefined
        ? null
        : {
            condition: f.condition,
            problem: f.problem,
            item: f.item === undefined ? null : itemDto(f.item),
            ...(f.after === undefined ? {} : { after: f.after }),
          },
    conditions: r.conditions.map((c) => ({
      stream: c.stream,
      count: c.count,
      met: c.met,
      matched: c.matched.map(itemDto),
      closest: c.closest.map(missDto),
    })),
  };
}

export function expectationRoutes(app: FastifyInstance, core: Core): void {
  app.post('/sandboxes/:sandboxId/expectations/wait', async (request, reply) => {
    const { sandboxId } = parseInput(sandboxParams, request.params, 'path');
    const input = parseInput(expectationInput, request.body, 'request body');
    const result = await core.expectations.wait(request.principal.workspaceId, sandboxId, input, {
      keyId: request.principal.keyId,
      signal: clientGone(request, reply),
    });
    return expectationResultDto(result);
  });
}
