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
    uiConfig: { url: '/openapi/v1.json', persistAuthorization: true, displayRequestDuration: true },
    logLevel: 'warn',
  });
}
