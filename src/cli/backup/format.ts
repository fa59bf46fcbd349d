// The export folder's layout and files: manifest, the mail index beside the .eml files, and HAR 1.2 entries
// (one per line, so both sides stream) whose request bodies are kept byte for byte in files of their own.
import { STATUS_CODES } from 'node:http';
import { z } from 'zod';
import type { ExportedRequest, RestoredRequest } from '../../core/backup.ts';

export const FORMAT = 'sandtrap-export';
export const FORMAT_VERSION = 1;
export const MANIFEST_FILE = 'manifest.json';
export const MAIL_INDEX_FILE = 'messages.jsonl';
export const HAR_FILE = 'requests.har';

/** A refusal of the command's input or output (a missing folder, a corrupt archive): one line, exit 2. */
export class BackupError extends Error {
  override name = 'BackupError';
}

const manifestSandbox = z.object({
  id: z.string(),
  name: z.string(),
  /** The sandbox's folder, relative to the export's root. */
  path: z.string().regex(/^sandboxes\/[0-9a-f-]{36}$/),
  messages: z.number().int().min(0),
  requests: z.number().int().min(0),
  tags: z.record(z.string(), z.string()),
  mocks: z.array(z.unknown()),
  isEphemeral: z.boolean(),
  createdAt: z.string(),
});

