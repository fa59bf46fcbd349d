// The discovery documents: Protected Resource Metadata (RFC 9728) at the root and path-aware (/mcp) well-known
// URLs, and Authorization Server Metadata (RFC 8414) at its own URL and the OpenID Connect one that MCP
// clients fall back to.
import type { FastifyInstance } from 'fastify';
import type { Core } from '../../core/core.ts';

export const PROTECTED_RESOURCE_PATHS = [
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
] as const;
export const AUTHORIZATION_SERVER_PATHS = [
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
] as const;

/** Short: the documents only change with PUBLIC_URL, and a restart with a new one should show soon. */
const CACHE_CONTROL = 'public, max-age=60';

export function wellKnownRoutes(scope: FastifyInstance, core: Core): void {
  for (const url of PROTECTED_RESOURCE_PATHS) {
    scope.get(url, async (_request, reply) =>
      reply.header('Cache-Control', CACHE_CONTROL).send(core.oauth.protectedResourceMetadata()),
    );
  }
  for (const url of AUTHORIZATION_SERVER_PATHS) {
    scope.get(url, async (_request, reply) =>
      reply.header('Cache-Control', CACHE_CONTROL).send(core.oauth.authorizationServerMetadata()),
    );
  }
}
