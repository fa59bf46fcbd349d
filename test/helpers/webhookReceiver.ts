// A webhook receiver for tests: a node:http server that checks every POST's Standard Webhooks signature with
// the `standardwebhooks` package, records what it verified, and answers with the statuses it is told to.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  /** The webhook-id header: the same on every attempt of one event. */
  id: string;
  type: string;
  eventId: string | undefined;
  data: Record<string, any>;
}

export interface WebhookReceiver {
  url: string;
  /** Verified deliveries in arrival order (repeats included). */
  received: Received[];
  /** Requests whose signature did not verify (with the error). */
  rejected: string[];
  /** Set once the webhook is created: signatures are checked with it. */
  secret: string | undefined;
  /** The status for the next answers, one per request; 200 once the list is used up. */
  answers: number[];
  /** How long each answer is held after the delivery was recorded (keeps deliveries in flight). */
  delayMs: number;
  /** Distinct webhook-ids seen. */
  ids(): Set<string>;
  close(): Promise<void>;
}

/** `port` 0 takes a free one; a given port brings a receiver back where an earlier one was (an outage's end). */
export async function startWebhookReceiver(path = '/hook', port = 0): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    rejected: [],
    secret: undefined,
    answers: [],
    delayMs: 0,
    ids: () => new Set(receiver.received.map((r) => r.id)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const status = receiver.answers.shift() ?? 200;
      try {
        if (receiver.secret === undefined) throw new Error('no secret yet');
        const headers = Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v ?? '')]),
        );
        const payload = new Webhook(receiver.secret).verify(body, headers) as Record<string, any>;
        if (status >= 200 && status < 300) {
          receiver.received.push({
            id: String(req.headers['webhook-id']),
            type: payload.type,
            eventId: payload.eventId,
            data: payload.data,
          });
        }
      } catch (err) {
        receiver.rejected.push(String(err));
      }
      const answer = () => {
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(status >= 200 && status < 300 ? 'ok' : `refused with ${status}`);
      };
      // Unref'd: a held answer never keeps the test process alive.
      if (receiver.delayMs > 0) setTimeout(answer, receiver.delayMs).unref();
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}
