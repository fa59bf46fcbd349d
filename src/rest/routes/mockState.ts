// GET/DELETE /sandboxes/{id}/scenarios, GET /sandboxes/{id}/callbacks and .../callbacks/wait: what a sandbox's
// mock rules remember (scenario states per key) and what they queued (callbacks and their delivery attempts).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Core } from '../../core/core.ts';
import { uuid } from '../../core/schemas.ts';
import { parseInput } from '../../core/validation.ts';
import type { components } from '../../../openapi/schema.d.ts';
import type { QueuedCallback } from '../../core/mocks/mockState.ts';
import { pageDto, webhookDeliveryDto } from '../mappers.ts';
import { clientGone } from './waits.ts';

type Schemas = components['schemas'];
const idParams = z.object({ id: uuid });

export function mockStateRoutes(app: FastifyInstance, core: Core): void {
  app.get('/sandboxes/:id/scenarios', async (request): Promise<Schemas['ScenarioStates']> => {
    const { id } = parseInput(idParams, request.params, 'path');
    const states = await core.mockState.scenarios(request.principal.workspaceId, id, request.query);
    return { states: states.map((s) => ({ ...s, updatedAt: s.updatedAt.toISOString() })) };
  });

  app.delete('/sandboxes/:id/scenarios', async (request): Promise<{ reset: number }> => {
    const { id } = parseInput(idParams, request.params, 'path');
    return { reset: await core.mockState.resetScenarios(request.principal.workspaceId, id, request.query) };
  });

  app.get('/sandboxes/:id/callbacks', async (request): Promise<Schemas['MockCallbackPage']> => {
    const { id } = parseInput(idParams, request.params, 'path');
    const page = await core.mockState.callbacks(request.principal.workspaceId, id, request.query);
    return pageDto(page, callbackDto);
  });

  // Long-poll: 200 with the callback once it has the outcome, 204 at the timeout (as the other waits).
  app.get('/sandboxes/:id/callbacks/wait', async (request, reply) => {
    const { id } = parseInput(idParams, request.params, 'path');
    const callback = await core.mockState.waitForCallback(request.principal.workspaceId, id, request.query, {
      signal: clientGone(request, reply),
      keyId: request.principal.keyId,
    });
    return callback === undefined ? reply.code(204).send() : reply.code(200).send(callbackDto(callback));
  });
}

function callbackDto(c: QueuedCallback): Schemas['QueuedCallback'] {
  return {
    ...c,
    nextAttemptAt: c.nextAttemptAt.toISOString(),
    createdAt: c.createdAt.toISOString(),
    deliveries: c.deliveries.map(webhookDeliveryDto),
  };
}
