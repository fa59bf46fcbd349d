// DNS-rebinding guard for /mcp on a loopback-bound server: the Host header, and the Origin when a browser
// sends one, must name a loopback host AND the port the request arrived on. Comparing names alone let a page
// served on the capture port (whose mock rules may answer with any HTML) call /mcp with the visitor's key.
// Behind a TLS proxy the request names PUBLIC_URL instead: that origin is ours, so it passes too.
import type { FastifyReply, FastifyRequest } from 'fastify';

const DEFAULT_PORT: Record<string, number> = { 'http:': 80, 'https:': 443 };

function hostAndPort(value: string, scheme: string): { host: string; port: number } | undefined {
  try {
    const url = new URL(`${scheme}//${value}`);
    if (url.username !== '' || url.password !== '' || url.pathname !== '/') return undefined;
    return {
      host: url.hostname.toLowerCase(),
      port: url.port === '' ? (DEFAULT_PORT[scheme] ?? 0) : Number(url.port),
    };
  } catch {
    return undefined;
  }
}

function originParts(origin: string): { host: string; port: number } | undefined {
  try {
    const url = new URL(origin);
    if (!(url.protocol in DEFAULT_PORT)) return undefined;
    return {
      host: url.hostname.toLowerCase(),
      port: url.port === '' ? (DEFAULT_PORT[url.protocol] ?? 0) : Number(url.port),
    };
  } catch {
    return undefined;
  }
}

/** True when a Host header names PUBLIC_URL's host (its port, or none for the scheme's default). */
function isPublicHost(host: string, publicUrl: URL | undefined): boolean {
  if (publicUrl === undefined) return false;
  try {
    return new URL(`${publicUrl.protocol}//${host}`).host === publicUrl.host;
  } catch {
    return false;
  }
}

function isPublicOrigin(origin: string, publicUrl: URL | undefined): boolean {
  if (publicUrl === undefined) return false;
  try {
    return new URL(origin).origin === publicUrl.origin;
  } catch {
    return false;
  }
}

export function sameServerCheck(allowedHosts: readonly string[], publicUrl?: string) {
  const names = new Set(allowedHosts.map((h) => h.toLowerCase()));
  const ours = publicUrl === undefined ? undefined : new URL(publicUrl);
  const ok = (p: { host: string; port: number } | undefined, port: number) =>
    p !== undefined && names.has(p.host) && p.port === port;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const port = request.raw.socket.localPort ?? 0;
    const host = request.headers.host;
    const origin = request.headers.origin;
    const refused =
      host === undefined || !(ok(hostAndPort(host, 'http:'), port) || isPublicHost(host, ours))
        ? `Host ${host ?? '(none)'} is not this server`
        : origin !== undefined && !(ok(originParts(origin), port) || isPublicOrigin(origin, ours))
          ? `Origin ${origin} is not this server`
          : undefined;
    if (refused === undefined) return;
    return reply.code(403).send({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: `${refused}: /mcp on a loopback address answers only requests addressed to ${[...names][0]}:${port} (DNS rebinding guard). Connect to that address.`,
      },
      id: null,
    });
  };
}
