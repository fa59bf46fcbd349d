// Keeps the dashboard's session cookie out of captured traffic. Browsers send cookies by host, not by port, so
// on one host the capture listener receives the API's session cookie; it is never stored, echoed or set.

/** The dashboard session cookie's name; over https the browser keeps it as `__Host-sandtrap_session`. */
export const SESSION_COOKIE = 'sandtrap_session';

/** Every name under which a browser could hold or be given the session cookie. */
export const SERVICE_COOKIE_NAMES: readonly string[] = [
  SESSION_COOKIE,
  `__Host-${SESSION_COOKIE}`,
  `__Secure-${SESSION_COOKIE}`,
];

// Browsers compare cookie names exactly, but a differently cased copy is still not the sender's to keep.
const SERVICE_NAMES_LOWER = new Set(SERVICE_COOKIE_NAMES.map((n) => n.toLowerCase()));

export function isServiceCookieName(name: string): boolean {
  return SERVICE_NAMES_LOWER.has(name.trim().toLowerCase());
}

/** The cookie name a `Set-Cookie` value sets: the text before its first `=`, or before its first `;`. */
export function setCookieName(value: string): string {
  const end = value.search(/[=;]/);
  return (end === -1 ? value : value.slice(0, end)).trim();
}

export interface ShieldedHeaders {
  headers: Array<[string, string]>;
  /** Names of the service cookies removed, in the order met, each once; empty when the headers were kept. */
  redacted: string[];
}

/**
 * The request headers without any service cookie: removed from every `Cookie` header (the other cookies stay
 * as sent), and a `Cookie` header left with nothing is dropped. Headers are returned untouched (the same
 * array) when no service cookie was sent, so the raw request stays byte for byte as received.
 */
export function shieldSessionCookies(headers: Array<[string, string]>): ShieldedHeaders {
  const redacted: string[] = [];
  const out: Array<[string, string]> = [];
  for (const [name, value] of headers) {
    if (name.toLowerCase() !== 'cookie') {
      out.push([name, value]);
      continue;
    }
    const kept: string[] = [];
    let removed = false;
    for (const pair of value.split(';')) {
      const eq = pair.indexOf('=');
      const cookieName = (eq === -1 ? pair : pair.slice(0, eq)).trim();
      if (!isServiceCookieName(cookieName)) {
        if (pair.trim() !== '') kept.push(pair.trim());
        continue;
      }
      removed = true;
      if (!redacted.includes(cookieName)) redacted.push(cookieName);
    }
    if (!removed) out.push([name, value]);
    else if (kept.length > 0) out.push([name, kept.join('; ')]);
  }
  return redacted.length === 0 ? { headers, redacted } : { headers: out, redacted };
}

/** Reply headers without a `Set-Cookie` for a service cookie: a capture reply never plants a session. */
export function withoutServiceSetCookies(headers: Array<[string, string]>): Array<[string, string]> {
  const planted = ([name, value]: [string, string]) =>
    name.toLowerCase() === 'set-cookie' && isServiceCookieName(setCookieName(value));
  return headers.some(planted) ? headers.filter((h) => !planted(h)) : headers;
}
