// SMTP fault scripts (issue 40): sandbox B's mail latency while sandbox A's sessions sit in a 20 s tarpit, against
// B alone on the same server. Each of B's messages is one sendMail over a pooled, logged-in connection (MAIL to
// the 250 after DATA). The target: another sandbox's mail stays under 100 ms while one is tarpitted.
import nodemailer from 'nodemailer';
import { freshDatabase } from './lib/pg.ts';
import { latencyRows, report, type Row } from './lib/report.ts';
import { startSandtrap, type BenchServer } from './lib/sandtrap.ts';

const usePg = process.argv.includes('--pg');
const ROUNDS = 200;
/** A's sessions held in the tarpit at once while B sends. */
const TARPITTED = 20;
const TARGET_MS = 100;

async function api(server: BenchServer, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server.apiUrl}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

function transport(server: BenchServer, sandbox: Record<string, any>, pool: boolean) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port: server.ports.smtp,
    secure: false,
    requireTLS: true,
    tls: { rejectUnauthorized: false },
    auth: { user: sandbox.smtpUsername, pass: sandbox.smtpPassword },
    ...(pool ? { pool: true, maxConnections: 1, maxMessages: Infinity } : {}),
  });
}

const mail = (subject: string) => ({
  from: 'app@bench.test',
  to: 'user@example.com',
  subject,
  text: subject,
});

/** B's latencies, sorted; with `tarpit`, while TARPITTED sends to A wait in A's data-stage tarpit. */
async function bLatency(server: BenchServer, tarpit: boolean): Promise<number[]> {
  const a = await api(server, 'POST', '/sandboxes', { name: 'tarpitted' });
  const b = await api(server, 'POST', '/sandboxes', { name: 'bystander' });
  const held: Array<Promise<unknown>> = [];
  if (tarpit) {
    await api(server, 'PUT', `/sandboxes/${a.id}/smtp-faults`, {
      faults: [{ stage: 'data', delayMs: 20_000 }],
    });
    for (let i = 0; i < TARPITTED; i++) {
      const t = transport(server, a, false);
      held.push(t.sendMail(mail(`held ${i}`)).catch(() => undefined));
    }
    // Every held session has reached DATA (its RCPT is logged before it is answered).
    for (;;) {
      const page = await api(server, 'GET', `/sandboxes/${a.id}/smtp-sessions?limit=200`);
      const atData = page.items.filter((s: any) => s.events.some((e: any) => e.stage === 'rcpt')).length;
      if (atData >= TARPITTED) break;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const t = transport(server, b, true);
  await t.sendMail(mail('warm-up'));
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    await t.sendMail(mail(`b ${i}`));
    samples.push(performance.now() - started);
  }
  t.close();
  if (tarpit) {
    const page = await api(server, 'GET', `/sandboxes/${a.id}/messages?limit=1`);
    if (page.items.length !== 0)
      throw new Error("A's mail left the tarpit before B finished: raise the delay");
  }
  return samples.sort((x, y) => x - y);
}

async function measure(label: string, server: BenchServer): Promise<Row[]> {
  return [
    ...latencyRows(`SMTP mail of sandbox B alone (${label})`, await bLatency(server, false), TARGET_MS),
    ...latencyRows(
      `SMTP mail of sandbox B while ${TARPITTED} sessions of A sit in a 20 s tarpit (${label})`,
      await bLatency(server, true),
      TARGET_MS,
    ),
  ];
}

const rows: Row[] = [];
const single = await startSandtrap({ RATE_LIMITS: 'off' });
try {
  rows.push(...(await measure('embedded', single)));
} finally {
  await single.stop();
}
if (usePg) {
  const fresh = await freshDatabase();
  const server = await startSandtrap({ DATABASE_URL: fresh.url, RATE_LIMITS: 'off' });
  try {
    rows.push(...(await measure('PostgreSQL', server)));
  } finally {
    await server.stop();
    await fresh.drop();
  }
}

report('smtpFaults', rows);
