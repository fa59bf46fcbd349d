// One replay of a captured request: its method, headers and body bytes sent to the addresses vetted for the
// target (pinned as webhook deliveries are), no redirects followed, cut off at the time limit; the answer is
// kept whole up to REPLY_KEEP_BYTES.
import type { LookupAddress } from 'node:dns';
import { failure, pinnedRequest } from '../pinnedRequest.ts';

/** The answer's body is kept up to this size (as a recorded mock reply is). */
export const REPLY_KEEP_BYTES = 64 * 1024;

export interface Outgoing {
  method: string;
  /** In the order captured; the transport's own (Host, Content-Length…) are set here. */
  headers: Array<[string, string]>;
  body: Uint8Array;
}

export interface Answer {
  statusCode: number | null;
  /** As received, in order. */
  headers: Array<[string, string]>;
  body: Buffer;
  /** The whole body's size; more than `body` holds when it was cut. */
  sizeBytes: number;
  error: string | null;
  durationMs: number;
}

export function sendPinned(
  target: string,
  addresses: LookupAddress[],
  out: Outgoing,
  timeoutMs: number,
): Promise<Answer> {
  const started = performance.now();
  const done = (a: Omit<Answer, 'durationMs'>): Answer => ({
    ...a,
    durationMs: Math.round(performance.now() - started),
  });
  return new Promise((resolve) => {
    const req = pinnedRequest(target, addresses, { method: out.method, timeoutMs });
    for (const [name, value] of out.headers) {
      try {
        req.appendHeader(name, value);
      } catch {
        // A header node will not send (an invalid character kept from the capture) is left out.
      }
    }
    if (out.body.byteLength > 0 || !['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(out.method)) {
      req.setHeader('content-length', String(out.body.byteLength));
    }
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve(
        done({
          statusCode: null,
          headers: [],
          body: Buffer.alloc(0),
          sizeBytes: 0,
          error: failure(err, timeoutMs),
        }),
      ),
    );
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      let size = 0;
      const headers: Array<[string, string]> = [];
      for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
        headers.push([res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string]);
      }
      const finish = (error: string | null) => {
        res.destroy();
        const body = Buffer.concat(chunks);
        resolve(done({ statusCode: res.statusCode ?? null, headers, body, sizeBytes: size, error }));
      };
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (kept < REPLY_KEEP_BYTES) {
          const part = chunk.subarray(0, REPLY_KEEP_BYTES - kept);
          chunks.push(part);
          kept += part.length;
        }
      });
      res.on('end', () => finish(null));
      res.on('error', (err: NodeJS.ErrnoException) => finish(failure(err, timeoutMs)));
    });
    req.end(Buffer.from(out.body.buffer, out.body.byteOffset, out.body.byteLength));
  });
}
