// SMTP fault scripts per sandbox (issue 40) through the real listeners: a 451 a retrying client gets past, a
// connection dropped mid-DATA that stores nothing, a 20 s tarpit on one sandbox while another's mail goes
// first, per-recipient faults on the inbound port that leave other sandboxes alone, and the session log.
// Clients: nodemailer and Python smtplib.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { components } from '../../openapi/schema.d.ts';
import { inboundTransport, listMessages, refusal, sandboxTransport } from '../helpers/mail.ts';
import { eventually } from '../helpers/poll.ts';
import { freePort } from '../helpers/process.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { smtplib } from '../helpers/smtplib.ts';
import { describeEachStore } from '../helpers/stores.ts';

type SmtpSession = components['schemas']['SmtpSession'];
type SmtpFaults = components['schemas']['SmtpFaults'];
type Sandbox = Record<string, any>;

async function setFaults(ws: TestServerWorkspace, sandboxId: string, faults: unknown[]): Promise<SmtpFaults> {
  const res = await ws.api(`/sandboxes/${sandboxId}/smtp-faults`, {
    method: 'PUT',
    body: JSON.stringify({ faults }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as SmtpFaults;
}

/** The session log, oldest first (the API pages newest first). */
async function sessions(ws: TestServerWorkspace, sandboxId: string): Promise<SmtpSession[]> {
  const res = await ws.api(`/sandboxes/${sandboxId}/smtp-sessions`);
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as { items: SmtpSession[] }).items.reverse();
}

const stageOf = (s: SmtpSession, stage: string) => s.events.find((e) => e.stage === stage);

describeEachStore('SMTP fault scripts', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  before(async () => {
    server = await startTestServer(getStore(), { SMTP_INBOUND_PORT: String(await freePort()) });
    ws = await server.workspace();
  });
  after(async () => {
    await server.close();
  });

  const message = (subject: string, to = 'user@example.com') => ({
    from: 'app@sender.test',
    to,
    subject,
    text: `body of ${subject}`,
  });

  it('451 on the first RCPT to *@example.com: a client that retries delivers, and the log shows both tries', async () => {
    const sandbox: Sandbox = await ws.createSandbox();
    const saved = await setFaults(ws, sandbox.id, [
      {
        stage: 'rcpt',
        match: '*@example.com',
        reply: { code: 451, text: '4.3.0 Try again later' },
        times: 1,
      },
    ]);
    assert.equal(saved.faults[0]?.remaining, 1);
    const transport = sandboxTransport(server.ports.smtp, sandbox);
    // The application's retry policy: a 4xx means try again.
    const attempts: Array<number | 'sent'> = [];
    for (let i = 0; i < 3 && attempts.at(-1) !== 'sent'; i++) {
      try {
        await transport.sendMail(message('retried'));
        attempts.push('sent');
      } catch (err) {
        const code = (err as { responseCode: number }).responseCode;
        attempts.push(code);
        if (code < 400 || code >= 500) throw err;
      }
    }
    transport.close();
    assert.deepEqual(attempts, [451, 'sent']);
    const stored = await listMessages(ws, sandbox.id);
    assert.deepEqual(
      stored.map((m) => m.subject),
      ['retried'],
    );

    const log = await eventually('both sessions ended in the log', async () => {
      const all = await sessions(ws, sandbox.id);
      return all.length === 2 && all.every((s) => s.endedAt !== null) ? all : undefined;
    });
    const [first, second] = log as [SmtpSession, SmtpSession];
    assert.equal(first.listener, 'submission');
    assert.deepEqual(stageOf(first, 'rcpt')?.fault, { index: 0, action: 'reply' });
    assert.deepEqual(stageOf(first, 'rcpt')?.reply, { code: 451, text: '4.3.0 Try again later' });
    assert.equal(stageOf(first, 'data'), undefined);
    assert.equal(stageOf(second, 'rcpt')?.fault, null);
    assert.equal(stageOf(second, 'rcpt')?.reply?.code, 250);
    assert.equal(stageOf(second, 'data')?.reply?.code, 250);
    assert.deepEqual(
      second.events.map((e) => e.stage),
      ['connect', 'ehlo', 'auth', 'mail', 'rcpt', 'data'],
    );
    const after = (await (await ws.api(`/sandboxes/${sandbox.id}/smtp-faults`)).json()) as SmtpFaults;
    assert.equal(after.faults[0]?.remaining, 0);
  });

  it('421 at connect, once: judged at AUTH on the submission port, then the retry is accepted', async () => {
    const sandbox: Sandbox = await ws.createSandbox();
    await setFaults(ws, sandbox.id, [
      { stage: 'connect', reply: { code: 421, text: '4.3.2 Not accepting mail now' }, times: 1 },
    ]);
    const first = await refusal(sandboxTransport(server.ports.smtp, sandbox).sendMail(message('first')));
    assert.equal(first.responseCode, 421);
    await sandboxTransport(server.ports.smtp, sandbox).sendMail(message('second'));
    assert.deepEqual(
      (await listMessages(ws, sandbox.id)).map((m) => m.subject),
      ['second'],
    );
    const [refused] = await sessions(ws, sandbox.id);
    assert.deepEqual(refused?.events[0], {
      ...refused?.events[0],
      stage: 'connect',
      fault: { index: 0, action: 'reply' },
      reply: { code: 421, text: '4.3.2 Not accepting mail now' },
      deferred: true,
    });
  });

  it('Python smtplib sees the connection dropped mid-DATA, and nothing is stored', async () => {
    const sandbox: Sandbox = await ws.createSandbox();
    await setFaults(ws, sandbox.id, [{ stage: 'data', drop: true, times: 1 }]);
    const spec = {
      port: server.ports.smtp,
      starttls: true,
      username: sandbox.smtpUsername as string,
      password: sandbox.smtpPassword as string,
      mail_from: 'app@sender.test',
      rcpt_to: ['user@example.com'],
    };
    const dropped = await smtplib({ ...spec, subject: 'dropped', body: 'never kept' });
    assert.equal(dropped.ok, false);
    assert.equal(dropped.ok === false && dropped.disconnected, true, JSON.stringify(dropped));
    // The next message arrives and is the only one: the dropped one was never stored.
    assert.deepEqual(await smtplib({ ...spec, subject: 'kept', body: 'kept' }), { ok: true });
    assert.deepEqual(
      (await listMessages(ws, sandbox.id)).map((m) => m.subject),
      ['kept'],
    );
    const [cut] = await sessions(ws, sandbox.id);
    assert.deepEqual(
      {
        fault: stageOf(cut as SmtpSession, 'data')?.fault,
        reply: stageOf(cut as SmtpSession, 'data')?.reply,
      },
      { fault: { index: 0, action: 'drop' }, reply: null },
    );
  });

  it("a 20 s tarpit on sandbox A: sandbox B's mail, sent after A's, is stored first; A's still arrives", async () => {
    const a: Sandbox = await ws.createSandbox({ name: 'tarpitted' });
    const b: Sandbox = await ws.createSandbox({ name: 'bystander' });
    await setFaults(ws, a.id, [{ stage: 'data', delayMs: 20_000 }]);
    const order: string[] = [];
    const sendA = sandboxTransport(server.ports.smtp, a)
      .sendMail(message('from A'))
      .then(() => order.push('A acknowledged'));
    // A's transaction has reached DATA's tarpit (its RCPT is logged before it is answered).
    await eventually('A to pass RCPT', async () => {
      const [s] = await sessions(ws, a.id);
      return s !== undefined && stageOf(s, 'rcpt') !== undefined;
    });
    await sandboxTransport(server.ports.smtp, b).sendMail(message('from B'));
    order.push('B acknowledged');
    assert.equal((await listMessages(ws, b.id)).length, 1);
    assert.equal((await listMessages(ws, a.id)).length, 0, "A's mail is still held in the tarpit");
    await sendA;
    assert.deepEqual(order, ['B acknowledged', 'A acknowledged']);
    const [fromA] = await listMessages(ws, a.id);
    const [fromB] = await listMessages(ws, b.id);
    assert.ok(fromA !== undefined && fromB !== undefined);
    assert.ok(Date.parse(fromB.receivedAt) < Date.parse(fromA.receivedAt));
    const [held] = await sessions(ws, a.id);
    assert.deepEqual(stageOf(held as SmtpSession, 'data')?.fault, { index: 0, action: 'delay' });
    assert.equal(stageOf(held as SmtpSession, 'data')?.reply?.code, 250);
    // B has no script: no log.
    assert.deepEqual(await sessions(ws, b.id), []);
  });

  it("inbound port: a recipient fault of A refuses only A's recipient; B's copy of the same message arrives", async () => {
    const a: Sandbox = await ws.createSandbox({ name: 'refusing' });
    const b: Sandbox = await ws.createSandbox({ name: 'receiving' });
    await setFaults(ws, a.id, [
      { stage: 'rcpt', match: 'blocked@*', reply: { code: 550, text: '5.1.1 No such user here' } },
    ]);
    const transport = inboundTransport(server.ports.smtpInbound as number);
    const info = await transport.sendMail({
      from: 'app@sender.test',
      to: [`blocked@${a.emailDomain}`, `someone@${a.emailDomain}`, `blocked@${b.emailDomain}`],
      subject: 'shared',
      text: 'shared',
    });
    transport.close();
    assert.deepEqual(info.rejected, [`blocked@${a.emailDomain}`]);
    const [toA] = await listMessages(ws, a.id);
    const [toB] = await listMessages(ws, b.id);
    assert.deepEqual(toA?.capturedFor, [`someone@${a.emailDomain}`]);
    assert.deepEqual(toB?.capturedFor, [`blocked@${b.emailDomain}`]);
    const [s] = await sessions(ws, a.id);
    assert.equal(s?.listener, 'inbound');
    const rcpts = s?.events.filter((e) => e.stage === 'rcpt').map((e) => e.reply?.code);
    assert.deepEqual(rcpts, [550, 250]);
  });

  it('an accept step with times lets the first N through, then a later step refuses the rest', async () => {
    const sandbox: Sandbox = await ws.createSandbox();
    await setFaults(ws, sandbox.id, [
      { stage: 'mail', accept: true, times: 2 },
      { stage: 'mail', reply: { code: 554, text: '5.7.1 Quota used up' } },
    ]);
    const transport = sandboxTransport(server.ports.smtp, sandbox);
    const outcomes = await Promise.all(
      [1, 2, 3, 4].map((n) =>
        transport.sendMail(message(`n${n}`)).then(
          () => 250,
          (e: { responseCode: number }) => e.responseCode,
        ),
      ),
    );
    transport.close();
    assert.deepEqual(
      outcomes.toSorted((x, y) => x - y),
      [250, 250, 554, 554],
    );
    assert.equal((await listMessages(ws, sandbox.id)).length, 2);
  });
});
