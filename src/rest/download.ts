// Download replies for captured content: always an attachment, never sniffed or rendered by a browser.
import { encodeExtended } from 'content-disposition';
import type { FastifyReply } from 'fastify';

/** Always a quoted ASCII filename, plus RFC 5987 `filename*` when the real name is not plain ASCII. */
function attachmentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return ascii === fileName
    ? `attachment; filename="${ascii}"`
    : `attachment; filename="${ascii}"; filename*=${encodeExtended(fileName)}`;
}

export function sendDownload(reply: FastifyReply, body: Uint8Array, contentType: string, fileName: string) {
  return reply
    .header('Content-Type', contentType)
    .header('Content-Disposition', attachmentDisposition(fileName))
    .header('X-Content-Type-Options', 'nosniff')
    .header('Content-Security-Policy', 'sandbox')
    .send(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
}
