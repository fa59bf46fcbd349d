// The one ingest path for mail from every listener: parse once, store one row per sandbox, commit.
// Callers acknowledge the sender only after this resolves.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { EventBus } from '../events.ts';
import { newId } from '../random.ts';
import { insertMessages, lockLiveSandboxes } from '../store/repos/messages.ts';
import type { Database, NewMessageRow } from '../store/schema.ts';
import { parseMessage } from './parseMessage.ts';

export interface MailDelivery {
  sandboxId: string;
  /** Envelope recipients accepted for this sandbox, Bcc included. */
  capturedFor: string[];
}

export interface IngestedMail {
  /** Message id per sandbox that still existed at commit time. */
  stored: Array<{ sandboxId: string; messageId: string }>;
}

export function createMailIngest(db: Kysely<Database>, clock: Clock, bus: EventBus) {
  return async function ingestMail(input: {
    raw: Uint8Array;
    envelopeFrom: string | null;
    deliveries: MailDelivery[];
  }): Promise<IngestedMail> {
    const parsed = await parseMessage(input.raw, input.envelopeFrom);
    const receivedAt = clock.now();
    let result: IngestedMail;
    try {
      result = await db.transaction().execute(async (trx) => {
        const live = new Set(
          await lockLiveSandboxes(
            trx,
            input.deliveries.map((d) => d.sandboxId),
            receivedAt,
          ),
        );
        const rows: NewMessageRow[] = input.deliveries
          .filter((d) => live.has(d.sandboxId))
          .map((d) => ({
            id: newId(),
            sandbox_id: d.sandboxId,
            received_at: receivedAt,
            envelope_from: input.envelopeFrom,
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
            size_bytes: input.raw.byteLength,
            raw: input.raw,
          }));
        await insertMessages(trx, rows);
        return { stored: rows.map((r) => ({ sandboxId: r.sandbox_id, messageId: r.id })) };
      });
    } catch (err) {
      throw new AppError('unavailable', 'The message could not be stored; retry later.', { cause: err });
    }
    for (const { sandboxId, messageId } of result.stored)
      bus.publish({ kind: 'message', sandboxId, id: messageId });
    return result;
  };
}

export type MailIngest = ReturnType<typeof createMailIngest>;
