// Fetches Client ID Metadata Documents (client_ids that are https URLs): SSRF-guarded, size- and time-limited, cached.
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { getCACertificates } from 'node:tls';
import { systemClock, type Clock } from '../clock.ts';
import { pinnedRequest } from '../pinnedRequest.ts';
import { nonPublicAddress } from './addressPolicy.ts';
import type { ClientMetadataFetcher, FetchedDocument } from './types.ts';

export const DEFAULT_TIMEOUT_MS = 5_000;
export const DEFAULT_MAX_BYTES = 64 * 1024;
export const CACHE_ENTRIES = 500;
/** Bounds on a document's Cache-Control max-age: a floor so no client can make us refetch on every request. */
export const MIN_MAX_AGE_S = 60;
export const MAX_MAX_AGE_S = 86_400;
export const DEFAULT_MAX_AGE_S = 3_600;
/** A refusal is remembered this long, so a bad client_id cannot make us hammer its host. */
export const REFUSAL_TTL_S = 30;
const MAX_URL_LENGTH = 2_048;
const USER_AGENT = 'sandtrap (client metadata fetch)';
const ALLOW_PRIVATE_HINT = 'set OAUTH_ALLOW_PRIVATE_CLIENT_URLS=true to allow it for development';

export interface ClientMetadataFetcherOptions {
  /** OAUTH_ALLOW_PRIVATE_CLIENT_URLS: lets client_ids point at loopback, private and other non-public addresses. */
  allowPrivate: boolean;
  /** The whole fetch (DNS, connect, TLS, headers, body). */
  timeoutMs?: number;
  maxBytes?: number;
  clock?: Clock;
  /** Trust anchors added to the defaults (tests); a server relies on NODE_EXTRA_CA_CERTS instead. */
  ca?: string | Buffer;
}

interface CacheEntry {
  result: FetchedDocument;
  expiresAt: number;
}

type Refusal = Extract<FetchedDocument, { ok: false }>;
const refuse = (description: string): Refusal => ({ ok: false, description });

export function createClientMetadataFetcher(options: ClientMetadataFetcherOptions): ClientMetadataFetcher {
  const clock = options.clock ?? systemClock;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const ca = options.ca === undefined ? undefined : [...getCACertificates('default'), options.ca];
  // Insertion order is recency order: a hit is moved to the end, the oldest is evicted from the front.
  const cache = new Map<string, CacheEntry>();
  // Concurrent authorizations for one client share a fetch.
  const inFlight = new Map<string, Promise<FetchedDocument>>();

  const remember = (url: string, result: FetchedDocument, seconds: number) => {
    cache.delete(url);
    cache.set(url, { result, expiresAt: clock.now().getTime() + seconds * 1000 });
    while (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  };

  const recall = (url: string): FetchedDocument | undefined => {
    const entry = cache.get(url);
    if (entry === undefined) return undefined;
    cache.delete(url);
    if (entry.expiresAt <= clock.now().getTime()) return undefined;
    cache.set(url, entry);
    return entry.result;
  };

  const fetchAndRemember = async (url: string, target: URL): Promise<FetchedDocument> => {
    let result: FetchedDocument;
    try {
      result = await fetchDocument(url, target, {
        allowPrivate: options.allowPrivate,
        timeoutMs,
        maxBytes,
        ca,
        clock,
      });
    } catch (err) {
      result = refuse(`client_id ${url} could not be fetched: ${(err as Error).message}`);
    }
    if (!result.ok) remember(url, result, REFUSAL_TTL_S);
    else if (result.maxAgeSeconds > 0) remember(url, result, result.maxAgeSeconds);
    return result;
  };

  return {
    async fetch(url) {
      try {
        const target = checkClientIdUrl(url);
        if (!(target instanceof URL)) return target;
        const cached = recall(url);
        if (cached !== undefined) return cached;
        let pending = inFlight.get(url);
        if (pending === undefined) {
          pending = fetchAndRemember(url, target).finally(() => inFlight.delete(url));
          inFlight.set(url, pending);
        }
        return await pending;
      } catch (err) {
        return refuse(`client_id ${String(url)} could not be fetched: ${(err as Error).message}`);
      }
    },
  };
}

/**
 * The URL rules of draft-ietf-oauth-client-id-metadata-document §3 as the MCP spec (2025-11-25) takes them:
 * https, a path, no dot segments, no credentials, no fragment. Checked on the raw string, because the URL
 * parser would quietly drop dot segments, tabs and an empty fragment.
 */
export function checkClientIdUrl(raw: string): URL | Refusal {
  if (typeof raw !== 'string') return refuse('client_id must be a string');
  if (raw.length === 0) return refuse('client_id is empty');
  if (raw.length > MAX_URL_LENGTH) {
    return refuse(
      `client_id is ${raw.length} characters long; a client metadata URL may have at most ${MAX_URL_LENGTH}`,
    );
  }
  if (/[\u0000-\u0020\u007f]/.test(raw)) {
    return refuse(
      `client_id ${JSON.stringify(raw)} contains spaces or control characters; send the URL exactly`,
    );
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse(`client_id ${raw} is not a URL`);
  }
  if (url.protocol !== 'https:') {
    return refuse(
      `client_id ${raw} must be an https URL: client metadata documents are fetched over https only`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    return refuse(`client_id ${raw} must not contain a username or password`);
  }
  if (raw.includes('#')) return refuse(`client_id ${raw} must not contain a fragment (#...)`);
  const afterScheme = raw.slice(raw.indexOf(':') + 1).replace(/^[/\\]*/, '');
  const pathStart = afterScheme.search(/[/\\?]/);
  const rawPath = pathStart === -1 ? '' : afterScheme.slice(pathStart).replace(/\?.*$/s, '');
  if (rawPath.split(/[/\\]/).some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment))) {
    return refuse(`client_id ${raw} must not contain "." or ".." path segments`);
  }
  if (url.pathname === '/' || url.pathname === '') {
    return refuse(
      `client_id ${raw} must have a path after the host, such as https://${url.host}/client.json`,
    );
  }
  return url;
}

