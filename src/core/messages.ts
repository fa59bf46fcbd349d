// The email stream of a sandbox as the API reads it: list with filters, detail, read state, raw and attachments.
import type { Kysely } from 'kysely';
import type { Clock } from './clock.ts';
import { notFound } from './errors.ts';
import type { EventBus } from './events.ts';
import { changeWithEvent } from './liveEvents/journal.ts';
import { runParser } from './mail/parseMessage.ts';
import { lockSandboxForClear } from './store/repos/liveEvents.ts';
import { decodeCursor, DEFAULT_PAGE_SIZE, toPage, type Page } from './pagination.ts';
import {
  clearMessages,
  deleteMessage,
  findMessage,
  findMessageRaw,
  listMessages,
  setMessageRead,
  type MessageDetailRow,
  type MessageFilter,
  type MessageSummaryRow,
} from './store/repos/messages.ts';
import { ownedSandboxId } from './ownedSandbox.ts';
import { listMessagesQuery } from './schemas.ts';
import { compileSearch } from './search/index.ts';
import type { AttachmentInfo, Database, NameValue } from './store/schema.ts';
import { parseId, parseInput } from './validation.ts';

export interface MessageSummary {
  id: string;
  from: string;
  to: string[];
  subject: string | null;
  preview: string | null;
  isRead: boolean;
  attachmentCount: number;
  receivedAt: Date;
  sizeBytes: number;
  capturedFor: string[];
  /** The W3C traceparent it arrived with (validated), or null. */
  traceparent: string | null;
}

export interface MessageDetail extends Omit<MessageSummary, 'preview' | 'attachmentCount'> {
  textBody: string | null;
  htmlBody: string | null;
  headers: NameValue[];
  attachments: AttachmentInfo[];
  /** Why the parsed fields are incomplete or empty; null when the message was read in full. */
  parseError: string | null;
}

