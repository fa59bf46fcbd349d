// The dashboard session cookie (reading it, setting it, clearing it) and the two facts about a request it
// depends on: whether the browser reached us over https, and whether a write comes from our own origin.
import type { FastifyRequest } from 'fastify';
import proxyaddr from 'proxy-addr';
import type { Config } from '../core/config.ts';

export const SESSION_COOKIE = 'sandtrap_session';

/** The value of the session cookie, or undefined; no cookie library needed for one name. */
export function sessionToken(cookieHeader: string | undefined): string | undefined {
  if (cookieHeader === undefined) return undefined;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return value === '' ? undefined : value;
  }
  return undefined;
}

export interface RequestOrigin {
  /** Whether the browser's connection is https (directly, or at a trusted proxy that says so). */
  https(request: FastifyRequest): boolean;
  /** Whether `Origin` names this service: PUBLIC_URL, or the scheme and Host the request came with. */
  isOwnOrigin(request: FastifyRequest): boolean;
}

export function requestOrigin(config: Pick<Config, 'publicUrl' | 'trustedProxies'>): RequestOrigin {
  const trust = proxyaddr.compile(config.trustedProxies);
  const publicIsHttps = config.publicUrl?.startsWith('https:') === true;

  /** The scheme between the browser and whatever it connected to; X-Forwarded-Proto only from a trusted peer. */
  function scheme(request: FastifyRequest): 'http' | 'https' {
    const peer = request.raw.socket?.remoteAddress;
    const forwarded = request.headers['x-forwarded-proto'];
    if (peer !== undefined && typeof forwarded === 'string' && trust(peer, 0)) {
      // The first proxy in the chain is the one the browser talked to.
      const first = forwarded.split(',')[0]?.trim().toLowerCase();
      if (first === 'https' || first === 'http') return first;
    }
    return 'http';
  }

  return {
    https: (request) => publicIsHttps || scheme(request) === 'https',
    isOwnOrigin(request) {
      const origin = request.headers.origin;
      if (typeof origin !== 'string' || origin === 'null') return false;
      if (config.publicUrl !== undefined && origin === config.publicUrl) return true;
      const host = request.headers.host;
      return host !== undefined && origin === `${scheme(request)}://${host}`;
    },
  };
}

/** Set-Cookie for a new session: never readable by script, never sent by another site. */
export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${token}`,
    'HttpOnly',
    'SameSite=Strict',
    'Path=/',
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/** Set-Cookie that makes the browser drop the session cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', 0, secure);
}
