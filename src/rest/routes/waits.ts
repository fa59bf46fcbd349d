// Long-poll waits for the next matching message or request: 200 with the full detail, 204 on timeout.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Core } from '../../core/core.ts';
import { messageWaitQuery, requestWaitQuery, uuid } from '../../core/schemas.ts';
import { parseInput } from '../../core/validation.ts';
import type { WaitResult } from '../../core/waits.ts';
import { messageDetailDto, requestDetailDto } from '../mappers.ts';

const sandboxParams = z.object({ sandboxId: uuid });

/** Aborted when the client disconnects before the answer, so its waiter is released at once. */
function clientGone(request: FastifyRequest, reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  request.raw.on('aborted', () => controller.abort());
  return controller.signal;
}

function answer<T, D>(reply: FastifyReply, result: WaitResult<T>, map: (item: T) => D) {
  return result.status === 'found' ? reply.code(200).send(map(result.item)) : reply.code(204).send();
}

export function waitRoutes(app: FastifyInstance, core: Core): void {
  app.get('/sandboxes/:sandboxId/messages/wait', async (request, reply) => {
    const { sandboxId } = parseInput(sandboxParams, request.params, 'path');
    const { timeoutSeconds, ...filter } = parseInput(messageWaitQuery, request.query, 'query string');
    const result = await core.waits.forMessage(request.principal.workspaceId, sandboxId, filter, {
      timeoutSeconds,
      signal: clientGone(request, reply),
      keyId: request.principal.keyId,
    });
    return answer(reply, result, messageDetailDto);
  });

  app.get('/sandboxes/:sandboxId/requests/wait', async (request, reply) => {
    const { sandboxId } = parseInput(sandboxParams, request.params, 'path');
    const { timeoutSeconds, ...filter } = parseInput(requestWaitQuery, request.query, 'query string');
    const result = await core.waits.forRequest(request.principal.workspaceId, sandboxId, filter, {
      timeoutSeconds,
      signal: clientGone(request, reply),
      keyId: request.principal.keyId,
    });
    return answer(reply, result, requestDetailDto);
  });
}
