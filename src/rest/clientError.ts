// Requests the HTTP parser refuses before any route sees them (bad bytes in the URL, oversized headers, a
// timeout) are answered in the documented problem+json shape with an X-Request-Id, never Node's bare text.
import { randomUUID } from 'node:crypto';
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { problem, type ProblemSlug } from '../core/problem.ts';

interface Refusal {
  status: number;
  slug: ProblemSlug;
  detail: string;
}

function refusalFor(code: string | undefined, message: string): Refusal {
  switch (code) {
    case 'HPE_INVALID_URL':
      return {
        status: 400,
        slug: 'validation-error',
        detail:
          'The URL has characters HTTP does not allow raw (such as non-ASCII bytes or spaces); percent-encode them (é is %C3%A9) and send it again.',
      };
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        slug: 'payload-too-large',
        detail: `The request headers are larger than the API accepts (${maxHeaderSize / 1024} KB in all); send fewer or shorter headers.`,
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return {
        status: 408,
        slug: 'validation-error',
        detail: 'The request was not received in time; send it again, whole, without pauses.',
      };
    default:
      return {
        status: 400,
        slug: 'validation-error',
        detail: `The request is not valid HTTP/1.1 (${message.replace(/^Parse Error: /, '')}); check how the client builds it.`,
      };
  }
}

export function clientErrorHandler(log: FastifyBaseLogger) {
  return (err: NodeJS.ErrnoException, socket: Socket): void => {
    // A response already went out on this socket (a refusal sent before the body was read): just close.
    const answered = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage
      ?.headersSent;
    if (err.code === 'ECONNRESET' || !socket.writable || answered === true) {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    const refusal = refusalFor(err.code, err.message);
    const body = JSON.stringify({
      ...problem(refusal.slug, refusal.detail, requestId, '/'),
      status: refusal.status,
    });
    log.info({ requestId, code: err.code, status: refusal.status }, 'request refused by the HTTP parser');
    socket.end(
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? 'Bad Request'}\r\n` +
        'Content-Type: application/problem+json\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'X-Content-Type-Options: nosniff\r\n' +
        'Connection: close\r\n\r\n' +
        body,
    );
  };
}
