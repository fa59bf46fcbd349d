// Load for fault tests: HTTP captures and inbound SMTP mail sent in loops against a real server until stopped,
// every outcome kept, so a test can check that every acknowledged item survived and how refusals looked.
import nodemailer from 'nodemailer';
import { setTimeout as sleep } from 'node:timers/promises';

export interface CaptureOutcome {
  status: number | 'error';
  /** X-Sandtrap-Request-Id of an answered capture: the id it was stored under. */
  id?: string;
  retryAfter?: string | null;
  contentType?: string | null;
  body?: string;
}

export interface MailOutcome {
  ok: boolean;
  id?: string;
  responseCode?: number;
  response?: string;
}

export interface Load {
  captures: CaptureOutcome[];
  mails: MailOutcome[];
  /** Stops the loops and waits for the sends in flight. */
  stop(): Promise<void>;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

export async function sendOneCapture(
  capturePort: number,
  sandboxId: string,
  path: string,
): Promise<CaptureOutcome> {
  try {
    const res = await fetch(`http://127.0.0.1:${capturePort}/${sandboxId}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ path, at: Date.now() }),
      signal: AbortSignal.timeout(15_000),
    });
    const body = await res.text();
    return {
      status: res.status,
      id: res.headers.get('x-sandtrap-request-id') ?? undefined,
      retryAfter: res.headers.get('retry-after'),
      contentType: res.headers.get('content-type'),
      body,
    };
  } catch {
    return { status: 'error' };
  }
}

export function inboundMailer(port: number) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
    connectionTimeout: 10_000,
    socketTimeout: 15_000,
  });
}

export async function sendOneMail(
  mailer: ReturnType<typeof inboundMailer>,
  sandboxId: string,
  subject: string,
): Promise<MailOutcome> {
  try {
    const info = await mailer.sendMail({
      from: 'load@example.com',
      to: `inbox@${sandboxId}.capture.localhost`,
      subject,
      text: `load mail ${subject}`,
    });
    return { ok: true, id: UUID.exec(info.response)?.[0], response: info.response };
  } catch (err) {
    const e = err as { responseCode?: number; response?: string; message?: string };
    return { ok: false, responseCode: e.responseCode, response: e.response ?? e.message };
  }
}

/** `captureWorkers` capture loops and `mailWorkers` mail loops against one sandbox, until `stop()`. */
/** Loads not yet stopped: a test that fails before its own stop() leaves one running, which keeps the file alive. */
const liveLoads = new Set<Load>();

/** Stops every load still running; call it from the suite's `after`. */
export async function stopLoads(): Promise<void> {
  await Promise.all([...liveLoads].map((load) => load.stop()));
}

export function startLoad(options: {
  capturePort: number;
  smtpInboundPort: number;
  sandboxId: string;
  captureWorkers?: number;
  mailWorkers?: number;
}): Load {
  const captures: CaptureOutcome[] = [];
  const mails: MailOutcome[] = [];
  let running = true;
  let n = 0;
  const mailer = inboundMailer(options.smtpInboundPort);
  const captureLoop = async () => {
    while (running) {
      const outcome = await sendOneCapture(options.capturePort, options.sandboxId, `/load/${n++}`);
      captures.push(outcome);
      if (outcome.status !== 200) await sleep(20);
    }
  };
  const mailLoop = async () => {
    while (running) {
      const outcome = await sendOneMail(mailer, options.sandboxId, `load ${n++}`);
      mails.push(outcome);
      if (!outcome.ok) await sleep(20);
    }
  };
  const loops = [
    ...Array.from({ length: options.captureWorkers ?? 4 }, captureLoop),
    ...Array.from({ length: options.mailWorkers ?? 2 }, mailLoop),
  ];
  const load: Load = {
    captures,
    mails,
    async stop() {
      liveLoads.delete(load);
      running = false;
      await Promise.all(loops);
      mailer.close();
    },
  };
  liveLoads.add(load);
  return load;
}

/** Every id of a paged list endpoint (`/sandboxes/{id}/messages` or `/requests`), all pages. */
export async function allIds(apiUrl: string, key: string, path: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | null = null;
  do {
    const url = `${apiUrl}/api/v1${path}?limit=200${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const res = await fetch(url, { headers: { Authorization: `Bearer ${key}` } });
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    const page = (await res.json()) as { items: Array<{ id: string }>; nextCursor: string | null };
    for (const item of page.items) ids.add(item.id);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return ids;
}
