// Lingering close after a refusal: a client that sends its whole body before it reads the answer (Python's
// http.client, many webhook senders) would see a connection reset instead of our 413 or 429 if we closed
// while it was still sending. Keep reading and discarding, for a bounded time and size, as nginx does.
import type { IncomingMessage } from 'node:http';

/** At most this long in all, this long without a byte, and this much discarded; then the socket is closed. */
export const LINGER_TOTAL_MS = 30_000;
export const LINGER_IDLE_MS = 5_000;
export const LINGER_MAX_BYTES = 64 * 1024 * 1024;

export function discardBody(req: IncomingMessage): void {
  if (req.complete) return;
  let discarded = 0;
  const close = () => {
    clearTimeout(total);
    clearTimeout(idle);
    req.socket.destroy();
  };
  const total = setTimeout(close, LINGER_TOTAL_MS);
  const idle = setTimeout(close, LINGER_IDLE_MS);
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_MAX_BYTES) return close();
    idle.refresh();
  });
  const done = () => {
    clearTimeout(total);
    clearTimeout(idle);
  };
  req.once('end', done);
  req.once('close', done);
  req.resume();
}
