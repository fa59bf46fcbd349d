// Parsed views of a captured request, derived from the stored bytes when read: query params, form fields,
// JSON, and the body as text (or base64 when it is not UTF-8).
import busboy from 'busboy';
import type { NameValue } from '../store/schema.ts';

/** The JSON detail carries at most this much body text; /raw always has every byte. */
export const MAX_BODY_TEXT_BYTES = 1024 * 1024;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function headerValue(headers: Array<[string, string]>, name: string): string | undefined {
  const lower = name.toLowerCase();
  return headers.find(([n]) => n.toLowerCase() === lower)?.[1];
}

function mediaType(headers: Array<[string, string]>): string {
  return (headerValue(headers, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** Query parameters in order, duplicates kept, `+` and percent-escapes decoded as browsers do. */
export function queryParams(query: string | null): NameValue[] {
  if (query === null || query === '') return [];
  return [...new URLSearchParams(query)].map(([name, value]) => ({ name, value }));
}

function asBuffer(body: Uint8Array): Buffer {
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** Text fields of an urlencoded or multipart body; files and unparseable bodies give no fields. */
export async function formFields(headers: Array<[string, string]>, body: Uint8Array): Promise<NameValue[]> {
  const type = mediaType(headers);
  if (type === 'application/x-www-form-urlencoded') {
    return [...new URLSearchParams(asBuffer(body).toString('utf8'))].map(([name, value]) => ({
      name,
      value,
    }));
  }
  if (type !== 'multipart/form-data') return [];
  return new Promise((resolve) => {
    const fields: NameValue[] = [];
    try {
      const parser = busboy({
        headers: { 'content-type': headerValue(headers, 'content-type') ?? '' },
        limits: { fields: 1000, fieldSize: MAX_BODY_TEXT_BYTES },
      });
      parser.on('field', (name, value) => fields.push({ name, value }));
      parser.on('file', (_name, stream) => stream.resume());
      parser.on('close', () => resolve(fields));
      parser.on('error', () => resolve(fields));
      parser.end(asBuffer(body));
    } catch {
      resolve(fields); // a malformed Content-Type: no parsed view
    }
  });
}

/** The body parsed as JSON when it is JSON (by media type or by shape); undefined otherwise. */
export function jsonValue(headers: Array<[string, string]>, body: Uint8Array): unknown {
  if (body.byteLength === 0 || body.byteLength > 5 * 1024 * 1024) return undefined;
  const type = mediaType(headers);
  const text = asBuffer(body).toString('utf8').trim();
  const looksJson = type === 'application/json' || type.endsWith('+json') || /^[[{]/.test(text);
  if (!looksJson) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** What templates see as `body.*`: the JSON body, else the form fields (first value of each name). */
export async function bodyValue(headers: Array<[string, string]>, body: Uint8Array): Promise<unknown> {
  const json = jsonValue(headers, body);
  if (json !== undefined) return json;
  const fields = await formFields(headers, body);
  if (fields.length === 0) return undefined;
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const { name, value } of fields) if (!Object.hasOwn(out, name)) out[name] = value;
  return out;
}

export function isUtf8(bytes: Uint8Array): boolean {
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The body for the JSON detail: UTF-8 text when valid, else base64; cut at MAX_BODY_TEXT_BYTES. */
export function bodyText(body: Uint8Array): {
  body: string | null;
  encoding: 'utf8' | 'base64';
  truncated: boolean;
} {
  if (body.byteLength === 0) return { body: null, encoding: 'utf8', truncated: false };
  const truncated = body.byteLength > MAX_BODY_TEXT_BYTES;
  const cut = truncated ? body.subarray(0, MAX_BODY_TEXT_BYTES) : body;
  if (isUtf8(body)) {
    // A cut may split a character: drop the partial tail rather than emit a replacement character.
    const text = asBuffer(cut).toString('utf8');
    return { body: truncated ? text.replace(/\uFFFD+$/, '') : text, encoding: 'utf8', truncated };
  }
  return { body: asBuffer(cut).toString('base64'), encoding: 'base64', truncated };
}
