// One delivery attempt: a signed POST to the addresses vetted for it (the DNS answer is pinned, so a second
// resolution cannot aim it elsewhere), no redirects followed, cut off at the time limit; the answer is kept
// only as its status and first kilobyte.
import type { LookupAddress } from 'node:dns';
import { failure, pinnedRequest } from '../pinnedRequest.ts';

export const EXCERPT_BYTES = 1024;

export interface Attempt {
  statusCode: number | null;
  /** The first EXCERPT_BYTES of the answer's body, as text. */
  excerpt: string | null;
  error: string | null;
  durationMs: number;
}

export function postPinned(
  target: string,
  addresses: LookupAddress[],
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  /** A mock rule's callback picks its method; its headers (lower-case names) replace the defaults below. */
  options: { method?: string; userAgent?: string } = {},
): Promise<Attempt> {
  const started = performance.now();
  const done = (a: Omit<Attempt, 'durationMs'>): Attempt => ({
    ...a,
    durationMs: Math.round(performance.now() - started),
  });
  return new Promise((resolve) => {
    const req = pinnedRequest(target, addresses, {
      method: options.method ?? 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': options.userAgent ?? 'sandtrap-webhooks',
        ...headers,
        'content-length': String(Buffer.byteLength(body)),
      },
      timeoutMs,
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve(done({ statusCode: null, excerpt: null, error: failure(err, timeoutMs) })),
    );
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
