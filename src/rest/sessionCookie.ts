// The dashboard session cookie (reading it, setting it, clearing it) and the two facts about a request it
// depends on: whether the browser reached us over https, and whether a write comes from our own origin.
import type { FastifyRequest } from 'fastify';
import proxyaddr from 'proxy-addr';
import type { Config } from '../core/config.ts';
import { SERVICE_COOKIE_NAMES, SESSION_COOKIE } from '../core/http/sessionShield.ts';

/** The cookie's name: over https the `__Host-` prefix makes the browser refuse one set by any other origin. */
export function sessionCookieName(https: boolean): string {
  return https ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE;
}

export type PresentedSession =
  | { kind: 'none' }
  | { kind: 'one'; token: string }
  /** More than one session cookie: one may have been planted (by a path-scoped cookie), so none is trusted. */
  | { kind: 'several'; names: string[] };

/** The session cookie the browser sent under the name this scheme uses; no cookie library needed for one name. */
export function presentedSession(cookieHeader: string | undefined, https: boolean): PresentedSession {
  if (cookieHeader === undefined) return { kind: 'none' };
  const wanted = sessionCookieName(https);
  const seen: Array<{ name: string; value: string }> = [];
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const name = part.slice(0, eq).trim();
    if (SERVICE_COOKIE_NAMES.includes(name)) seen.push({ name, value: part.slice(eq + 1).trim() });
  }
  if (seen.length > 1) return { kind: 'several', names: [...new Set(seen.map((c) => c.name))] };
  const only = seen[0];
  return only === undefined || only.name !== wanted || only.value === ''
    ? { kind: 'none' }
    : { kind: 'one', token: only.value };
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
    `${sessionCookieName(secure)}=${token}`,
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

/**
 * Set-Cookie lines that drop every session cookie of these names at `/` and at each folder above the request's
 * path (with and without the trailing slash): a planted cookie is scoped to some such path, and a browser
 * drops a cookie only for the exact path it was set with.
 */
export function clearedSessionCookies(names: string[], url: string, secure: boolean): string[] {
  const path = url.split(/[?#]/, 1)[0] ?? '/';
  const paths = new Set(['/']);
  const segments = path.split('/').filter((s) => s !== '');
  for (let i = 1; i <= segments.length; i++) {
    const p = `/${segments.slice(0, i).join('/')}`;
    paths.add(p);
    paths.add(`${p}/`);
  }
  const lines: string[] = [];
  for (const name of names) {
    // A `__Host-` cookie can only exist at `/`, and both prefixes are dropped only by a Secure line.
    const prefixed = name !== SESSION_COOKIE;
    for (const p of name.startsWith('__Host-') ? ['/'] : paths) {
      lines.push(
        [`${name}=`, 'HttpOnly', 'SameSite=Strict', `Path=${p}`, 'Max-Age=0']
          .concat(secure || prefixed ? ['Secure'] : [])
          .join('; '),
      );
    }
  }
  return lines;
}
