// Which sandbox a capture request is for: the Host `<id>.<CAPTURE_DOMAIN>`, or else a first path segment
// that is a sandbox id (recorded path without it), for local use where wildcard names do not resolve.
import { UUID_PATTERN } from '../core/random.ts';

export interface Routed {
  sandboxId: string;
  /** The path as recorded (raw, percent-encoding kept), without the query. */
  path: string;
  query: string | null;
}

function splitTarget(target: string): { path: string; query: string | null } {
  let rest = target;
  // absolute-form (proxies): http://host/path?q
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(rest);
  if (absolute !== null) rest = rest.slice(absolute[0].length);
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  const q = rest.indexOf('?');
  const path = q >= 0 ? rest.slice(0, q) : rest;
  return { path: path === '' ? '/' : path, query: q >= 0 ? rest.slice(q + 1) : null };
}

export function routeCapture(
  host: string | undefined,
  target: string,
  captureDomain: string,
): Routed | undefined {
  const { path, query } = splitTarget(target);
  const hostname = (host ?? '').replace(/:\d+$/, '').replace(/\.$/, '').toLowerCase();
  const suffix = `.${captureDomain}`;
  if (hostname.endsWith(suffix)) {
    const label = hostname.slice(0, -suffix.length);
    if (UUID_PATTERN.test(label)) return { sandboxId: label, path, query };
  }
  const match = /^\/([^/]+)(\/.*)?$/.exec(path);
  if (match !== null && UUID_PATTERN.test(match[1] as string)) {
    return { sandboxId: (match[1] as string).toLowerCase(), path: match[2] ?? '/', query };
  }
  return undefined;
}
