// Backup and move: a sandbox's streams read page by page with every stored byte (export), and items put back
// into a sandbox through the ingest paths with their bytes unchanged (import).
import type { Kysely } from 'kysely';
import type { Clock } from './clock.ts';
import { AppError, notFound } from './errors.ts';
import type { EventBus } from './events.ts';
import type { createMailIngest } from './mail/ingest.ts';
import type { Cursor } from './pagination.ts';
import { newItemId } from './random.ts';
import { messagesForExport } from './store/repos/messages.ts';
import { requestsForExport } from './store/repos/requests.ts';
import { findCaptureSandbox, findLiveSandboxById } from './store/repos/sandboxes.ts';
import type { Database } from './store/schema.ts';
import { storeWriteFailure } from './store/unavailable.ts';
import type { RequestWriter } from './store/writers.ts';
import { parseId } from './validation.ts';

/**
 * Rows read per page: a page holds every raw source or body in it (up to 5 MB each for requests), so pages are
 * small; the export writes each item before the next page is read.
 */
const EXPORT_PAGE_SIZE = 16;

export interface ExportedMessage {
  id: string;
  receivedAt: Date;
  envelopeFrom: string | null;
  capturedFor: string[];
  subject: string | null;
  isRead: boolean;
  /** The message exactly as received. */
  raw: Uint8Array;
}

/** The reply a request got, as recorded: every header as sent, the body's first 64 KB and its whole size. */
export interface ExportedResponse {
  headers: Array<[string, string]>;
  body: Uint8Array;
  sizeBytes: number;
  note: string | null;
}

export interface ExportedRequest {
  id: string;
  receivedAt: Date;
  method: string;
  /** The request-target exactly as received. */
  target: string;
  httpVersion: string;
  path: string;
  query: string | null;
  headers: Array<[string, string]>;
  /** The body exactly as received. */
  body: Uint8Array;
  sourceIp: string | null;
  /** The status the reply had (with or without a recorded reply). */
  mockStatusCode: number;
  mockName: string | null;
  redactedCookies: string[];
  isRead: boolean;
  /** null for requests captured before replies were recorded. */
  response: ExportedResponse | null;
}

/** A message to put back: the raw source is ingested (parsed, stored, announced) as if it had just arrived. */
export type RestoredMessage = Pick<ExportedMessage, 'raw' | 'envelopeFrom' | 'capturedFor' | 'receivedAt'>;

/** A request to put back as it was recorded; its recorded reply is kept, not chosen again by today's rules. */
export type RestoredRequest = Omit<ExportedRequest, 'id' | 'isRead'>;

type MailIngest = ReturnType<typeof createMailIngest>;

/** Pages through a stream oldest first by (received_at, id), one row at a time to the caller. */
async function* pages<R extends { received_at: Date; id: string }, T>(
  read: (after: Cursor | undefined) => Promise<R[]>,
  map: (row: R) => T,
): AsyncGenerator<T> {
  let after: Cursor | undefined;
  for (;;) {
    const rows = await read(after);
    for (const row of rows) yield map(row);
    const last = rows[rows.length - 1];
    if (last === undefined || rows.length < EXPORT_PAGE_SIZE) return;
    after = { at: last.received_at, id: last.id };
  }
}

export function createBackupService(
  db: Kysely<Database>,
  clock: Clock,
  bus: EventBus,
  ingestMail: MailIngest,
  requestWriter: RequestWriter,
) {
  return {
    /** The workspace a live sandbox belongs to (the command line names a sandbox by id alone). */
    async workspaceOf(sandboxId: string): Promise<string> {
      const found = await findLiveSandboxById(db, parseId(sandboxId, 'sandboxId'), clock.now());
      if (found === undefined) throw notFound('The sandbox');
      return found.workspace_id;
    },

    /** Every message of the sandbox, oldest first, with its raw source; read a page at a time. */
    messages(sandboxId: string): AsyncGenerator<ExportedMessage> {
      return pages(
        (after) => messagesForExport(db, sandboxId, EXPORT_PAGE_SIZE, after),
        (r) => ({
          id: r.id,
          receivedAt: r.received_at,
          envelopeFrom: r.envelope_from,
          capturedFor: r.captured_for,
          subject: r.subject,
          isRead: r.is_read,
          raw: r.raw,
        }),
      );
    },

    /** Every request of the sandbox, oldest first, with its body and recorded reply; read a page at a time. */
    requests(sandboxId: string): AsyncGenerator<ExportedRequest> {
      return pages(
        (after) => requestsForExport(db, sandboxId, EXPORT_PAGE_SIZE, after),
        (r) => ({
          id: r.id,
          receivedAt: r.received_at,
          method: r.method,
          target: r.target,
          httpVersion: r.http_version,
          path: r.path,
          query: r.query,
          headers: r.headers,
          body: r.body,
          sourceIp: r.source_ip,
          mockStatusCode: r.mock_status_code,
          mockName: r.mock_name,
          redactedCookies: r.redacted_cookies ?? [],
          isRead: r.is_read,
          response:
            r.response_headers === null
              ? null
              : {
                  headers: r.response_headers,
                  body: r.response_body ?? new Uint8Array(0),
                  sizeBytes: r.response_size_bytes ?? r.response_body?.byteLength ?? 0,
                  note: r.response_note,
                },
        }),
      );
    },

    /**
     * Ingests a message through the one mail ingest path (parsed, stored, announced to waits and streams),
     * keeping its raw bytes and first received time; resolves with the new message id.
     */
    async restoreMessage(sandboxId: string, message: RestoredMessage): Promise<string> {
      const result = await ingestMail({
        raw: message.raw,
        envelopeFrom: message.envelopeFrom,
        deliveries: [{ sandboxId, capturedFor: message.capturedFor }],
        receivedAt: message.receivedAt,
      });
      const stored = result.stored[0];
      if (stored === undefined) throw notFound('The sandbox');
      return stored.messageId;
    },

    /** Stores a request as it was recorded (body bytes, headers, reply) and announces it; resolves with its id. */
    async restoreRequest(sandboxId: string, request: RestoredRequest): Promise<string> {
      const id = newItemId();
      const response = request.response;
      for (let attempt = 0; attempt < 5; attempt++) {
        const sandbox = await findCaptureSandbox(db, sandboxId, clock.now());
        if (sandbox === undefined) throw notFound('The sandbox');
        let stored: boolean;
        try {
          stored = await requestWriter.submit({
            sandboxVersion: sandbox.version,
            row: {
              id,
              sandbox_id: sandbox.id,
              received_at: request.receivedAt,
              method: request.method,
              target: request.target,
              http_version: request.httpVersion,
              path: request.path,
              query: request.query,
              headers: JSON.stringify(request.headers),
              body: request.body,
              size_bytes: request.body.byteLength,
              source_ip: request.sourceIp,
              mock_status_code: request.mockStatusCode,
              mock_name: request.mockName,
              redacted_cookies:
                request.redactedCookies.length === 0 ? null : JSON.stringify(request.redactedCookies),
              response_headers: response === null ? null : JSON.stringify(response.headers),
              response_body: response?.body ?? null,
              response_size_bytes: response?.sizeBytes ?? null,
              response_note: response?.note ?? null,
            },
          });
        } catch (err) {
          throw storeWriteFailure(err, 'the request');
        }
        if (stored) {
          bus.publish({ kind: 'request', sandboxId: sandbox.id, id });
          return id;
        }
      }
      throw new AppError('unavailable', 'The sandbox kept changing while the request was restored; retry.');
    },
  };
}
