// The one ingest path for mail from every listener: parse once, store one row per sandbox, commit.
// Callers acknowledge the sender only after this resolves.
import type { Clock } from '../clock.ts';
import type { EventBus } from '../events.ts';
import { newItemId } from '../random.ts';
import { traceparentOf } from '../traceparent.ts';
import { storeWriteFailure } from '../store/unavailable.ts';
import type { MessageRowToStore, MessageWriter } from '../store/writers.ts';
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

function rowsFor(mail: ParsedMail): MessageRowToStore[] {
  const { parsed } = mail;
  const traceparent = traceparentOf(parsed.headers.map((h) => [h.name, h.value] as const));
  return mail.deliveries.map((d) => ({
    id: newItemId(),
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
    traceparent,
  }));
}

// Parsing is inline, on the main thread: a worker-thread pool tied at best and cost a fifth more CPU
// end to end (docs/decisions/0005-inline-parsing.md).
export function createMailIngest(clock: Clock, bus: EventBus, writer: MessageWriter) {
  return async function ingestMail(input: {
    raw: Uint8Array;
    envelopeFrom: string | null;
    deliveries: MailDelivery[];
    /** When it was first received, for mail restored from an export; now otherwise. */
    receivedAt?: Date;
  }): Promise<IngestedMail> {
    // Messages parsed at the same time are committed together: parsing takes several turns of the event loop.
    const arrival = writer.announce();
    const raw = input.raw;
    let parsed: ParsedMessage;
    try {
      parsed = await parseMessage(raw, input.envelopeFrom);
    } catch (err) {
      arrival.withdraw();
      throw err;
    }
    const rows = rowsFor({ ...input, raw, parsed, receivedAt: input.receivedAt ?? clock.now() });
    let stored: Set<string>;
    try {
      stored = await arrival.submit(rows);
    } catch (err) {
      // The store's reason (a full disk, say) stays with the refusal: the sender's reply and the log name it.
      throw storeWriteFailure(err, 'the message');
    }
    const result: IngestedMail = {
      stored: rows
        .filter((row) => stored.has(row.id))
        .map((row) => ({ sandboxId: row.sandbox_id, messageId: row.id })),
    };
    for (const { sandboxId, messageId } of result.stored)
      bus.publish({ kind: 'message', sandboxId, id: messageId });
    return result;
  };
}