/** A parsed message list query; `list` takes it, or the query as sent (parsing a parsed one gives the same). */
export interface MessageListQuery extends Pick<MessageFilter, 'q' | 'capturedFor' | 'since' | 'isRead'> {
  /** The search language of src/core/search (additive beside `q`). */
  search?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export function toSummary(r: MessageSummaryRow): MessageSummary {
  return {
    id: r.id,
    from: r.from_header,
    to: r.to_addrs,
    subject: r.subject,
    preview: r.preview,
    isRead: r.is_read,
    attachmentCount: r.attachment_count,
    receivedAt: r.received_at,
    sizeBytes: Number(r.size_bytes),
    capturedFor: r.captured_for,
    traceparent: r.traceparent,
  };
}

export function toMessageDetail(r: MessageDetailRow): MessageDetail {
  const { preview: _p, attachmentCount: _a, ...summary } = toSummary(r);
  return {
    ...summary,
    textBody: r.text_body,
    htmlBody: r.html_body,
    headers: r.headers,
    attachments: r.attachments,
    parseError: r.parse_error,
  };
}

/**
 * The one place a message's read flag changes (PATCH and the waits that hand a message out), so whatever must
 * follow a change hooks here. With `onlyIf` the flag changes only from that value: a claim that another wait
 * won answers false.
 */
export function markMessageRead(
  db: Kysely<Database>,
  bus: EventBus,
  sandboxId: string,
  messageId: string,
  isRead: boolean,
  onlyIf?: boolean,
): Promise<boolean> {
  return changeWithEvent(db, bus, async (trx) => {
    const changed = await setMessageRead(trx, sandboxId, messageId, isRead, onlyIf);
    const data = { id: messageId, sandboxId, isRead };
    return { value: changed, change: changed ? { type: 'message.updated', data } : undefined };
  });
}

export function createMessageService(db: Kysely<Database>, clock: Clock, bus: EventBus) {
  const sandboxOf = (workspaceId: string, sandboxId: string) =>
    ownedSandboxId(db, clock, workspaceId, parseId(sandboxId, 'sandboxId'));

  return {
    async list(
      workspaceId: string,
      sandboxId: string,
      raw: MessageListQuery | Record<string, unknown>,
    ): Promise<Page<MessageSummary>> {
      const id = await sandboxOf(workspaceId, sandboxId);
      const query: MessageListQuery = parseInput(listMessagesQuery, raw, 'query');
      const limit = query.limit ?? DEFAULT_PAGE_SIZE;
      const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      const q = query.q === undefined || query.q.trim() === '' ? undefined : query.q.trim();
      const search = compileSearch(query.search, 'messages');
      const rows = await listMessages(db, id, { ...query, q, search }, limit + 1, cursor);
      return toPage(rows, limit, (r) => ({ at: r.received_at, id: r.id }), toSummary);
    },

    async get(workspaceId: string, sandboxId: string, messageId: string): Promise<MessageDetail> {
      const row = await findMessage(
        db,
        await sandboxOf(workspaceId, sandboxId),
        parseId(messageId, 'messageId'),
      );
      if (row === undefined) throw notFound('The message');
      return toMessageDetail(row);
    },

    async setRead(workspaceId: string, sandboxId: string, messageId: string, isRead: boolean): Promise<void> {
      const id = parseId(messageId, 'messageId');
      if (!(await markMessageRead(db, bus, await sandboxOf(workspaceId, sandboxId), id, isRead))) {
        throw notFound('The message');
      }
    },

    async delete(workspaceId: string, sandboxId: string, messageId: string): Promise<void> {
      const id = parseId(messageId, 'messageId');
      const owned = await sandboxOf(workspaceId, sandboxId);
      const deleted = await changeWithEvent(db, bus, async (trx) => {
        const gone = await deleteMessage(trx, owned, id);
        return {
          value: gone,
          change: gone ? { type: 'message.deleted', data: { id, sandboxId: owned } } : undefined,
        };
      });
      if (!deleted) throw notFound('The message');
    },

    async clear(workspaceId: string, sandboxId: string): Promise<void> {
      const owned = await sandboxOf(workspaceId, sandboxId);
      await changeWithEvent(db, bus, async (trx) => {
        await lockSandboxForClear(trx, owned);
        await clearMessages(trx, owned);
        return { value: undefined, change: { type: 'messages.cleared', data: { sandboxId: owned } } };
      });
    },

    async raw(workspaceId: string, sandboxId: string, messageId: string): Promise<Uint8Array> {
      const id = parseId(messageId, 'messageId');
      const raw = await findMessageRaw(db, await sandboxOf(workspaceId, sandboxId), id);
      if (raw === undefined) throw notFound('The message');
      return raw;
    },

    /** Re-reads attachment `index` from the raw source: the bytes are decoded the same way every time. */
    async attachment(
      workspaceId: string,
      sandboxId: string,
      messageId: string,
      index: number,
    ): Promise<{ info: AttachmentInfo; content: Buffer }> {
      const raw = await this.raw(workspaceId, sandboxId, messageId);
      const parts = await runParser(raw, index);
      const info = parts.attachments[index];
      if (info === undefined) throw notFound(`Attachment ${index} of this message`);
      return { info, content: parts.content ?? Buffer.alloc(0) };
    },

    /**
     * A message's HTML part with the parts its `cid:` URLs may name (the first per Content-ID), decoded, for a
     * view that inlines them: in order until `maxBytes` of them; a part past that is left out.
     */
    async htmlWithParts(
      workspaceId: string,
      sandboxId: string,
      messageId: string,
      maxBytes: number,
    ): Promise<{ html: string | null; parts: Map<string, { contentType: string; content: Buffer }> }> {
      const message = await this.get(workspaceId, sandboxId, messageId);
      const parts = new Map<string, { contentType: string; content: Buffer }>();
      if (message.htmlBody === null) return { html: null, parts };
      let bytes = 0;
      for (const part of message.attachments) {
        const cid = part.contentId;
        if (cid == null || parts.has(cid) || bytes + part.sizeBytes > maxBytes) continue;
        bytes += part.sizeBytes;
        const { info, content } = await this.attachment(workspaceId, sandboxId, messageId, part.index);
        parts.set(cid, { contentType: info.contentType, content });
      }
      return { html: message.htmlBody, parts };
    },

    /** The part a `cid:` URL names: the first attachment whose Content-ID is `contentId`. */
    async partByContentId(
      workspaceId: string,
      sandboxId: string,
      messageId: string,
      contentId: string,
    ): Promise<{ info: AttachmentInfo; content: Buffer }> {
      const message = await this.get(workspaceId, sandboxId, messageId);
      const part = message.attachments.find((a) => a.contentId === contentId);
      if (part === undefined) throw notFound(`The part with Content-ID "${contentId}" in this message`);
      return this.attachment(workspaceId, sandboxId, messageId, part.index);
    },
  };
}
