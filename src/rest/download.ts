// Download replies for captured content: always an attachment, never sniffed or rendered by a browser.
import { create as contentDisposition } from 'content-disposition';
import type { FastifyReply } from 'fastify';

export function sendDownload(reply: FastifyReply, body: Uint8Array, contentType: string, fileName: string) {
  return reply
    .header('Content-Type', contentType)
    .header('Content-Disposition', contentDisposition(fileName, { type: 'attachment' }))
    .header('X-Content-Type-Options', 'nosniff')
    .header('Content-Security-Policy', 'sandbox')
    .send(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
}
