// POST /sandboxes/{id}/mocks/preview: which rule answers a method and path, and its reply, for the saved
// rules or an edited list sent along (invalid rules are refused exactly as PUT /mocks refuses them).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Core } from '../../core/core.ts';
import { previewMock } from '../../core/mocks/preview.ts';
import { uuid } from '../../core/schemas.ts';
import { parseInput } from '../../core/validation.ts';
import type { components } from '../../../openapi/schema.d.ts';
import { mockRuleDto } from '../mappers.ts';

const idParams = z.object({ id: uuid });

export function mockPreviewRoutes(app: FastifyInstance, core: Core): void {
  app.post('/sandboxes/:id/mocks/preview', async (request): Promise<components['schemas']['MockPreview']> => {
    const { id } = parseInput(idParams, request.params, 'path');
    const preview = await previewMock(core, request.principal.workspaceId, id, request.body);
    return {
      index: preview.index,
      rule: preview.rule === null ? null : mockRuleDto(preview.rule),
      statusCode: preview.statusCode,
      headers: preview.headers.map(([name, value]) => ({ name, value })),
      body: preview.body,
    };
  });
}
