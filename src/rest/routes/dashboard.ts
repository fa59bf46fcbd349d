// The dashboard's files, built into dist/web at install: index.html for / and every /s/... deep link, for
// /connections, /webhooks and for the OAuth consent page /oauth/consent/{id} (the app routes in the browser), and
// /assets/<file> named by content hash, so cached for a year and sent precompressed (br or gzip) as the browser
// accepts, by @fastify/static. Every answer carries a strict CSP without inline script.
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { problem } from '../../core/problem.ts';
import { sendProblem } from '../errorHandler.ts';

export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "frame-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Where `npm run build:web` writes; tests point elsewhere. */
export const DEFAULT_WEB_DIR = fileURLToPath(new URL('../../../dist/web/', import.meta.url));

/**
 * A file name in assets/, never a path: no separators, no leading dot, so nothing outside can be named; and never
 * a .br/.gz sibling itself, which is only ever sent as the encoding of the file it compresses.
 */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;
const PRECOMPRESSED = /\.(br|gz)$/;

function notBuilt(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendProblem(
    reply,
    problem(
      'unavailable',
      'The dashboard is not built: run npm ci (or npm run build:web), then reload.',
      request.id,
      request.url,
    ),
  );
}

/** Register inside its own plugin scope (`app.register`), so its headers stay on its routes. */
export async function dashboardRoutes(app: FastifyInstance, webDir: string = DEFAULT_WEB_DIR): Promise<void> {
  const indexFile = join(webDir, 'index.html');
  // Checked on each request (a rebuild needs no restart), so a missing build answers 503 naming the fix.
  const isBuilt = () =>
    access(indexFile).then(
      () => true,
      () => false,
    );

  // `app` is this plugin's own scope: the hook covers exactly the dashboard's answers, refusals included.
  app.addHook('onSend', async (_request, reply) => {
    reply.header('Content-Security-Policy', DASHBOARD_CSP);
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'same-origin');
  });

  // Only reply.sendFile (serve: false): the routes below choose which names reach it.
  await app.register(fastifyStatic, {
    root: join(webDir, 'assets'),
    serve: false,
    preCompressed: true,
    maxAge: '1y',
    immutable: true,
    // A missing build is answered per request (503), not warned about at start.
    suppressWarning: true,
  });

  // Revalidated on each load (a few KB): browsers must never run a stale page against new hashed assets.
  const index = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!(await isBuilt())) return notBuilt(request, reply);
    return reply.header('Cache-Control', 'no-cache').sendFile('index.html', webDir, { cacheControl: false });
  };
  app.get('/', { logLevel: 'warn' }, index);
  app.get('/s', { logLevel: 'warn' }, index);
  app.get('/s/*', { logLevel: 'warn' }, index);
  app.get('/connections', { logLevel: 'warn' }, index);
  app.get('/webhooks', { logLevel: 'warn' }, index);
  // Only the consent page: the rest of /oauth/ is the authorization server's (authorize, token, register, revoke).
  app.get('/oauth/consent/*', { logLevel: 'warn' }, index);

  await app.register(
    async (assets) => {
      // mime 3 (under @fastify/send) still names JavaScript application/javascript; RFC 9239 made text/javascript
      // the one type, and it is what this server has always sent.
      assets.addHook('onSend', async (_request, reply) => {
        if (String(reply.getHeader('content-type')).startsWith('application/javascript'))
          reply.type('text/javascript; charset=utf-8');
      });
      // Every unknown /assets/... (an older build's file, a stray path): which file, and what to do.
      assets.setNotFoundHandler(async (request, reply) => {
        if (!(await isBuilt())) return notBuilt(request, reply);
        const file = request.url.split('?')[0]!.replace(/^\/assets\//, '');
        return sendProblem(
          reply,
          problem(
            'not-found',
            `No dashboard file ${file}: it may be from an older build. Reload the page.`,
            request.id,
            request.url,
          ),
        );
      });
      assets.get<{ Params: { file: string } }>('/:file', { logLevel: 'warn' }, async (request, reply) => {
        const { file } = request.params;
        if (!ASSET_NAME.test(file) || PRECOMPRESSED.test(file)) return reply.callNotFound();
        return reply.sendFile(file);
      });
    },
    { prefix: '/assets' },
  );
}

/** Paths that belong to the API, the agent server and the probes: their unknown paths stay problem+json. */
const MACHINE_PATHS =
  /^\/(api|mcp|oauth|\.well-known|openapi|api-docs|healthz|readyz|metrics|providers|assets)(\/|$|\?)/;

/**
 * A browser's request for an unknown page (GET, accepting HTML, outside the machine paths) gets the dashboard
 * with status 404, which shows its own "page not found" view instead of raw JSON; undefined for anything else.
 */
export function dashboardNotFoundPage(webDir: string = DEFAULT_WEB_DIR) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
    if (!String(request.headers.accept ?? '').includes('text/html')) return undefined;
    if (MACHINE_PATHS.test(request.url)) return undefined;
    let html: Buffer;
    try {
      html = await readFile(join(webDir, 'index.html'));
    } catch {
      return undefined;
    }
    return reply
      .code(404)
      .header('Content-Security-Policy', DASHBOARD_CSP)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'same-origin')
      .header('Cache-Control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(html);
  };
}
