// SMTP fault scripts: GET/PUT /sandboxes/{id}/smtp-faults, and the log of the sessions they shaped.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Core } from '../../core/core.ts';
import { pageQuery, uuid } from '../../core/schemas.ts';
import { parseInput } from '../../core/validation.ts';
import { pageDto, smtpFaultsDto, smtpSessionDto } from '../mappers.ts';

const idParams = z.object({ id: uuid });

export function smtpFaultRoutes(app: FastifyInstance, core: Core): void {
  const faults = core.smtpFaults;

  app.get('/sandboxes/:id/smtp-faults', async (request) => {
    const { id } = parseInput(idParams, request.params, 'path');
    return smtpFaultsDto(await faults.get(request.principal.workspaceId, id));
  });

  app.put('/sandboxes/:id/smtp-faults', async (request) => {
    const { id } = parseInput(idParams, request.params, 'path');
    return smtpFaultsDto(await faults.set(request.principal.workspaceId, id, request.body));
  });

  app.get('/sandboxes/:id/smtp-sessions', async (request) => {
    const { id } = parseInput(idParams, request.params, 'path');
    const query = parseInput(pageQuery, request.query, 'query string');
    return pageDto(await faults.sessions(request.principal.workspaceId, id, query), smtpSessionDto);
  });
}
