// Undoes a captured body's Content-Encoding for the parsed views only, never decoding past a size cap.
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';

/** The decoded view stops here: a compression bomb costs at most this much memory and time. */
export const MAX_DECODED_BYTES = 5 * 1024 * 1024;

/**
 * What happened to the body on its way to the parsed views: `none` (no Content-Encoding, or only
 * `identity`), `decoded`, `cut` (decoded, but the view stops at MAX_DECODED_BYTES), `failed` (an unknown
 * encoding or data that does not decode: the views show the bytes as sent).
 */
export type BodyDecoding = 'none' | 'decoded' | 'cut' | 'failed';

export interface DecodedBody {
  /** The bytes the parsed views read: decoded, or the bytes as sent when there was nothing to decode. */
  bytes: Uint8Array;
  /** Every Content-Encoding header value as sent, joined with ", "; null without one. */
  contentEncoding: string | null;
  decoding: BodyDecoding;
  /** One sentence for people saying what `decoding` means for this body; null when it is `none`. */
  note: string | null;
}

const CAP_TEXT = `${MAX_DECODED_BYTES / (1024 * 1024)} MB`;
// Larger than zlib's 16 KB default: fewer thread-pool round trips for the same output.
const CHUNK = 64 * 1024;

/** All values of the header in order: HTTP allows the list to be split over several lines. */
export function contentEncodingOf(headers: Array<[string, string]>): string | null {
  const values = headers.filter(([n]) => n.toLowerCase() === 'content-encoding').map(([, v]) => v.trim());
  return values.length === 0 ? null : values.join(', ');
}

/** The codings to undo, outermost first (the reverse of the order they were applied in). */
function codingsToUndo(contentEncoding: string): string[] {
  return contentEncoding
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t !== '' && t !== 'identity')
    .reverse();
}

/** True when the first two bytes are a valid zlib header (deflate method, check bits right). */
function hasZlibHeader(bytes: Buffer): boolean {
  if (bytes.length < 2) return false;
  const cmf = bytes[0] as number;
  const flg = bytes[1] as number;
  return (cmf & 0x0f) === 8 && ((cmf << 8) | flg) % 31 === 0;
}

interface StageResult {
  bytes: Buffer;
  /** More output existed past the cap and was never produced. */
  cut: boolean;
  error: Error | null;
}

/** Runs one decoder over `input`, keeping at most `cap` bytes of output and stopping it there. */
function runCapped(decoder: Transform, input: Buffer, cap: number): Promise<StageResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (cut: boolean, error: Error | null) => {
      if (settled) return;
      settled = true;
      resolve({ bytes: Buffer.concat(chunks, size), cut, error });
    };
    decoder.on('data', (chunk: Buffer) => {
      if (settled) return;
      if (size + chunk.length > cap) {
        chunks.push(chunk.subarray(0, cap - size));
        size = cap;
        settle(true, null);
        // Destroying stops zlib from producing the rest: nothing past the cap is ever inflated.
        decoder.destroy();
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    decoder.on('end', () => settle(false, null));
    decoder.on('error', (err: Error) => settle(false, err));
    decoder.end(input);
  });
}

function decoderFor(coding: string, zlibWrapped: boolean): Transform | undefined {
  const options = { chunkSize: CHUNK };
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip(options);
    case 'deflate':
      return zlibWrapped ? createInflate(options) : createInflateRaw(options);
    case 'br':
      return createBrotliDecompress(options);
    default:
      return undefined;
  }
}

/** One coding undone. `deflate` is meant to be zlib-wrapped, but real clients also send raw deflate. */
async function undo(coding: string, input: Buffer, cap: number): Promise<StageResult | undefined> {
  const wrapped = coding === 'deflate' && hasZlibHeader(input);
  const decoder = decoderFor(coding, wrapped);
  if (decoder === undefined) return undefined;
  const result = await runCapped(decoder, input, cap);
  if (result.error !== null && wrapped) {
    // Raw deflate data can start with two bytes that happen to pass the zlib header check.
    const raw = await runCapped(createInflateRaw({ chunkSize: CHUNK }), input, cap);
    if (raw.error === null) return raw;
  }
  return result;
}

function reason(err: Error): string {
  const text = err.message.replace(/\s+/g, ' ').trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text || 'the data is not valid';
}

function asBuffer(body: Uint8Array): Buffer {
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/**
 * The body with its Content-Encoding undone, for the parsed views. Stacked codings are undone in reverse
 * order; an unknown coding or bad data gives the bytes as sent with a note saying why.
 */
export async function decodeBody(
  headers: Array<[string, string]>,
  body: Uint8Array,
  cap = MAX_DECODED_BYTES,
): Promise<DecodedBody> {
  const contentEncoding = contentEncodingOf(headers);
  const asSent = (decoding: BodyDecoding, note: string | null): DecodedBody => ({
    bytes: body,
    contentEncoding,
    decoding,
    note,
  });
  if (contentEncoding === null || body.byteLength === 0) return asSent('none', null);
  const codings = codingsToUndo(contentEncoding);
  if (codings.length === 0) return asSent('none', null);

  let bytes = asBuffer(body);
  let cut = false;
  for (const coding of codings) {
    const result = await undo(coding, bytes, cap);
    if (result === undefined) {
      return asSent('failed', `could not decode ${coding}: unknown content encoding; body shown as sent`);
    }
    if (result.error !== null) {
      // A stage whose input was cut by an earlier stage ends early by our doing, not the sender's.
      if (!cut) {
        return asSent('failed', `could not decode ${coding}: ${reason(result.error)}; body shown as sent`);
      }
    }
    cut ||= result.cut;
    bytes = result.bytes;
  }
  const from = codings.join(', then ');
  if (cut) {
    return {
      bytes,
      contentEncoding,
      decoding: 'cut',
      note: `decoded from ${from}; the decoded view is cut at ${CAP_TEXT} (the raw request has every byte as sent)`,
    };
  }
  return {
    bytes,
    contentEncoding,
    decoding: 'decoded',
    note: `decoded from ${from} (${body.byteLength} bytes as sent, ${bytes.byteLength} decoded)`,
  };
}
