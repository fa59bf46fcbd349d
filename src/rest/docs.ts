// /openapi/v1.json and the interactive reference at /api-docs, served from local files (no CDN).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { openapiDocument } from './openapiDocument.ts';

export async function installDocs(app: FastifyInstance): Promise<void> {
  const document = openapiDocument();
  app.get('/openapi/v1.json', { logLevel: 'warn' }, async () => document);
  await app.register(swagger, {
    mode: 'static',
    specification: { document: document as never },
  });
  await app.register(swaggerUi, {
    routePrefix: '/api-docs',
    validatorUrl: false,
    // The key typed into "Authorize" lives only as long as the tab: never in localStorage, where any script
    // on this origin could read it.
    uiConfig: { url: '/openapi/v1.json', persistAuthorization: false, displayRequestDuration: true },
    // The plugin's own policy (its inline script hashes), never framed, every file not sniffed.
    staticCSP: true,
    transformStaticCSP: (policy) =>
      policy
        .replace(/frame-ancestors [^;]*;/, "frame-ancestors 'none';")
        .replace(' upgrade-insecure-requests;', ''),
    logLevel: 'warn',
  });
  app.addHook('onSend', async (request, reply) => {
    if (request.url.startsWith('/api-docs')) reply.header('X-Content-Type-Options', 'nosniff');
  });
}
