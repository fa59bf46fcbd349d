// Rebuilds a captured request as a curl command line that sends the same method, URL, headers and body.
import type { components } from '../../../../openapi/schema.d.ts';

type RequestDetail = components['schemas']['RequestDetail'];

/** POSIX shell single-quoting (safe for any text, newlines included); plain words stay bare for readability. */
export function shellQuote(text: string): string {
  if (/^[A-Za-z0-9_./:@%+=,-]+$/.test(text)) return text;
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

// curl computes these itself from the URL and the body it sends; copying them would only risk a mismatch.
const DROPPED = new Set(['host', 'content-length']);

export function requestUrl(captureUrl: string, path: string, query: string | null): string {
  const base = captureUrl.replace(/\/+$/, '');
  return `${base}${path}${query === null || query === '' ? '' : `?${query}`}`;
}

/** Whether the detail's body differs from the bytes sent (cut, decoded from a content coding, or binary). */
export function needsRawBody(detail: RequestDetail): boolean {
  if (detail.sizeBytes === 0) return false;
  return detail.bodyTruncated || detail.bodyDecoding !== 'none' || detail.bodyEncoding === 'base64';
}

/** The body of a raw `message/http` request: everything after the first empty line. */
export function rawBody(raw: Uint8Array): Uint8Array {
  for (let i = 0; i + 3 < raw.length; i++) {
    if (raw[i] === 13 && raw[i + 1] === 10 && raw[i + 2] === 13 && raw[i + 3] === 10)
      return raw.subarray(i + 4);
  }
  for (let i = 0; i + 1 < raw.length; i++) {
    if (raw[i] === 10 && raw[i + 1] === 10) return raw.subarray(i + 2);
  }
  return new Uint8Array(0);
}

function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin);
}

/** Text curl can take inline: valid UTF-8 without NUL (which no shell argument can carry). */
function asInlineText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

export function curlCommand(
  detail: RequestDetail,
  captureUrl: string,
  body: Uint8Array | string | null,
): string {
  // `-X HEAD` still makes curl wait for a body the server never sends (it hangs, then exits 18); --head
  // tells curl the answer has none. Every other method is given as written.
  const method = detail.method.toUpperCase() === 'HEAD' ? ['--head'] : ['-X', shellQuote(detail.method)];
  const parts = ['curl', ...method, shellQuote(requestUrl(captureUrl, detail.path, detail.query))];
  for (const h of detail.headers) {
    if (DROPPED.has(h.name.toLowerCase())) continue;
    // curl drops a header given as "Name:"; "Name;" is its way to send one with an empty value.
    parts.push('-H', shellQuote(h.value === '' ? `${h.name};` : `${h.name}: ${h.value}`));
  }
  const text = body === null ? null : typeof body === 'string' ? body : asInlineText(body);
  if (body !== null && text === null) {
    // Binary bytes travel through base64 so the command stays copy-pasteable.
    const b64 = toBase64(body as Uint8Array);
    return `printf %s ${shellQuote(b64)} | base64 -d | ${parts.join(' ')} --data-binary @-`;
  }
  // --data-raw, not --data-binary: a body starting with @ must be sent as written, never read from a file.
  if (text !== null && text !== '') parts.push('--data-raw', shellQuote(text));
  return parts.join(' ');
}
