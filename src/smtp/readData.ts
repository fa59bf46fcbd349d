// Reads a DATA stream into one buffer. smtp-server caps it at the advertised SIZE and flags the excess,
// so memory stays bounded; an oversized message is drained and dropped.
import type { SMTPServerDataStream } from 'smtp-server';

export async function readData(stream: SMTPServerDataStream): Promise<Buffer | 'too-big'> {
  const chunks: Buffer[] = [];
  let tooBig = false;
  for await (const chunk of stream) {
    if (tooBig || stream.sizeExceeded) {
      tooBig = true;
      chunks.length = 0;
      continue;
    }
    chunks.push(chunk as Buffer);
  }
  return tooBig || stream.sizeExceeded ? 'too-big' : Buffer.concat(chunks);
}
