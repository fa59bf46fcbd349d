// SMTP fault scripts across two real `sandtrap serve` processes on one PostgreSQL database (issue 40): a
// counted step spends its count in the store, so the two processes together refuse exactly `times` sessions;
// a script saved on one process replaces the copy the other keeps in memory; both read one session log.
// Runs only when TEST_DATABASE_URL is set (as .ci/run does); each run uses a fresh database of its own.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { components } from '../../openapi/schema.d.ts';
import { sandboxTransport } from '../helpers/mail.ts';
import { eventually } from '../helpers/poll.ts';
import type { ServerProcess } from '../helpers/process.ts';
import { needsPostgres, useTwoServers } from '../helpers/twoServers.ts';

type Schemas = components['schemas'];
type Sandbox = Schemas['Sandbox'];

async function call(server: ServerProcess, key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.apiUrl}/api/v1${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? null : JSON.stringify(body),
    signal: AbortSignal.timeout(90_000),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** One send through `server`'s submission port: 'sent', or the SMTP reply code that refused it. */
async function sendOnce(server: ServerProcess, sandbox: Sandbox, subject: string): Promise<number | 'sent'> {
  const transport = sandboxTransport(server.ports.smtp, sandbox, {
    connectionTimeout: 30_000,
    greetingTimeout: 30_000,
    socketTimeout: 60_000,
  });
  try {
    await transport.sendMail({
      from: 'app@sender.test',
      to: 'user@example.com',
      subject,
      text: `body of ${subject}`,
    });
    return 'sent';
  } catch (err) {
    const code = (err as { responseCode?: number }).responseCode;
    if (code === undefined) throw err;
    return code;
  } finally {
    transport.close();
  }
}

describe('SMTP fault scripts on two serve processes', { skip: needsPostgres }, () => {
  const servers = useTwoServers('sandtrap_smtpfaults');
  const A = servers.a;
  const B = servers.b;
  let key: string;
  let sandbox: Sandbox;

  before(async () => {
    key = servers.key();
    const created = await call(A(), key, 'POST', '/sandboxes', { name: 'faults across processes' });
    assert.equal(created.status, 201);
    sandbox = created.body as Sandbox;
  });

  test('a step with times: 3 refuses exactly three sessions, whichever process each one reaches', async () => {
    const saved = await call(A(), key, 'PUT', `/sandboxes/${sandbox.id}/smtp-faults`, {
      faults: [{ stage: 'rcpt', reply: { code: 451, text: '4.3.0 Try again later' }, times: 3 }],
    });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    const outcomes: Array<number | 'sent'> = [];
    for (let i = 0; i < 6; i++) {
      outcomes.push(await sendOnce(i % 2 === 0 ? A() : B(), sandbox, `try ${i}`));
    }
    assert.deepEqual(outcomes, [451, 451, 451, 'sent', 'sent', 'sent']);
    for (const server of [A(), B()]) {
      const faults = await call(server, key, 'GET', `/sandboxes/${sandbox.id}/smtp-faults`);
      assert.equal((faults.body as Schemas['SmtpFaults']).faults[0]?.remaining, 0);
    }
    const listed = await call(B(), key, 'GET', `/sandboxes/${sandbox.id}/messages`);
    assert.deepEqual(
      (listed.body as { items: Array<{ subject: string }> }).items.map((m) => m.subject).sort(),
      ['try 3', 'try 4', 'try 5'],
    );
    // Both processes wrote to one log, and each reads all six sessions from it.
    const log = await eventually('six ended sessions in the log', async () => {
      const got = await call(A(), key, 'GET', `/sandboxes/${sandbox.id}/smtp-sessions`);
      const items = (got.body as { items: Schemas['SmtpSession'][] }).items;
      return items.length === 6 && items.every((s) => s.endedAt !== null) ? items : undefined;
    });
    const fromB = await call(B(), key, 'GET', `/sandboxes/${sandbox.id}/smtp-sessions`);
    assert.deepEqual(
      (fromB.body as { items: Schemas['SmtpSession'][] }).items.map((s) => s.id),
      log.map((s) => s.id),
    );
  });

  test('a script saved on B replaces the one A holds in memory', async () => {
    // A has used (and so holds) the script of the test before; B replaces it with a refusal at MAIL FROM.
    assert.equal(await sendOnce(A(), sandbox, 'before the change'), 'sent');
    const saved = await call(B(), key, 'PUT', `/sandboxes/${sandbox.id}/smtp-faults`, {
      faults: [{ stage: 'mail', reply: { code: 550, text: '5.7.1 Refused by the new script' } }],
    });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    // The change reaches A by the bus (LISTEN/NOTIFY), so the first send may still race it; the bound only
    // guards against a change that never arrives.
    const refused = await eventually('A to apply the script saved on B', async () => {
      const outcome = await sendOnce(A(), sandbox, 'after the change');
      return outcome === 550 ? outcome : undefined;
    });
    assert.equal(refused, 550);
    // Cleared on A, it no longer applies on B.
    const cleared = await call(A(), key, 'PUT', `/sandboxes/${sandbox.id}/smtp-faults`, { faults: [] });
    assert.equal(cleared.status, 200);
    const sent = await eventually('B to drop the cleared script', async () => {
      const outcome = await sendOnce(B(), sandbox, 'after clearing');
      return outcome === 'sent' ? outcome : undefined;
    });
    assert.equal(sent, 'sent');
  });
});
