// Parsed views of a captured request, derived from the stored bytes when read: query params, form fields,
// multipart file parts, JSON, and the body as text (or base64 when it is not UTF-8).
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

/** A file part of a multipart body, in order of appearance among file parts. */
export interface FilePart {
  index: number;
  /** The part's form field name; null when its Content-Disposition has none. */
  field: string | null;
  /** The file name as sent (without any directory part); null when the part names none. */
  fileName: string | null;
  contentType: string;
  sizeBytes: number;
}

export interface MultipartView {
  fields: NameValue[];
  /** Only parts that ended inside the body: a part cut off by the end of the bytes is not a file. */
  files: FilePart[];
  /** The bytes of file `wantIndex`, when asked for and complete. */
  content?: Buffer;
}

const MAX_FILE_PARTS = 1000;

/**
 * Text fields and file parts of a multipart/form-data body, as busboy splits it (a part is a file when it
 * has a file name or is application/octet-stream). With `wantIndex`, that file's bytes are kept too.
 */
export function multipartParts(
  headers: Array<[string, string]>,
  body: Uint8Array,
  wantIndex?: number,
): Promise<MultipartView> {
  const fields: NameValue[] = [];
  const files: FilePart[] = [];
  if (mediaType(headers) !== 'multipart/form-data') return Promise.resolve({ fields, files });
  return new Promise((resolve) => {
    let content: Buffer | undefined;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      files.sort((a, b) => a.index - b.index);
      resolve(content === undefined ? { fields, files } : { fields, files, content });
    };
    try {
      const parser = busboy({
        headers: { 'content-type': headerValue(headers, 'content-type') ?? '' },
        // Browsers send UTF-8 names; busboy's latin1 default would garble them.
        defParamCharset: 'utf8',
        limits: { fields: 1000, fieldSize: MAX_BODY_TEXT_BYTES, files: MAX_FILE_PARTS },
      });
      parser.on('field', (name, value) => fields.push({ name, value }));
      let seen = 0;
      parser.on('file', (name: string | undefined, stream, info) => {
        const index = seen++;
        const keep = index === wantIndex;
        const chunks: Buffer[] = [];
        let size = 0;
        stream.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (keep) chunks.push(chunk);
        });
        // 'end' comes only for a part that finished; one cut off by the end of the bytes errors instead.
        stream.on('end', () => {
          files.push({
            index,
            field: name ?? null,
            fileName: info.filename ?? null,
            contentType: info.mimeType,
            sizeBytes: size,
          });
          if (keep) content = Buffer.concat(chunks, size);
        });
        stream.on('error', () => {});
      });
      parser.on('close', finish);
      parser.on('error', finish);
      parser.end(asBuffer(body));
    } catch {
      finish(); // a malformed Content-Type: no parsed view
    }
  });
}

/** Text fields of an urlencoded or multipart body, and a multipart body's file parts. */
export async function formView(headers: Array<[string, string]>, body: Uint8Array): Promise<MultipartView> {
  if (mediaType(headers) === 'application/x-www-form-urlencoded') {
    const fields = [...new URLSearchParams(asBuffer(body).toString('utf8'))].map(([name, value]) => ({
      name,
      value,
    }));
    return { fields, files: [] };
  }
  return multipartParts(headers, body);
}

/** Text fields of an urlencoded or multipart body; files and unparseable bodies give no fields. */
export async function formFields(headers: Array<[string, string]>, body: Uint8Array): Promise<NameValue[]> {
  return (await formView(headers, body)).fields;
}

/**
 * Parsed JSON views stop at this nesting depth. JSON.parse takes any depth, but JSON.stringify, schema
 * validators and every other recursive walk overflow the stack somewhere past a few thousand levels; no
 * real payload nests 100 deep (Ruby's JSON uses the same default).
 */
export const MAX_JSON_DEPTH = 100;

/** True when the JSON text nests brackets deeper than `limit` (a cheap scan, stopping at the first). */
export function jsonDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** The body as JSON: `none` when it is not JSON (or malformed), `too_deep` when it nests past MAX_JSON_DEPTH. */
export type JsonView = { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'too_deep' };

export function jsonView(headers: Array<[string, string]>, body: Uint8Array): JsonView {
  if (body.byteLength === 0 || body.byteLength > 5 * 1024 * 1024) return { kind: 'none' };
  const type = mediaType(headers);
  const text = asBuffer(body).toString('utf8').trim();
  const looksJson = type === 'application/json' || type.endsWith('+json') || /^[[{]/.test(text);
  if (!looksJson) return { kind: 'none' };
  // Before parsing: V8 parses any depth, but 5 MB of brackets costs it a second and 300 MB.
  if (jsonDeeperThan(text, MAX_JSON_DEPTH)) return { kind: 'too_deep' };
  try {
    return { kind: 'json', value: JSON.parse(text) as unknown };
  } catch {
    return { kind: 'none' };
  }
}

/** What the detail says when `json` is null because of the depth bound. */
export const JSON_TOO_DEEP_NOTE =
  `the body nests deeper than ${MAX_JSON_DEPTH} levels, so it is not parsed (json is null); ` +
  'the body is kept as sent';

/**
 * What templates see as `body.*`: the JSON body, else the form fields (first value of each name). JSON
 * nested too deep has no parsed view: every `body.*` is then missing.
 */
export async function bodyValue(headers: Array<[string, string]>, body: Uint8Array): Promise<unknown> {
  const view = jsonView(headers, body);
  if (view.kind === 'too_deep') return undefined;
  if (view.kind === 'json') return view.value;
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
