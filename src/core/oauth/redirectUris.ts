// Redirect URIs: which a client may register (https, loopback http, a native app's private-use scheme), how a
// presented one matches (exactly, except the port of a loopback address, RFC 8252 §7.3), and how a response
// is appended to one.

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Single-label private-use schemes of MCP clients that register them although RFC 8252 §7.1 asks for a
 * reverse-domain name: Cursor registers cursor://anysphere.cursor-mcp/oauth/callback. Refusing it would lock
 * out a client sandtrap is for; any other scheme without a period is refused.
 */
const KNOWN_APP_SCHEMES = new Set(['cursor']);

/** The authority of a hierarchical URI as written (before the URL parser drops an empty userinfo). */
const AUTHORITY = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/;

/**
 * Why a scheme may not carry a redirect, or undefined when it may: https, http on loopback (checked by the
 * caller), a reverse-domain private-use scheme (com.example.app:), or one of KNOWN_APP_SCHEMES. Everything
 * else (javascript:, data:, file:, blob:, ws:, vbscript:, a bare myapp:) is refused.
 */
function schemeProblem(scheme: string): string | undefined {
  if (scheme === 'https' || scheme === 'http') return undefined;
  if (KNOWN_APP_SCHEMES.has(scheme)) return undefined;
  if (scheme.includes('.')) return undefined;
  return (
    `the ${scheme}: scheme is not allowed; use https, http on a loopback address (127.0.0.1, [::1], ` +
    `localhost), or a private-use scheme named after a domain you control, such as com.example.app: ` +
    `(RFC 8252 §7.1)`
  );
}

/** Why a URI cannot be a redirect URI (at registration, and when presented to /oauth/authorize), or undefined. */
export function redirectUriProblem(uri: string): string | undefined {
  // The URL parser strips spaces and control characters and reads \ as /: what is stored and compared must be
  // exactly what the browser will be sent to.
  if (/[\u0000-\u0020\u007f\\]/.test(uri)) {
    return `${JSON.stringify(uri)} contains spaces, control characters or backslashes`;
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${JSON.stringify(uri)} is not an absolute URI`;
  }
  if (url.hash !== '' || uri.includes('#'))
    return `${uri} has a fragment; redirect URIs must not (RFC 6749 §3.1.2)`;
  // "https://@host/" parses with an empty username: the "@" is refused as written, not as parsed.
  if (url.username !== '' || url.password !== '' || (AUTHORITY.exec(uri)?.[1] ?? '').includes('@'))
    return `${uri} carries credentials (userinfo before the host); redirect URIs must not`;
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  const problem = schemeProblem(scheme);
  if (problem !== undefined) return `${uri}: ${problem}`;
  if (scheme === 'http' && !LOOPBACK_HOSTS.has(url.hostname)) {
    return `${uri} is plain http on a non-loopback host; use https, or http://127.0.0.1 for a local client`;
  }
  return undefined;
}

function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/** The registered URI a presented one matches, or undefined. */
export function matchRedirectUri(presented: string, registered: readonly string[]): string | undefined {
  if (registered.includes(presented)) return presented;
  let url: URL;
  try {
    url = new URL(presented);
  } catch {
    return undefined;
  }
  if (!isLoopbackHttp(url)) return undefined;
  // A native app listens on whatever port the OS gave it: compare everything but the port (userinfo included,
  // so credentials never ride along on a loopback match).
  const portless = (u: URL) =>
    `${u.protocol}//${u.username}:${u.password}@${u.hostname}${u.pathname}${u.search}`;
  return registered.some((r) => {
    try {
      const candidate = new URL(r);
      return isLoopbackHttp(candidate) && portless(candidate) === portless(url);
    } catch {
      return false;
    }
  })
    ? presented
    : undefined;
}

/** The redirect URI with the response's parameters added to its query (kept in order, existing ones kept). */
export function withParams(uri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) url.searchParams.append(name, value);
  }
  return url.toString();
}

/** What a person is shown as the destination: host[:port], or the scheme of a native app's URI. */
export function redirectHostOf(uri: string): string {
  try {
    const url = new URL(uri);
    return url.host !== '' ? url.host : url.protocol.replace(/:$/, '');
  } catch {
    return uri;
  }
}
