// The HTTP stream of a sandbox as the API reads it: list, detail with parsed views, raw, file parts, delete,
// clear.
import type { Kysely } from 'kysely';
import { STATUS_CODES } from 'node:http';
import { decodeBody, type BodyDecoding } from './http/decode.ts';
import {
  bodyText,
  formView,
  isUtf8,
  JSON_TOO_DEEP_NOTE,
  jsonView,
  multipartParts,
  queryParams,
  type FilePart,
} from './http/views.ts';
import type { Clock } from './clock.ts';
import type { EventBus } from './events.ts';
import { changeWithEvent } from './liveEvents/journal.ts';
import { lockSandboxForClear } from './store/repos/liveEvents.ts';
import { AppError, notFound } from './errors.ts';
import { decodeCursor, DEFAULT_PAGE_SIZE, toPage, type Page } from './pagination.ts';
import {
  clearRequests,
  deleteRequest,
  findRequest,
  listRequests,
  setRequestRead,
  type RequestSummaryRow,
} from './store/repos/requests.ts';
import { ownedSandboxId } from './ownedSandbox.ts';
import { compileSearch } from './search/index.ts';
import type { Database, NameValue, RequestRow } from './store/schema.ts';

export interface RequestSummary {
  id: string;
  method: string;
  path: string;
  query: string | null;
  mockStatusCode: number;
  mockName: string | null;
  sourceIp: string | null;
  receivedAt: Date;
  sizeBytes: number;
  /** Handed out by a wait (or marked by PATCH); a wait by default only returns unread requests. */
  isRead: boolean;
  /** The W3C traceparent it arrived with (validated), or null. */
  traceparent: string | null;
}

export interface RequestDetail extends RequestSummary {
  headers: NameValue[];
  queryParams: NameValue[];
  form: NameValue[];
  body: string | null;
  bodyEncoding: 'utf8' | 'base64';
  /** The text was cut at 1 MB, or the decoded view at 5 MB. */
  bodyTruncated: boolean;
  /** The body parsed as JSON, when it is JSON and nests at most MAX_JSON_DEPTH deep (bodyNote says so). */
  json: unknown;
  /** The Content-Encoding header as sent; the views above are read from the decoded body. */
  contentEncoding: string | null;
  bodyDecoding: BodyDecoding;
  /** Sentences for people: what bodyDecoding did, and why json is null when the body nests too deep. */
  bodyNote: string | null;
  /** File parts of a multipart/form-data body; their text fields are in `form`. */
  files: FilePart[];
  /** Dashboard session cookies removed from the Cookie header before it was stored (never kept or shown). */
  redactedCookies: string[];
  /** The reply the capture listener sent; null for requests captured before replies were recorded. */
  response: RecordedResponse | null;
}

/** The reply a captured request got, as it went on the wire (the HTTP server's Date and Connection aside). */
export interface RecordedResponse {
  statusCode: number;
  /** Every header in the order sent, the correlation id and Content-Length included. */
  headers: NameValue[];
  /** The body as UTF-8 text, or base64 when it is not UTF-8; null when none was sent (HEAD, 204, 304, empty). */
  body: string | null;
  bodyEncoding: 'utf8' | 'base64';
  /** The body was cut at 64 KB (at a character boundary); `sizeBytes` is the whole size sent. */
  bodyTruncated: boolean;
  sizeBytes: number;
  /** Why the reply may differ from what the rule's author meant (a template read a body it could not parse). */
  note: string | null;
}

