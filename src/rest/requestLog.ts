// What the request log says of a request: fastify's fields, with the values of secret-bearing query parameters
// (OAuth codes, state, tokens, keys) replaced, so a token sent in a URL never reaches the log.
import type { FastifyRequest } from 'fastify';

const SECRET_PARAMS = new Set([
  'access_token',
  'refresh_token',
  'token',
  'code',
  'code_verifier',
  'state',
  'client_secret',
  'api_key',
  'apikey',
  'key',
]);

/** The URL with each secret parameter's value replaced by "[redacted]"; other parameters stay readable. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const parts = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replaceAll('+', ' '));
      } catch {
        // a name that is not valid percent-encoding is logged as sent
      }
      return eq !== -1 && SECRET_PARAMS.has(decoded.toLowerCase()) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}

export function requestForLog(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
