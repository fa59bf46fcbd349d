// The checks of one message: GET .../checks/html (HTML compatibility from caniemail's data), GET .../checks/spam
// (the offline spam-style score) and POST .../checks/links (fetches the links now, under the webhooks' target
// policy: a POST because it reaches out to the network, never done on a read).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Core } from '../../core/core.ts';
import { uuid } from '../../core/schemas.ts';
import { parseInput } from '../../core/validation.ts';

const messageParams = z.object({ sandboxId: uuid, messageId: uuid });
const BASE = '/sandboxes/:sandboxId/messages/:messageId/checks';

export function messageCheckRoutes(app: FastifyInstance, core: Core): void {
  app.get(`${BASE}/html`, async (request) => {
    const { sandboxId, messageId } = parseInput(messageParams, request.params, 'path');
    return core.checks.html(request.principal.workspaceId, sandboxId, messageId);
  });
  app.get(`${BASE}/spam`, async (request) => {
    const { sandboxId, messageId } = parseInput(messageParams, request.params, 'path');
    return core.checks.spam(request.principal.workspaceId, sandboxId, messageId);
  });
  app.post(`${BASE}/links`, async (request) => {
    const { sandboxId, messageId } = parseInput(messageParams, request.params, 'path');
    return core.checks.links(request.principal.workspaceId, sandboxId, messageId);
  });
}
