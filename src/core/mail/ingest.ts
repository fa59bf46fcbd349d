// The one ingest path for mail from every listener: parse once, store one row per sandbox, commit.
// Callers acknowledge the sender only after this resolves.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { EventBus } from '../events.ts';
import { newId } from '../random.ts';
import { GroupCommit } from '../store/groupCommit.ts';
import type { LiveRow } from '../store/repos/insertIfLive.ts';
import { insertMessagesIfLive } from '../store/repos/messages.ts';
import type { Database, NewMessageRow } from '../store/schema.ts';
import { parseMessage, type ParsedMessage } from './parseMessage.ts';

export interface MailDelivery {
  sandboxId: string;
  /** Envelope recipients accepted for this sandbox, Bcc included. */
  capturedFor: string[];
}

export interface IngestedMail {
  /** Message id per sandbox that still existed at commit time. */
  stored: Array<{ sandboxId: string; messageId: string }>;
}

interface ParsedMail {
  raw: Uint8Array;
  envelopeFrom: string | null;
  deliveries: MailDelivery[];
  parsed: ParsedMessage;
  receivedAt: Date;
}

function rowsFor(mail: ParsedMail): Array<NewMessageRow & LiveRow> {
  const { parsed } = mail;
  return mail.deliveries.map((d) => ({
    id: newId(),
    sandbox_id: d.sandboxId,
    received_at: mail.receivedAt,
    envelope_from: mail.envelopeFrom,
    from_header: parsed.from ?? '',
    to_addrs: JSON.stringify(parsed.to),
    captured_for: JSON.stringify(d.capturedFor),
    subject: parsed.subject,
    preview: parsed.preview,
    text_body: parsed.textBody,
    html_body: parsed.htmlBody,
    headers: JSON.stringify(parsed.headers),
    attachments: JSON.stringify(parsed.attachments),
    attachment_count: parsed.attachments.length,
    size_bytes: mail.raw.byteLength,
    raw: mail.raw,
    parse_error: parsed.parseError,
  }));
}

export function createMailIngest(
  db: Kysely<Database>,
  clock: Clock,
  bus: EventBus,
  /**
   * waitForParsesMs: longest a parsed message waits for others still being parsed to share its commit;
   * preparedInserts: the store runs prepared statements (PostgreSQL).
   */
  options: { commitConcurrency: number; waitForParsesMs: number; preparedInserts: boolean },
) {
  // Messages parsed while a commit is running are committed together in the next transaction; each
  // sender gets its 250 only when the transaction holding its message has committed.
  const writer = new GroupCommit<ParsedMail, IngestedMail>(
    async (mails) => {
      const rows = mails.map(rowsFor);
      const stored = await insertMessagesIfLive(db, rows.flat(), options.preparedInserts);
      return rows.map((r) => ({
        stored: r
          .filter((row) => stored.has(row.id))
          .map((row) => ({ sandboxId: row.sandbox_id, messageId: row.id })),
      }));
    },
    {
      maxItems: 64,
      maxBytes: 16 * 1024 * 1024,
      sizeOf: (m) => m.raw.byteLength * Math.max(1, m.deliveries.length),
      concurrency: options.commitConcurrency,
      announcedWaitMs: options.waitForParsesMs,
    },
  );

  return async function ingestMail(input: {
    raw: Uint8Array;
    envelopeFrom: string | null;
    deliveries: MailDelivery[];
  }): Promise<IngestedMail> {
    // Messages parsed at the same time are committed together: parsing takes several turns of the event loop.
    const arrival = writer.announce();
    let parsed: ParsedMessage;
    try {
      parsed = await parseMessage(input.raw, input.envelopeFrom);
    } catch (err) {
      arrival.withdraw();
      throw err;
    }
    let result: IngestedMail;
    try {
      result = await arrival.submit({ ...input, parsed, receivedAt: clock.now() });
    } catch (err) {
      throw new AppError('unavailable', 'The message could not be stored; retry later.', { cause: err });
    }
    for (const { sandboxId, messageId } of result.stored)
      bus.publish({ kind: 'message', sandboxId, id: messageId });
    return result;
  };
}

export type MailIngest = ReturnType<typeof createMailIngest>;
