// Writes a recorded reply the way its rule asks (issue 40): after a delay (a timer, never a busy wait), or
// with a fault in place of a proper answer: a reset, a close without a reply, a broken chunked body, or the body
// trickled in pieces. The request was committed before any of this, so a fault never loses a capture.
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CaptureReply } from '../core/http/capture.ts';

/** A slow body goes out in at most this many pieces, spread evenly over the fault's duration. */
const SLOW_PIECES = 10;

/** The reply's status line and headers as raw bytes, for a body node's own framing would refuse to send. */
function rawHead(reply: CaptureReply, extra: Array<[string, string]>): string {
  const lines = [`HTTP/1.1 ${reply.status} X`];
  for (const [name, value] of reply.headers) {
    if (name.toLowerCase() !== 'content-length') lines.push(`${name}: ${value}`);
  }
  for (const [name, value] of extra) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

async function trickle(res: ServerResponse, body: Buffer, durationMs: number): Promise<void> {
  const pieces = Math.max(1, Math.min(SLOW_PIECES, body.byteLength));
  const size = Math.ceil(body.byteLength / pieces);
  res.flushHeaders();
  for (let i = 0; i < pieces; i++) {
    await sleep(durationMs / pieces);
    if (res.destroyed) return;
    const piece = body.subarray(i * size, (i + 1) * size);
    if (i === pieces - 1) res.end(piece);
    else res.write(piece);
  }
}

export async function writeReply(res: ServerResponse, reply: CaptureReply): Promise<void> {
  if (reply.delayMs !== undefined && reply.delayMs > 0) {
    await sleep(reply.delayMs);
    if (res.destroyed) return;
  }
  const socket = res.socket;
  switch (reply.fault?.type) {
    case undefined:
      res.writeHead(reply.status, reply.headers.flat());
      res.end(reply.body);
      return;
    case 'reset':
      // An RST rather than a FIN: the client sees ECONNRESET.
      if (socket !== null) socket.resetAndDestroy();
      return;
    case 'empty':
      socket?.destroy();
      return;
    case 'malformed':
      // Headers that promise chunks, then a chunk size that is not hexadecimal: every HTTP parser refuses it.
      socket?.end(`${rawHead(reply, [['Transfer-Encoding', 'chunked']])}zz\r\nnot a chunk\r\n`);
      socket?.destroySoon();
      return;
    case 'slow':
      res.writeHead(reply.status, reply.headers.flat());
      if (reply.body.byteLength === 0) {
        await sleep(reply.fault.durationMs ?? 0);
        if (!res.destroyed) res.end();
        return;
      }
      return trickle(res, reply.body, reply.fault.durationMs ?? 0);
  }
}
