// Sandbox endpoints: CRUD, list with search, secret rotation, and replacing the mock rule list. Bodies and
// queries go to core as sent: core validates them with its schemas, the same for every door.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Core } from '../../core/core.ts';
import { uuid } from '../../core/schemas.ts';
import { parseInput } from '../../core/validation.ts';
import { pageDto, sandboxActivityDto, sandboxDto } from '../mappers.ts';

const idParams = z.object({ id: uuid });

export function sandboxRoutes(app: FastifyInstance, core: Core): void {
  const sandboxes = core.sandboxes;

  app.post('/sandboxes', async (request, reply) => {
    const sandbox = await sandboxes.create(request.principal.workspaceId, request.body);
    return reply.code(201).send(sandboxDto(sandbox));
  });

  app.get('/sandboxes', async (request) => {
    return pageDto(await sandboxes.list(request.principal.workspaceId, request.query), sandboxDto);
  });

  // Counts for the dashboard's sandbox list; a static path, so it is matched before /sandboxes/:id.
  app.get('/sandboxes/activity', async (request) => {
    const items = await core.streamActions.activity(request.principal.workspaceId, request.query);
    return { items: items.map(sandboxActivityDto) };
  });

  app.get('/sandboxes/:id', async (request) => {
    const { id } = parseInput(idParams, request.params, 'path');
    return sandboxDto(await sandboxes.get(request.principal.workspaceId, id));
  });

  app.put('/sandboxes/:id', async (request) => {
    const { id } = parseInput(idParams, request.params, 'path');
    return sandboxDto(await sandboxes.update(request.principal.workspaceId, id, request.body));
  });

  app.put('/sandboxes/:id/mocks', async (request) => {
    const { id } = parseInput(idParams, request.params, 'path');
    return sandboxDto(await sandboxes.setMocks(request.principal.workspaceId, id, request.body));
  });

  app.post('/sandboxes/:id/secret/reset', async (request) => {
    const { id } = parseInput(idParams, request.params, 'path');
    return sandboxDto(await sandboxes.resetSecret(request.principal.workspaceId, id));
  });

  app.delete('/sandboxes/:id', async (request, reply) => {
    const { id } = parseInput(idParams, request.params, 'path');
    await sandboxes.delete(request.principal.workspaceId, id);
    return reply.code(204).send();
  });
}
