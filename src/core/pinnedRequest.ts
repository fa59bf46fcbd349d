// An outbound HTTP request that can only reach the addresses vetted for its target: the DNS answer is pinned
// (a second resolution cannot aim it elsewhere), the connected address is checked again, no pooled socket or
// proxy is used, and it is cut off at its time limit. Webhook deliveries, request replays and link checks
// all go out through here, and the fetch of an OAuth client's metadata document.
import http from 'node:http';
import https from 'node:https';
import type { LookupAddress } from 'node:dns';
import { isIPv6, type LookupFunction } from 'node:net';

/** One spelling per address: an IPv6 address may be written several ways (`::ffff:127.0.0.1` is `::ffff:7f00:1`). */
const canonical = (address: string) => (isIPv6(address) ? new URL(`http://[${address}]`).hostname : address);

/** Answers net.connect's lookup with the vetted addresses only; `dialled` records what was handed out. */
function pinnedLookup(addresses: LookupAddress[], dialled: Set<string>): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
    const usable = wanted === undefined ? addresses : addresses.filter((a) => a.family === wanted);
    if (usable.length === 0) {
      const err: NodeJS.ErrnoException = new Error(`no IPv${wanted} address`);
      err.code = 'ENOTFOUND';
      callback(err, '', 0);
      return;
    }
    for (const a of usable) dialled.add(a.address);
    if (options.all) callback(null, usable);
    else callback(null, usable[0]?.address ?? '', usable[0]?.family ?? 4);
  };
}

/** A transport error as a person reads it. */
export function failure(err: NodeJS.ErrnoException, timeoutMs: number): string {
  if (err.name === 'AbortError' || err.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  const code = err.code ?? '';
  if (code === 'ECONNREFUSED') return 'the target refused the connection';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'the target closed the connection';
  if (code.startsWith('HPE_')) return 'the target answered with a malformed HTTP response';
  return err.message;
}

export interface PinnedOptions {
  method: string;
  /** Sent as given; Host is always the target's. */
  headers?: http.OutgoingHttpHeaders;
  /** Cut off after this long, or when `signal` aborts (one of the two). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Trusted certificates for https, when not the default set. */
  ca?: https.RequestOptions['ca'];
}

/**
 * The request, not yet ended: the caller adds headers, listens for 'response' and 'error', and ends it. An
 * IP-literal target skips the lookup, so the connected address is checked against the vetted list too.
 */
export function pinnedRequest(
  target: string,
  addresses: LookupAddress[],
  options: PinnedOptions,
): http.ClientRequest {
  const url = new URL(target);
  const dialled = new Set<string>();
  const client = url.protocol === 'https:' ? https : http;
  const req = client.request({
    protocol: url.protocol,
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? undefined : Number(url.port),
    path: url.pathname + url.search,
    method: options.method,
    headers: { ...options.headers, host: url.host },
    lookup: pinnedLookup(addresses, dialled),
    // A private agent: no pooled socket dialled for another target, no proxy from the environment.
    agent: false,
    signal: options.signal ?? AbortSignal.timeout(options.timeoutMs ?? 30_000),
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  });
  req.on('socket', (socket) => {
    socket.once('connect', () => {
      const remote = canonical(socket.remoteAddress ?? '');
      const vetted = [...addresses.map((a) => a.address), ...dialled].some((a) => canonical(a) === remote);
      if (!vetted)
        req.destroy(new Error(`connected to ${socket.remoteAddress}, which was not the vetted address`));
    });
  });
  return req;
}
