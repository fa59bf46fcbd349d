// One span per SMTP mail transaction: from MAIL FROM to the reply after DATA (or the refusal that ended it, or the
// session's end when the client gave up). A no-op unless an OpenTelemetry SDK is registered (README, "Traces").
import { SpanKind, trace, type Span } from '@opentelemetry/api';
import type { SMTPServerSession } from 'smtp-server';

const tracer = trace.getTracer('sandtrap');

export function createTransactionSpans(listener: 'submission' | 'inbound') {
  /** The open transaction of each session, by session id. */
  const open = new Map<string, Span>();

  function end(sessionId: string, attributes: Record<string, string | number>): void {
    const span = open.get(sessionId);
    if (span === undefined) return;
    open.delete(sessionId);
    span.setAttributes(attributes);
    span.end();
  }

  return {
    /** MAIL FROM arrived: a transaction starts (one left open by a client that started over ends here). */
    started(session: SMTPServerSession): void {
      end(session.id, { 'sandtrap.smtp.outcome': 'abandoned' });
      open.set(
        session.id,
        tracer.startSpan('smtp transaction', {
          root: true,
          kind: SpanKind.SERVER,
          attributes: {
            'network.protocol.name': 'smtp',
            'sandtrap.smtp.listener': listener,
            ...(session.remoteAddress ? { 'client.address': session.remoteAddress } : {}),
          },
        }),
      );
    },
    /** The transaction's last reply: a refused MAIL FROM, or the reply to DATA. */
    replied(session: SMTPServerSession, code: number, sizeBytes?: number): void {
      end(session.id, {
        'sandtrap.smtp.reply_code': code,
        'sandtrap.smtp.recipients': session.envelope.rcptTo.length,
        ...(sizeBytes === undefined ? {} : { 'sandtrap.smtp.message.size': sizeBytes }),
        'sandtrap.smtp.outcome': code < 300 ? 'accepted' : 'refused',
      });
    },
    /** The session closed with a transaction open. */
    closed(session: SMTPServerSession): void {
      end(session.id, { 'sandtrap.smtp.outcome': 'abandoned' });
    },
  };
}
