// Redirect URIs: which a client may register (https, loopback http, a native app's private-use scheme), how a
// presented one matches (exactly, except the port of a loopback address, RFC 8252 §7.3), and how a response
// is appended to one.

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** Schemes that would run code or read local files in the browser that follows the redirect. */
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'vbscript:',
  'file:',
  'blob:',
  'about:',
  'ws:',
  'wss:',
]);

/** Why a URI cannot be registered, or undefined when it can. */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${JSON.stringify(uri)} is not an absolute URI`;
  }
  if (url.hash !== '' || uri.includes('#'))
    return `${uri} has a fragment; redirect URIs must not (RFC 6749 §3.1.2)`;
  if (url.username !== '' || url.password !== '') return `${uri} carries credentials`;
  if (FORBIDDEN_SCHEMES.has(url.protocol))
    return `${uri} uses the ${url.protocol} scheme, which is never allowed`;
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
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
  // A native app listens on whatever port the OS gave it: compare everything but the port.
  const portless = (u: URL) => `${u.protocol}//${u.hostname}${u.pathname}${u.search}`;
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
