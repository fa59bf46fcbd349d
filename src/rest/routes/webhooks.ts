// Outgoing webhooks: POST/GET /webhooks, GET/DELETE /webhooks/{id}, its delivery log, and a test ping.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Core } from '../../core/core.ts';
import { createWebhookInput, pageQuery, uuid } from '../../core/schemas.ts';
import { parseInput } from '../../core/validation.ts';
import { createdWebhookDto, pageDto, webhookDeliveryDto, webhookDto } from '../mappers.ts';

const idParams = z.object({ id: uuid });

export function webhookRoutes(app: FastifyInstance, core: Core): void {
  const webhooks = core.webhooks;

  app.post('/webhooks', async (request, reply) => {
    const input = parseInput(createWebhookInput, request.body, 'request body');
    const created = await webhooks.create(request.principal.workspaceId, input);
    return reply.code(201).send(createdWebhookDto(created));
  });

  app.get('/webhooks', async (request) => {
    const query = parseInput(pageQuery, request.query, 'query string');
    return pageDto(await webhooks.list(request.principal.workspaceId, query), webhookDto);
  });

  app.get('/webhooks/:id', async (request) => {
    const { id } = parseInput(idParams, request.params, 'path');
    return webhookDto(await webhooks.get(request.principal.workspaceId, id));
  });

  app.delete('/webhooks/:id', async (request, reply) => {
    const { id } = parseInput(idParams, request.params, 'path');
    await webhooks.delete(request.principal.workspaceId, id);
    return reply.code(204).send();
  });

  app.get('/webhooks/:id/deliveries', async (request) => {
    const { id } = parseInput(idParams, request.params, 'path');
    const query = parseInput(pageQuery, request.query, 'query string');
    return pageDto(await webhooks.deliveries(request.principal.workspaceId, id, query), webhookDeliveryDto);
  });

  app.post('/webhooks/:id/ping', async (request, reply) => {
    const { id } = parseInput(idParams, request.params, 'path');
    return reply.code(202).send(await webhooks.ping(request.principal.workspaceId, id));
  });
}
