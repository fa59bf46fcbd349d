// The API listener's part of the metrics: every request counted by route template, method and status, and
// /metrics itself when METRICS=on (never behind the session cookie; METRICS_TOKEN as a bearer token if set).
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core/core.ts';
import { scrapeMetrics } from '../core/metrics.ts';

export function metricsRoutes(app: FastifyInstance, core: Core): void {
  if (core.config.metrics.mode === 'off') return;
  app.addHook('onResponse', async (request, reply) => {
    core.metrics.httpRequests.inc({
      // The template (/api/v1/sandboxes/:id), never the path: ids stay out of labels.
      route: request.routeOptions.url ?? 'unmatched',
      method: request.method,
      status: String(reply.statusCode),
    });
  });
  if (core.config.metrics.mode !== 'api') return;
  app.get('/metrics', { logLevel: 'warn' }, async (request, reply) => {
    const scrape = await scrapeMetrics(core.metrics, core.config.metricsToken, request.headers.authorization);
    if (scrape.status === 401)
      return reply.code(401).header('WWW-Authenticate', 'Bearer').type('text/plain').send(scrape.body);
    return reply.type(scrape.contentType).send(scrape.body);
  });
}
