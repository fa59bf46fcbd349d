// METRICS=<host>:<port>: /metrics on a listener of its own, so the API port need not be reachable by the
// scraper (or the scraper's network by the API's clients).
import { createServer, type Server } from 'node:http';
import type { Core } from '../core/core.ts';
import { scrapeMetrics } from '../core/metrics.ts';

export function createMetricsListener(core: Core): Server {
  return createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics here.\n');
      return;
    }
    scrapeMetrics(core.metrics, core.config.metricsToken, req.headers.authorization).then(
      (scrape) => {
        if (scrape.status === 401)
          res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end(scrape.body);
        else res.writeHead(200, { 'content-type': scrape.contentType }).end(scrape.body);
      },
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('The metrics could not be collected.\n'),
    );
  });
}
