// The dashboard's files, built into dist/web at install: index.html for / and every /s/... deep link, for
// /connections and for the OAuth consent page /oauth/consent/{id} (the app routes in the browser), and
// /assets/<file> named by content hash, so cached for a year and sent precompressed (br or gzip) as the browser
// accepts. Every answer carries a strict CSP without inline script.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
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

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** A file name in assets/, never a path: no separators, no leading dot, so nothing outside can be named. */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

type Encoding = 'br' | 'gzip';

/** The precompressed encodings the client accepts, best first (a q=0 refuses one). */
export function acceptedEncodings(header: string | undefined): Encoding[] {
  const accepted = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (name === undefined || name === '') continue;
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const wildcard = accepted.get('*');
  const ok = (name: Encoding) => (accepted.get(name) ?? wildcard ?? 0) > 0;
  return (['br', 'gzip'] as const).filter(ok);
}

async function readOrUndefined(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'EISDIR')
      return undefined;
    throw err;
  }
}

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
export function dashboardRoutes(app: FastifyInstance, webDir: string = DEFAULT_WEB_DIR): void {
  const assetsDir = join(webDir, 'assets');

  // `app` is this plugin's own scope: the hook covers exactly the dashboard's answers, refusals included.
  app.addHook('onSend', async (_request, reply) => {
    reply.header('Content-Security-Policy', DASHBOARD_CSP);
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'same-origin');
  });

  // Read on each request (a few KB, and browsers keep it only until it changes): a rebuild needs no restart.
  const index = async (request: FastifyRequest, reply: FastifyReply) => {
    const html = await readOrUndefined(join(webDir, 'index.html'));
    if (html === undefined) return notBuilt(request, reply);
    return reply.header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(html);
  };
  app.get('/', { logLevel: 'warn' }, index);
  app.get('/s', { logLevel: 'warn' }, index);
  app.get('/s/*', { logLevel: 'warn' }, index);
  app.get('/connections', { logLevel: 'warn' }, index);
  // Only the consent page: the rest of /oauth/ is the authorization server's (authorize, token, register, revoke).
  app.get('/oauth/consent/*', { logLevel: 'warn' }, index);

  app.get<{ Params: { file: string } }>('/assets/:file', { logLevel: 'warn' }, async (request, reply) => {
    const { file } = request.params;
    const missing = () =>
      sendProblem(
        reply,
        problem(
          'not-found',
          `No dashboard file ${file}: it may be from an older build. Reload the page.`,
          request.id,
          request.url,
        ),
      );
    if (!ASSET_NAME.test(file) || /\.(br|gz)$/.test(file)) return missing();
    reply.header('Vary', 'Accept-Encoding');
    for (const encoding of acceptedEncodings(request.headers['accept-encoding'])) {
      const body = await readOrUndefined(join(assetsDir, `${file}.${encoding === 'br' ? 'br' : 'gz'}`));
      if (body !== undefined) return sendAsset(reply, file, body, encoding);
    }
    const body = await readOrUndefined(join(assetsDir, file));
    if (body !== undefined) return sendAsset(reply, file, body, undefined);
    const built = await readOrUndefined(join(webDir, 'index.html'));
    return built === undefined ? notBuilt(request, reply) : missing();
  });
}

function sendAsset(
  reply: FastifyReply,
  file: string,
  body: Buffer,
  encoding: Encoding | undefined,
): FastifyReply {
  if (encoding !== undefined) reply.header('Content-Encoding', encoding);
  return reply
    .header('Cache-Control', 'public, max-age=31536000, immutable')
    .type(TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream')
    .send(body);
}
