// The consent and connected-clients API under /api/v1 (key header or dashboard session): read and decide a
// pending authorization request, list the workspace's grants and end one.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Core } from '../../core/core.ts';
import { AppError } from '../../core/errors.ts';
import type { AuthorizationRequestView, GrantView } from '../../core/oauth/types.ts';
import { uuid } from '../../core/schemas.ts';
import { parseInput } from '../../core/validation.ts';
import type { components } from '../../../openapi/schema.d.ts';

type Schemas = components['schemas'];

const requestParams = z.object({ requestId: uuid });
const grantParams = z.object({ grantId: uuid });
const decisionBody = z.strictObject({ decision: z.enum(['approve', 'deny']) });

const noRequest = () =>
  new AppError(
    'not_found',
    'No pending authorization request with this id: it was never made, has expired (10 minutes) or has ' +
      'already been decided. Start the connection again from the MCP client.',
  );

function requestDto(v: AuthorizationRequestView): Schemas['OAuthAuthorizationRequest'] {
  return {
    id: v.id,
    client: {
      clientId: v.client.clientId,
      kind: v.client.kind,
      name: v.client.name,
      uri: v.client.uri,
      logoUri: v.client.logoUri,
    },
    redirectUri: v.redirectUri,
    redirectHost: v.redirectHost,
    scope: v.scope,
    resource: v.resource,
    workspace: { id: v.workspace.id, name: v.workspace.name },
    approver: { keyId: v.approver.keyId, keyLabel: v.approver.keyLabel },
    expiresAt: v.expiresAt.toISOString(),
  };
}

function grantDto(g: GrantView): Schemas['OAuthGrant'] {
  return {
    id: g.id,
    client: { clientId: g.client.clientId, kind: g.client.kind, name: g.client.name, uri: g.client.uri },
    redirectHost: g.redirectHost,
    scope: g.scope,
    keyId: g.keyId,
    keyLabel: g.keyLabel,
    createdAt: g.createdAt.toISOString(),
    lastUsedAt: g.lastUsedAt?.toISOString() ?? null,
  };
}

export function consentRoutes(app: FastifyInstance, core: Core): void {
  app.get('/oauth/authorizations/:requestId', async (request, reply) => {
    const { requestId } = parseInput(requestParams, request.params, 'path');
    const view = await core.oauth.describeAuthorization(requestId, request.principal);
    if (view === undefined) throw noRequest();
    return reply.header('Cache-Control', 'no-store').send(requestDto(view));
  });

  app.post('/oauth/authorizations/:requestId', async (request, reply) => {
    const { requestId } = parseInput(requestParams, request.params, 'path');
    const { decision } = parseInput(decisionBody, request.body, 'request body');
    const decided = await core.oauth.decide(requestId, request.principal, decision);
    if (decided === undefined) throw noRequest();
    request.log.info({ requestId, decision }, 'authorization request decided');
    const body: Schemas['OAuthDecisionResult'] = { redirectTo: decided.redirectTo };
    return reply.header('Cache-Control', 'no-store').send(body);
  });

  app.get('/oauth/grants', async (request) => {
    const grants = await core.oauth.listGrants(request.principal);
    const body: Schemas['OAuthGrantList'] = { items: grants.map(grantDto) };
    return body;
  });

  app.delete('/oauth/grants/:grantId', async (request, reply) => {
    const { grantId } = parseInput(grantParams, request.params, 'path');
    if (!(await core.oauth.revokeGrant(request.principal, grantId))) {
      throw new AppError('not_found', 'The OAuth grant does not exist in this workspace (or has ended).');
    }
    return reply.code(204).send();
  });
}
