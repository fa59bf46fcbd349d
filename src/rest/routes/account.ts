// GET /whoami and GET /account.
import type { FastifyInstance } from 'fastify';
import type { Core } from '../../core/core.ts';
import { accountDto, whoamiDto } from '../mappers.ts';

export function accountRoutes(app: FastifyInstance, core: Core): void {
  app.get('/whoami', async (request) => whoamiDto(request.principal));
  app.get('/account', async (request) =>
    accountDto(await core.workspaces.account(request.principal.workspaceId)),
  );
}