export const manifestSchema = z.object({
  format: z.literal(FORMAT),
  formatVersion: z.literal(FORMAT_VERSION),
  sandtrapVersion: z.string(),
  exportedAt: z.string(),
  workspace: z.object({ id: z.string(), name: z.string(), subdomain: z.string() }),
  sandboxes: z.array(manifestSandbox),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestSandbox = z.infer<typeof manifestSandbox>;

/** One line of messages.jsonl: what the .eml file cannot say (envelope, who it was captured for, when). */
export const mailIndexLine = z.object({
  id: z.string(),
  file: z.string().regex(/^mail\/[\w.-]+\.eml$/),
  sizeBytes: z.number().int().min(0),
  receivedAt: z.iso.datetime(),
  envelopeFrom: z.string().nullable(),
  capturedFor: z.array(z.string()),
  subject: z.string().nullable(),
  isRead: z.boolean(),
});

export type MailIndexLine = z.infer<typeof mailIndexLine>;

/** `000042-<id>`: files sort in export order (oldest first). */
export function itemFileStem(index: number, id: string): string {
  return `${String(index + 1).padStart(6, '0')}-${id}`;
}

function headerValue(headers: Array<[string, string]>, name: string): string | undefined {
  return headers.find(([n]) => n.toLowerCase() === name)?.[1];
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

const nameValues = (pairs: Array<[string, string]>) => pairs.map(([name, value]) => ({ name, value }));

/** The request's URL as a HAR reader expects it: absolute, from the Host header and the target as sent. */
function absoluteUrl(r: ExportedRequest): string {
  if (/^https?:\/\//i.test(r.target)) return r.target;
  return `http://${headerValue(r.headers, 'host') ?? 'localhost'}${r.target}`;
}

/**
 * A HAR 1.2 entry for a captured request. `postData.text` holds the body only when it is UTF-8 (HAR has no
 * encoding for request bodies); `_sandtrapBodyFile` names the file with its exact bytes. The reply's content
 * is base64 when it is not UTF-8, as HAR allows. `_sandtrap` keeps what HAR has no field for.
 */
export function harEntry(r: ExportedRequest, bodyFile: string | null): Record<string, unknown> {
  const contentType = headerValue(r.headers, 'content-type');
  const response = r.response;
  const responseBody = Buffer.from(response?.body ?? new Uint8Array(0));
  const responseText = isUtf8(responseBody);
  return {
    startedDateTime: r.receivedAt.toISOString(),
    time: 0,
    request: {
      method: r.method,
      url: absoluteUrl(r),
      httpVersion: `HTTP/${r.httpVersion}`,
      cookies: [],
      headers: nameValues(r.headers),
      queryString: [...new URLSearchParams(r.query ?? '')].map(([name, value]) => ({ name, value })),
      ...(r.body.byteLength === 0
        ? {}
        : {
            postData: {
              mimeType: contentType ?? 'application/octet-stream',
              text: isUtf8(r.body) ? Buffer.from(r.body).toString('utf8') : '',
              ...(isUtf8(r.body) ? {} : { comment: `binary body: its bytes are in ${bodyFile}` }),
            },
          }),
      headersSize: -1,
      bodySize: r.body.byteLength,
      ...(bodyFile === null ? {} : { _sandtrapBodyFile: bodyFile }),
    },
    response: {
      status: r.mockStatusCode,
      statusText: STATUS_CODES[r.mockStatusCode] ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: nameValues(response?.headers ?? []),
      content: {
        size: response?.sizeBytes ?? 0,
        mimeType: (response && headerValue(response.headers, 'content-type')) ?? 'x-unknown',
        ...(responseBody.byteLength === 0
          ? {}
          : responseText
            ? { text: responseBody.toString('utf8') }
            : { text: responseBody.toString('base64'), encoding: 'base64' }),
      },
      redirectURL: (response && headerValue(response.headers, 'location')) ?? '',
      headersSize: -1,
      bodySize: response?.sizeBytes ?? 0,
      ...(response === null ? { _sandtrapNoRecordedReply: true } : {}),
    },
    cache: {},
    timings: { send: 0, wait: 0, receive: 0 },
    _sandtrap: {
      id: r.id,
      target: r.target,
      httpVersion: r.httpVersion,
      path: r.path,
      query: r.query,
      sourceIp: r.sourceIp,
      mockName: r.mockName,
      isRead: r.isRead,
      redactedCookies: r.redactedCookies,
      responseNote: response?.note ?? null,
    },
  };
}

const nameValue = z.object({ name: z.string(), value: z.string() });

/** The part of a HAR entry import reads (as `harEntry` writes it). */
export const harEntrySchema = z.object({
  startedDateTime: z.iso.datetime({ offset: true }),
  request: z.object({
    method: z.string().min(1),
    headers: z.array(nameValue),
    postData: z.object({ text: z.string().optional() }).optional(),
    bodySize: z.number().int().min(0),
    _sandtrapBodyFile: z
      .string()
      .regex(/^bodies\/[\w.-]+\.bin$/)
      .optional(),
  }),
  response: z.object({
    status: z.number().int().min(100).max(599),
    headers: z.array(nameValue),
    content: z.object({ text: z.string().optional(), encoding: z.string().optional() }),
    bodySize: z.number().int().min(0),
    _sandtrapNoRecordedReply: z.boolean().optional(),
  }),
  _sandtrap: z.object({
    target: z.string().min(1),
    httpVersion: z.string().min(1),
    path: z.string(),
    query: z.string().nullable(),
    sourceIp: z.string().nullable(),
    mockName: z.string().nullable(),
    redactedCookies: z.array(z.string()),
    responseNote: z.string().nullable(),
  }),
});

export type HarEntry = z.infer<typeof harEntrySchema>;

/** The request to restore from an entry and its body's bytes (read from `_sandtrapBodyFile`). */
export function restoredRequest(entry: HarEntry, body: Uint8Array): RestoredRequest {
  const s = entry._sandtrap;
  const content = entry.response.content;
  const pairs = (list: Array<{ name: string; value: string }>): Array<[string, string]> =>
    list.map(({ name, value }) => [name, value]);
  return {
    receivedAt: new Date(entry.startedDateTime),
    method: entry.request.method,
    target: s.target,
    httpVersion: s.httpVersion,
    path: s.path,
    query: s.query,
    headers: pairs(entry.request.headers),
    body,
    sourceIp: s.sourceIp,
    mockStatusCode: entry.response.status,
    mockName: s.mockName,
    redactedCookies: s.redactedCookies,
    response:
      entry.response._sandtrapNoRecordedReply === true
        ? null
        : {
            headers: pairs(entry.response.headers),
            body: Buffer.from(content.text ?? '', content.encoding === 'base64' ? 'base64' : 'utf8'),
            sizeBytes: entry.response.bodySize,
            note: s.responseNote,
          },
  };
}

/** HAR's opening, up to the entries array; each entry follows on a line of its own. */
export function harOpening(version: string): string {
  return `{"log":{"version":"1.2","creator":{"name":"sandtrap","version":${JSON.stringify(version)}},"entries":[\n`;
}

export const HAR_CLOSING = ']}}\n';
