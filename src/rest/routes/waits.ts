// Long-poll waits for the next matching message or request: 200 with the full detail, 204 on timeout;
// `markRead` claims the item, `explain` reports what did not match in the Sandtrap-Wait-Misses header.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Core } from '../../core/core.ts';
import { messageWaitQuery, requestWaitQuery, uuid, waitOptionsQuery } from '../../core/schemas.ts';
import { parseInput } from '../../core/validation.ts';
import type { WaitResult } from '../../core/waits.ts';
import { messageDetailDto, requestDetailDto } from '../mappers.ts';

const sandboxParams = z.object({ sandboxId: uuid });
const messageQuery = messageWaitQuery.extend(waitOptionsQuery.shape);
const requestQuery = requestWaitQuery.extend(waitOptionsQuery.shape);

/** Percent-encoded JSON: a header value must be Latin-1, and subjects and senders are any Unicode. */
const WAIT_MISSES_HEADER = 'Sandtrap-Wait-Misses';

/** Aborted when the client disconnects before the answer, so its waiter is released at once. */
export function clientGone(request: FastifyRequest, reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  request.raw.on('aborted', () => controller.abort());
  return controller.signal;
}

function answer<T, D, M extends { receivedAt: Date }>(
  reply: FastifyReply,
  result: WaitResult<T, M>,
  map: (item: T) => D,
  explain: boolean,
) {
  if (explain) {
    const report = {
      nonMatchingArrivals: result.nonMatching,
      misses: result.misses.map((m) => ({ ...m, receivedAt: m.receivedAt.toISOString() })),
    };
    reply.header(WAIT_MISSES_HEADER, encodeURIComponent(JSON.stringify(report)));
  }
  return result.status === 'found' ? reply.code(200).send(map(result.item)) : reply.code(204).send();
}

export function waitRoutes(app: FastifyInstance, core: Core): void {
  app.get('/sandboxes/:sandboxId/messages/wait', async (request, reply) => {
    const { sandboxId } = parseInput(sandboxParams, request.params, 'path');
    const { timeoutSeconds, markRead, explain, onlyNewer, ...filter } = parseInput(
      messageQuery,
      request.query,
      'query string',
    );
    const result = await core.waits.forMessage(request.principal.workspaceId, sandboxId, filter, {
      timeoutSeconds,
      signal: clientGone(request, reply),
      keyId: request.principal.keyId,
      claim: markRead,
      explain,
      onlyNewer,
    });
    return answer(reply, result, messageDetailDto, explain === true);
  });

  app.get('/sandboxes/:sandboxId/requests/wait', async (request, reply) => {
    const { sandboxId } = parseInput(sandboxParams, request.params, 'path');
    const { timeoutSeconds, markRead, explain, onlyNewer, ...filter } = parseInput(
      requestQuery,
      request.query,
      'query string',
    );
    const result = await core.waits.forRequest(request.principal.workspaceId, sandboxId, filter, {
      timeoutSeconds,
      signal: clientGone(request, reply),
      keyId: request.principal.keyId,
      claim: markRead,
      explain,
      onlyNewer,
    });
    return answer(reply, result, requestDetailDto, explain === true);
  });
}
