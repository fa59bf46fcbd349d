// CORS for the OAuth endpoints a browser-based MCP client calls directly (discovery, token, registration,
// revocation): any origin may read them, since none of them uses cookies or other ambient credentials.
import type { FastifyInstance } from 'fastify';

const ALLOWED_HEADERS = 'Authorization, Content-Type, MCP-Protocol-Version';

/**
 * Adds `Access-Control-Allow-Origin: *` to every answer of the routes at `paths` (refusals included, so a
 * browser client can read the error) and answers their preflights. Install before the rate limit hook, so a
 * 429 is readable too.
 */
export function allowAnyOrigin(scope: FastifyInstance, paths: readonly string[]): void {
  const open = new Set(paths);
  scope.addHook('onRequest', async (request, reply) => {
    if (open.has(request.routeOptions.url ?? '')) reply.header('Access-Control-Allow-Origin', '*');
  });
  for (const url of paths) {
    scope.options(url, async (_request, reply) =>
      reply
        .code(204)
        .header('Access-Control-Allow-Methods', 'GET, POST, OPTIONS')
        .header('Access-Control-Allow-Headers', ALLOWED_HEADERS)
        .header('Access-Control-Max-Age', '600')
        .send(),
    );
  }
}
