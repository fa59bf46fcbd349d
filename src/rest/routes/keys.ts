// POST/GET /keys and DELETE /keys/{id}.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Core } from '../../core/core.ts';
import { createKeyInput, pageQuery, uuid } from '../../core/schemas.ts';
import { parseInput } from '../../core/validation.ts';
import { apiKeyDto, createdKeyDto, pageDto } from '../mappers.ts';

const idParams = z.object({ id: uuid });

export function keyRoutes(app: FastifyInstance, core: Core): void {
  app.post('/keys', async (request, reply) => {
    const input = parseInput(createKeyInput, request.body, 'request body');
    const key = await core.apiKeys.create(request.principal.workspaceId, input);
    return reply.code(201).send(createdKeyDto(key));
  });

  app.get('/keys', async (request) => {
    const query = parseInput(pageQuery, request.query, 'query string');
    return pageDto(await core.apiKeys.list(request.principal.workspaceId, query), apiKeyDto);
  });

  app.delete('/keys/:id', async (request, reply) => {
    const { id } = parseInput(idParams, request.params, 'path');
    await core.apiKeys.revoke(request.principal.workspaceId, id);
    return reply.code(204).send();
  });
}