/** A parsed request list query. */
export interface RequestListQuery {
  q?: string | undefined;
  isRead?: boolean | undefined;
  /** The search language of src/core/search (additive beside `q`). */
  search?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export function toSummary(r: RequestSummaryRow): RequestSummary {
  return {
    id: r.id,
    method: r.method,
    path: r.path,
    query: r.query,
    mockStatusCode: r.mock_status_code,
    mockName: r.mock_name,
    sourceIp: r.source_ip,
    receivedAt: r.received_at,
    sizeBytes: Number(r.size_bytes),
    isRead: r.is_read,
    traceparent: r.traceparent,
  };
}

function recordedResponse(r: RequestRow): RecordedResponse | null {
  if (r.response_headers === null) return null;
  const stored = r.response_body ?? new Uint8Array(0);
  const size = r.response_size_bytes ?? stored.byteLength;
  const text = isUtf8(stored);
  const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  return {
    statusCode: r.mock_status_code,
    headers: r.response_headers.map(([name, value]) => ({ name, value })),
    body: stored.byteLength === 0 ? null : bytes.toString(text ? 'utf8' : 'base64'),
    bodyEncoding: text ? 'utf8' : 'base64',
    bodyTruncated: size > stored.byteLength,
    sizeBytes: size,
    note: r.response_note,
  };
}

export async function toRequestDetail(r: RequestRow): Promise<RequestDetail> {
  const decoded = await decodeBody(r.headers, r.body);
  const body = decoded.bytes;
  const text = bodyText(body);
  const json = jsonView(r.headers, body);
  const form = await formView(r.headers, body);
  const notes = [decoded.note, json.kind === 'too_deep' ? JSON_TOO_DEEP_NOTE : null].filter(
    (n) => n !== null,
  );
  return {
    ...toSummary(r),
    headers: r.headers.map(([name, value]) => ({ name, value })),
    queryParams: queryParams(r.query),
    form: form.fields,
    body: text.body,
    bodyEncoding: text.encoding,
    bodyTruncated: text.truncated || decoded.decoding === 'cut',
    json: json.kind === 'json' ? json.value : null,
    contentEncoding: decoded.contentEncoding,
    bodyDecoding: decoded.decoding,
    bodyNote: notes.length === 0 ? null : notes.join('; '),
    files: form.files,
    redactedCookies: r.redacted_cookies ?? [],
    response: recordedResponse(r),
  };
}

/** The request as received: request line, headers in original order and case, then the body bytes. */
export function rawRequest(r: RequestRow): Buffer {
  const head = `${r.method} ${r.target} HTTP/${r.http_version}\r\n${r.headers
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
  return Buffer.concat([
    Buffer.from(head, 'latin1'),
    Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength),
  ]);
}

/**
 * The recorded reply as an HTTP message: status line, headers as sent, then the body bytes kept (the first
 * 64 KB); undefined when the request was captured before replies were recorded.
 */
export function rawResponse(r: RequestRow): Buffer | undefined {
  if (r.response_headers === null) return undefined;
  const reason = STATUS_CODES[r.mock_status_code] ?? '';
  const head = `HTTP/1.1 ${r.mock_status_code} ${reason}`.trimEnd();
  const lines = r.response_headers.map(([name, value]) => `${name}: ${value}\r\n`).join('');
  const body = r.response_body ?? new Uint8Array(0);
  return Buffer.concat([
    Buffer.from(`${head}\r\n${lines}\r\n`, 'latin1'),
    Buffer.from(body.buffer, body.byteOffset, body.byteLength),
  ]);
}

/**
 * The one place a request's read flag changes (PATCH and the waits that hand a request out), so whatever must
 * follow a change hooks here. With `onlyIf` the flag changes only from that value: a claim that another wait
 * won answers false.
 */
export function markRequestRead(
  db: Kysely<Database>,
  bus: EventBus,
  sandboxId: string,
  requestId: string,
  isRead: boolean,
  onlyIf?: boolean,
): Promise<boolean> {
  return changeWithEvent(db, bus, async (trx) => {
    const changed = await setRequestRead(trx, sandboxId, requestId, isRead, onlyIf);
    const data = { id: requestId, sandboxId, isRead };
    return { value: changed, change: changed ? { type: 'request.updated', data } : undefined };
  });
}

export function createRequestService(db: Kysely<Database>, clock: Clock, bus: EventBus) {
  const sandboxOf = (workspaceId: string, sandboxId: string) =>
    ownedSandboxId(db, clock, workspaceId, sandboxId);
  async function row(workspaceId: string, sandboxId: string, requestId: string): Promise<RequestRow> {
    const found = await findRequest(db, await sandboxOf(workspaceId, sandboxId), requestId);
    if (found === undefined) throw notFound('The request');
    return found;
  }

  return {
    async list(
      workspaceId: string,
      sandboxId: string,
      query: RequestListQuery,
    ): Promise<Page<RequestSummary>> {
      const id = await sandboxOf(workspaceId, sandboxId);
      const limit = query.limit ?? DEFAULT_PAGE_SIZE;
      const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      const q = query.q === undefined || query.q.trim() === '' ? undefined : query.q.trim();
      const search = compileSearch(query.search, 'requests');
      const rows = await listRequests(db, id, { q, isRead: query.isRead, search }, limit + 1, cursor);
      return toPage(rows, limit, (r) => ({ at: r.received_at, id: r.id }), toSummary);
    },

    async get(workspaceId: string, sandboxId: string, requestId: string): Promise<RequestDetail> {
      return toRequestDetail(await row(workspaceId, sandboxId, requestId));
    },

    async raw(workspaceId: string, sandboxId: string, requestId: string): Promise<Buffer> {
      return rawRequest(await row(workspaceId, sandboxId, requestId));
    },

    /** The reply sent, as an HTTP message (see rawResponse); not found when none was recorded. */
    async rawResponse(workspaceId: string, sandboxId: string, requestId: string): Promise<Buffer> {
      const raw = rawResponse(await row(workspaceId, sandboxId, requestId));
      if (raw === undefined) {
        throw new AppError(
          'not_found',
          'This request was captured before replies were recorded: it has no recorded reply.',
        );
      }
      return raw;
    },

    /** File part `index` of a multipart body, read again from the stored bytes (decoded first if encoded). */
    async file(
      workspaceId: string,
      sandboxId: string,
      requestId: string,
      index: number,
    ): Promise<{ info: FilePart; content: Buffer }> {
      const r = await row(workspaceId, sandboxId, requestId);
      const decoded = await decodeBody(r.headers, r.body);
      const { files, content } = await multipartParts(r.headers, decoded.bytes, index);
      const info = files.find((f) => f.index === index);
      if (info === undefined || content === undefined) throw notFound(`File ${index} of this request`);
      return { info, content };
    },

    async setRead(workspaceId: string, sandboxId: string, requestId: string, isRead: boolean): Promise<void> {
      if (!(await markRequestRead(db, bus, await sandboxOf(workspaceId, sandboxId), requestId, isRead))) {
        throw notFound('The request');
      }
    },

    async delete(workspaceId: string, sandboxId: string, requestId: string): Promise<void> {
      const owned = await sandboxOf(workspaceId, sandboxId);
      const deleted = await changeWithEvent(db, bus, async (trx) => {
        const gone = await deleteRequest(trx, owned, requestId);
        const data = { id: requestId, sandboxId: owned };
        return { value: gone, change: gone ? { type: 'request.deleted', data } : undefined };
      });
      if (!deleted) throw notFound('The request');
    },

    async clear(workspaceId: string, sandboxId: string): Promise<void> {
      const owned = await sandboxOf(workspaceId, sandboxId);
      await changeWithEvent(db, bus, async (trx) => {
        await lockSandboxForClear(trx, owned);
        await clearRequests(trx, owned);
        return { value: undefined, change: { type: 'requests.cleared', data: { sandboxId: owned } } };
      });
    },
  };
}