interface FetchLimits {
  allowPrivate: boolean;
  timeoutMs: number;
  maxBytes: number;
  ca: (string | Buffer)[] | undefined;
  clock: Clock;
}

/** One fetch with every limit applied; resolves to a refusal rather than rejecting for anything foreseeable. */
async function fetchDocument(url: string, target: URL, limits: FetchLimits): Promise<FetchedDocument> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  const timedOut = () =>
    refuse(
      `client_id ${url} did not answer with its whole document within ${seconds(limits.timeoutMs)}; ` +
        'the document must be served promptly',
    );
  try {
    const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
    const addresses = await resolveChecked(url, host, limits.allowPrivate, controller.signal);
    if (controller.signal.aborted) return timedOut();
    if (!Array.isArray(addresses)) return addresses;
    const answer = await request(url, target, addresses, limits, controller.signal);
    if (controller.signal.aborted && !answer.ok) return timedOut();
    return answer;
  } finally {
    clearTimeout(timer);
  }
}

/** The addresses to connect to, each one vetted; IP literals are vetted as they are (no lookup happens). */
async function resolveChecked(
  url: string,
  host: string,
  allowPrivate: boolean,
  signal: AbortSignal,
): Promise<LookupAddress[] | Refusal> {
  const family = isIP(host);
  if (family !== 0) {
    const why = allowPrivate ? undefined : nonPublicAddress(host);
    if (why !== undefined) return refuse(`client_id ${url} names ${host}, ${why}; ${ALLOW_PRIVATE_HINT}`);
    return [{ address: host, family }];
  }
  let addresses: LookupAddress[];
  try {
    addresses = await abortable(dnsLookup(host, { all: true, order: 'verbatim' }), signal);
  } catch (err) {
    // The caller sees the abort and answers with the time limit.
    if (signal.aborted) return [];
    const code = (err as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOTFOUND' || code === 'ENODATA' ? 'does not resolve' : `could not be resolved (${code})`;
    return refuse(`client_id ${url}: the host ${host} ${reason}`);
  }
  if (addresses.length === 0) return refuse(`client_id ${url}: the host ${host} does not resolve`);
  if (!allowPrivate) {
    // One bad address refuses the host: connecting only to the good ones would still let a name that mixes
    // public and private answers probe inward whenever the good ones fail.
    for (const { address } of addresses) {
      const why = nonPublicAddress(address);
      if (why !== undefined) {
        return refuse(`client_id ${url} resolves to ${address}, ${why}; ${ALLOW_PRIVATE_HINT}`);
      }
    }
  }
  return addresses;
}

function request(
  url: string,
  target: URL,
  addresses: LookupAddress[],
  limits: FetchLimits,
  signal: AbortSignal,
): Promise<FetchedDocument> {
  return new Promise((resolve) => {
    const req = pinnedRequest(target.href, addresses, {
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': USER_AGENT },
      signal,
      ca: limits.ca,
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(refuse(connectionFailure(url, err))));
    req.on('response', (res) => {
      readResponse(url, res, limits).then(resolve, (err: Error) => resolve(refuse(err.message)));
    });
    req.end();
  });
}

async function readResponse(
  url: string,
  res: IncomingMessage,
  limits: FetchLimits,
): Promise<FetchedDocument> {
  const { maxBytes } = limits;
  const status = res.statusCode ?? 0;
  const done = (result: FetchedDocument) => {
    res.destroy();
    return result;
  };
  if (status >= 300 && status < 400) {
    const to = res.headers.location === undefined ? '' : ` to ${res.headers.location}`;
    return done(
      refuse(
        `client_id ${url} answered ${status}, a redirect${to}; the document must be served at the client_id URL ` +
          'itself (redirects are not followed)',
      ),
    );
  }
  if (status !== 200)
    return done(refuse(`client_id ${url} answered HTTP ${status}; the document must be served with 200`));
  const type = res.headers['content-type'];
  if (!isJsonType(type)) {
    return done(
      refuse(
        `client_id ${url} was served as ${type ?? 'no Content-Type'}; the document must be application/json`,
      ),
    );
  }
  const encoding = res.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
    return done(
      refuse(`client_id ${url} was sent with Content-Encoding ${encoding}, which was not asked for`),
    );
  }
  const tooLarge = () =>
    refuse(
      `client_id ${url} is larger than ${kilobytes(maxBytes)}; a client metadata document may be at most that`,
    );
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return done(tooLarge());

  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) return done(tooLarge());
      chunks.push(chunk);
    }
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    return refuse(`client_id ${url}: the connection broke before the whole document arrived`);
  }
  if (!res.complete)
    return refuse(`client_id ${url}: the connection closed before the whole document arrived`);
  const parsed = parseDocument(url, Buffer.concat(chunks));
  if (!parsed.ok) return parsed;
  return {
    ok: true,
    document: parsed.document,
    fetchedAt: limits.clock.now(),
    maxAgeSeconds: maxAgeFrom(res.headers['cache-control']),
  };
}

