// One delivery attempt: a signed POST to the addresses vetted for it (the DNS answer is pinned, so a second
// resolution cannot aim it elsewhere), no redirects followed, cut off at the time limit; the answer is kept
// only as its status and first kilobyte.
import http from 'node:http';
import https from 'node:https';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';

export const EXCERPT_BYTES = 1024;

export interface Attempt {
  statusCode: number | null;
  /** The first EXCERPT_BYTES of the answer's body, as text. */
  excerpt: string | null;
  error: string | null;
  durationMs: number;
}

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

function failure(err: NodeJS.ErrnoException, timeoutMs: number): string {
  if (err.name === 'AbortError' || err.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  const code = err.code ?? '';
  if (code === 'ECONNREFUSED') return 'the target refused the connection';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'the target closed the connection';
  if (code.startsWith('HPE_')) return 'the target answered with a malformed HTTP response';
  return err.message;
}

export function postPinned(
  target: string,
  addresses: LookupAddress[],
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<Attempt> {
  const url = new URL(target);
  const started = performance.now();
  const dialled = new Set<string>();
  const signal = AbortSignal.timeout(timeoutMs);
  const done = (a: Omit<Attempt, 'durationMs'>): Attempt => ({
    ...a,
    durationMs: Math.round(performance.now() - started),
  });
  return new Promise((resolve) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request({
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port === '' ? undefined : Number(url.port),
      path: url.pathname + url.search,
      method: 'POST',
      headers: {
        ...headers,
        host: url.host,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'sandtrap-webhooks',
      },
      lookup: pinnedLookup(addresses, dialled),
      // A private agent: no pooled socket dialled for another target, no proxy from the environment.
      agent: false,
      signal,
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve(done({ statusCode: null, excerpt: null, error: failure(err, timeoutMs) })),
    );
    req.on('socket', (socket) => {
      socket.once('connect', () => {
        // The address connected to must be one of those vetted (IP literals skip the lookup: they are the vetted one).
        const remote = socket.remoteAddress;
        const vetted = addresses.some((a) => a.address === remote) || dialled.has(remote ?? '');
        if (!vetted) req.destroy(new Error(`connected to ${remote}, which was not the vetted address`));
      });
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = (error: string | null) => {
        res.destroy();
        const excerpt = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
        resolve(done({ statusCode: res.statusCode ?? null, excerpt, error }));
      };
      res.on('data', (chunk: Buffer) => {
        if (size < EXCERPT_BYTES) chunks.push(chunk);
        size += chunk.length;
        if (size >= EXCERPT_BYTES) finish(null);
      });
      res.on('end', () => finish(null));
      res.on('error', (err: NodeJS.ErrnoException) => finish(failure(err, timeoutMs)));
    });
    req.end(body);
  });
}