function parseDocument(url: string, body: Buffer): { ok: true; document: object } | Refusal {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(body);
  } catch {
    return refuse(`client_id ${url} is not valid UTF-8; the document must be UTF-8 JSON`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return refuse(`client_id ${url} did not return valid JSON`);
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    return refuse(`client_id ${url} returned JSON that is not an object; the document must be a JSON object`);
  }
  return { ok: true, document };
}

/** Seconds to keep a document: 0 for no-store, else max-age clamped, else the default. */
export function maxAgeFrom(cacheControl: string | undefined): number {
  if (cacheControl === undefined) return DEFAULT_MAX_AGE_S;
  let maxAge: number | undefined;
  for (const part of cacheControl.split(',')) {
    const [name = '', value = ''] = part.trim().split('=', 2);
    const directive = name.trim().toLowerCase();
    if (directive === 'no-store') return 0;
    if (directive === 'no-cache') maxAge = 0;
    if (directive === 'max-age' && maxAge === undefined) {
      const digits = value.trim().replace(/^"(.*)"$/, '$1');
      if (/^\d+$/.test(digits)) maxAge = Number(digits);
    }
  }
  if (maxAge === undefined) return DEFAULT_MAX_AGE_S;
  return Math.min(MAX_MAX_AGE_S, Math.max(MIN_MAX_AGE_S, maxAge));
}

function isJsonType(type: string | undefined): boolean {
  if (type === undefined) return false;
  const essence = (type.split(';')[0] ?? '').trim().toLowerCase();
  return essence === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(essence);
}

function connectionFailure(url: string, err: NodeJS.ErrnoException): string {
  const code = err.code ?? '';
  if (err.name === 'AbortError') return `client_id ${url}: the fetch was cut off by the time limit`;
  if (code === 'ECONNREFUSED') return `client_id ${url}: the host refused the connection`;
  if (code === 'ECONNRESET' || code === 'EPIPE') return `client_id ${url}: the host closed the connection`;
  if (code === 'ETIMEDOUT' || code === 'ENETUNREACH' || code === 'EHOSTUNREACH') {
    return `client_id ${url}: the host could not be reached`;
  }
  if (code === 'HPE_HEADER_OVERFLOW') return `client_id ${url} answered with headers that are too large`;
  if (code.startsWith('HPE_')) return `client_id ${url} answered with a malformed HTTP response`;
  if (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || /CERT|SELF_SIGNED|UNABLE_TO/.test(code)) {
    return `client_id ${url}: its TLS certificate was not accepted (${err.message})`;
  }
  return `client_id ${url} could not be fetched: ${err.message}`;
}

/** Rejects with an AbortError once `signal` aborts; the lookup itself runs on and its answer is dropped. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);
const kilobytes = (bytes: number) => (bytes % 1024 === 0 ? `${bytes / 1024} KB` : `${bytes} bytes`);
