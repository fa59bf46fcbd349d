// What one client address can hold on the SMTP listeners (both ports): at most SMTP_MAX_CONNECTIONS_PER_IP
// sessions at once (the next gets 421 4.7.0 and is closed) while another address still sends; a session
// that only sends NOOP is closed at the socket timeout while a working one is not; at most 100 recipients per
// transaction (452 4.5.3); and anonymous inbound mail spends its own per-workspace budget, never the one of the
// workspace's apps on the submission port. "Another address" is 127.0.0.2 (every 127/8 address is loopback).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../../src/core/store/openStore.ts';
import nodemailer from 'nodemailer';
import { listMessages, refusal, sandboxTransport } from '../helpers/mail.ts';
import { freePort } from '../helpers/process.ts';
import { loadConfig } from '../../src/core/config.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { authedWire, Wire, type Reply } from '../helpers/smtpWire.ts';
import { describeEachStore, type StoreBackend } from '../helpers/stores.ts';

type Sandbox = Record<string, any>;

const OTHER = '127.0.0.2';
const DOMAIN = 'capture.localhost';
const inboxOf = (sandbox: Sandbox, local = 'inbox') => `${local}@${sandbox.id}.${DOMAIN}`;

/** A nodemailer transport for the inbound port from `localAddress`: no AUTH, STARTTLS when offered. */
const inboundFrom = (port: number, localAddress: string) =>
  nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    tls: { rejectUnauthorized: false },
    localAddress,
  });

async function startWithInbound(store: Store, env: Record<string, string> = {}): Promise<TestServer> {
  const server = await startTestServer(store, { SMTP_INBOUND_PORT: String(await freePort()), ...env });
  assert.ok(server.ports.smtpInbound !== null, 'the inbound listener is on');
  return server;
}

/** Connects from 127.0.0.1 and reads the first reply (the greeting, or the refusal). */
async function firstReply(port: number): Promise<{ wire: Wire; reply: Reply }> {
  const wire = await Wire.connect(port);
  return { wire, reply: await wire.read(10_000) };
}

/** MAIL, RCPT..., DATA and a small message on an open session: the final reply, or the first refusal. */
async function wireSend(wire: Wire, from: string, rcpts: string[], subject: string): Promise<Reply> {
  const mail = await wire.command(`MAIL FROM:<${from}>`);
  if (mail.code !== 250) return mail;
  for (const rcpt of rcpts) {
    const r = await wire.command(`RCPT TO:<${rcpt}>`);
    if (r.code !== 250) return r;
  }
  const data = await wire.command('DATA');
  assert.equal(data.code, 354, data.text);
  wire.write(`Subject: ${subject}\r\n\r\nbody\r\n.\r\n`);
  return wire.read(30_000);
}

describeEachStore('SMTP connection caps', (getStore, backend: StoreBackend) => {
  describe('per address (SMTP_MAX_CONNECTIONS_PER_IP, default 20)', () => {
    // The test helper raises the cap for every other suite; this one runs on the default.
    let server: TestServer;
    let ws: TestServerWorkspace;
    let sandbox: Sandbox;
    before(async () => {
      server = await startWithInbound(
        { ...getStore(), close: async () => {} },
        { SMTP_MAX_CONNECTIONS_PER_IP: '20' },
      );
      ws = await server.workspace();
      sandbox = await ws.createSandbox({ name: 'caps' });
    });
    after(async () => {
      await server.close();
    });

    for (const mode of ['submission', 'inbound'] as const) {
      it(`${mode}: 500 connections from one address get 20 sessions and 480 × 421 4.7.0; another address still sends, and a closed session frees its place`, async () => {
        assert.equal(loadConfig({}).connectionsPerIp.smtp, 20, 'the default cap is 20');
        assert.equal(server.core.config.connectionsPerIp.smtp, 20);
        const port = mode === 'submission' ? server.ports.smtp : (server.ports.smtpInbound as number);
        const held: Wire[] = [];
        const refused: Reply[] = [];
        try {
          // In waves of 100, as a client that opens connections as fast as it is answered.
          for (let wave = 0; wave < 5; wave++) {
            const opened = await Promise.all(Array.from({ length: 100 }, () => firstReply(port)));
            for (const { wire, reply } of opened) {
              if (reply.code === 220) held.push(wire);
              else {
                refused.push(reply);
                assert.ok(await wire.waitClosed(10_000), 'a refused connection is closed by the server');
              }
            }
          }
          assert.equal(held.length, 20, 'the first 20 sessions are served');
          assert.equal(refused.length, 480);
          for (const reply of refused) {
            assert.equal(reply.code, 421, reply.text);
            assert.match(reply.text, /^4\.7\.0 Too many connections from your address .*retry later/);
          }
          // The 20 held sessions work.
          assert.equal((await (held[0] as Wire).command('EHLO held.test')).code, 250);

          // Another address sends, with nodemailer, while the first one holds its 20.
          const subject = `from ${OTHER} on ${mode}`;
          if (mode === 'submission') {
            await sandboxTransport(port, sandbox, { localAddress: OTHER }).sendMail({
              from: 'app@example.com',
              to: 'user@example.com',
              subject,
              text: 'x',
            });
          } else {
            await inboundFrom(port, OTHER).sendMail({
              from: 'stranger@example.com',
              to: inboxOf(sandbox),
              subject,
              text: 'x',
            });
          }
          assert.ok((await listMessages(ws, sandbox.id)).some((m) => m.subject === subject));

          // Closing one of the 20 gives its place back: a new session from the first address is served.
          (held.pop() as Wire).close();
          let served: Wire | undefined;
          for (let attempt = 0; attempt < 100 && served === undefined; attempt++) {
            const { wire, reply } = await firstReply(port);
            if (reply.code === 220) served = wire;
            else {
              wire.close();
              await sleep(20);
            }
          }
          assert.ok(served !== undefined, 'a place freed by a closed session is taken again');
          held.push(served);
          const again = await firstReply(port);
          assert.equal(again.reply.code, 421, 'and the cap holds again at 20');
          again.wire.close();
        } finally {
          for (const wire of held) wire.close();
        }
      });
    }
  });

  describe('idle sessions (SMTP_SOCKET_TIMEOUT_SECONDS=2)', () => {
    let server: TestServer;
    let ws: TestServerWorkspace;
    let sandbox: Sandbox;
    before(async () => {
      server = await startWithInbound(
        { ...getStore(), close: async () => {} },
        // The working session sends a message every 150 ms; the per-address message limit is not under test.
        {
          SMTP_SOCKET_TIMEOUT_SECONDS: '2',
          RATE_LIMIT_SMTP_PER_IP: '100000',
          RATE_LIMIT_SMTP_INBOUND_PER_WORKSPACE: '100000',
        },
      );
      ws = await server.workspace();
      sandbox = await ws.createSandbox({ name: 'idle' });
    });
    after(async () => {
      await server.close();
    });

    for (const mode of ['submission', 'inbound'] as const) {
      it(`${mode}: a session that only sends NOOP is closed with 421 at the timeout; one that keeps sending mail stays open`, async () => {
        const port = mode === 'submission' ? server.ports.smtp : (server.ports.smtpInbound as number);
        const open = async () => {
          if (mode === 'submission') return authedWire(port, sandbox);
          const wire = await Wire.open(port);
          assert.equal((await wire.command('EHLO raw.test')).code, 250);
          return wire;
        };
        const rcpt = mode === 'submission' ? 'user@example.com' : inboxOf(sandbox);
        const idle = await open();
        const working = await open();
        try {
          // NOOP resets smtp-server's own idle timer at every command; only progress counts here.
          // (150 NOOPs 100 ms apart span many timeouts.)
          let idleEnd: Reply | 'closed' | undefined;
          let noopsDone = false;
          let sent = 0;
          const noops = (async () => {
            for (let i = 0; i < 150 && idleEnd === undefined; i++) {
              const r = await idle.command('NOOP').catch(() => 'closed' as const);
              if (r === 'closed' || r.code !== 250) idleEnd = r;
              else await sleep(100);
            }
            noopsDone = true;
          })();
          const mails = (async () => {
            while (!noopsDone) {
              const r = await wireSend(working, 'app@example.com', [rcpt], `working ${mode} ${++sent}`);
              assert.equal(r.code, 250, r.text);
              await sleep(150);
            }
          })();
          await Promise.all([noops, mails]);
          assert.ok(idleEnd !== undefined, 'the NOOP-only session was closed');
          assert.ok(idleEnd !== 'closed', 'with a reply before the close');
          assert.equal(idleEnd.code, 421, idleEnd.text);
          assert.ok(await idle.waitClosed(10_000), 'the server closed the idle connection');
          assert.ok(sent >= 2, 'the working session sent mail all along');

          // The working session outlived it and still sends.
          assert.equal(working.closed, false);
          const last = await wireSend(working, 'app@example.com', [rcpt], `working ${mode} last`);
          assert.equal(last.code, 250, last.text);
          const subjects = (await listMessages(ws, sandbox.id, '?limit=200')).map((m) => m.subject);
          assert.ok(subjects.includes(`working ${mode} last`));
        } finally {
          idle.close();
          working.close();
        }
      });
    }

    it('a session that never sends anything is closed at the timeout too (smtp-server’s own idle close)', async () => {
      const wire = await Wire.open(server.ports.smtpInbound as number);
      assert.ok(await wire.waitClosed(15_000), 'closed');
    });
  });

  describe('recipients per transaction', () => {
    let server: TestServer;
    let ws: TestServerWorkspace;
    let sandbox: Sandbox;
    before(async () => {
      server = await startWithInbound({ ...getStore(), close: async () => {} });
      ws = await server.workspace();
      sandbox = await ws.createSandbox({ name: 'rcpts' });
    });
    after(async () => {
      await server.close();
    });

    for (const mode of ['submission', 'inbound'] as const) {
      it(`${mode}: the 101st RCPT is 452 4.5.3, a repeated one is still 250, and the message reaches the first 100`, async () => {
        const port = mode === 'submission' ? server.ports.smtp : (server.ports.smtpInbound as number);
        const wire =
          mode === 'submission'
            ? await authedWire(port, sandbox)
            : await Wire.open(port).then(async (w) => {
                assert.equal((await w.command('EHLO raw.test')).code, 250);
                return w;
              });
        const rcptOf = (i: number) =>
          mode === 'submission' ? `r${i}@example.com` : inboxOf(sandbox, `r${i}-${mode}`);
        try {
          assert.equal((await wire.command('MAIL FROM:<app@example.com>')).code, 250);
          for (let i = 1; i <= 100; i++) {
            const r = await wire.command(`RCPT TO:<${rcptOf(i)}>`);
            assert.equal(r.code, 250, `recipient ${i}: ${r.text}`);
          }
          const over = await wire.command(`RCPT TO:<${rcptOf(101)}>`);
          assert.equal(over.code, 452, over.text);
          assert.match(over.text, /^4\.5\.3 Too many recipients/);
          const repeated = await wire.command(`RCPT TO:<${rcptOf(7).toUpperCase()}>`);
          assert.equal(repeated.code, 250, 'a recipient already accepted does not count again');
          assert.equal((await wire.command('DATA')).code, 354);
          wire.write(`Subject: hundred ${mode}\r\n\r\nx\r\n.\r\n`);
          assert.equal((await wire.read(30_000)).code, 250);
          // A new transaction on the same session starts from zero.
          assert.equal((await wire.command('MAIL FROM:<app@example.com>')).code, 250);
          assert.equal((await wire.command(`RCPT TO:<${rcptOf(101)}>`)).code, 250);
          assert.equal((await wire.command('RSET')).code, 250);
        } finally {
          wire.close();
        }
        const message = (await listMessages(ws, sandbox.id, '?limit=200')).find(
          (m) => m.subject === `hundred ${mode}`,
        );
        assert.ok(message !== undefined);
        const res = await ws.api(`/sandboxes/${sandbox.id}/messages/${message.id}`);
        const detail = (await res.json()) as { capturedFor: string[] };
        assert.equal(detail.capturedFor.length, 100);
        assert.ok(!detail.capturedFor.includes(rcptOf(101)));
      });
    }

    it('nodemailer with 101 recipients: 100 accepted, the 101st reported rejected', async () => {
      const to = Array.from({ length: 101 }, (_, i) => `n${i + 1}@example.com`);
      const info = await sandboxTransport(server.ports.smtp, sandbox).sendMail({
        from: 'app@example.com',
        to,
        subject: 'nodemailer 101',
        text: 'x',
      });
      assert.equal(info.accepted.length, 100);
      assert.deepEqual(info.rejected, ['n101@example.com']);
    });
  });

  describe('anonymous inbound has its own budget (RATE_LIMIT_SMTP_INBOUND_PER_WORKSPACE=3, RATE_LIMIT_SMTP_PER_WORKSPACE=5)', () => {
    let server: TestServer;
    before(async () => {
      server = await startWithInbound(await backend.open(), {
        RATE_LIMIT_SMTP_INBOUND_PER_WORKSPACE: '3',
        RATE_LIMIT_SMTP_PER_WORKSPACE: '5',
      });
    });
    after(async () => {
      await server.close();
    });

    it('a stranger over the inbound share gets 421 4.7.0 while the workspace’s app still gets 250 on submission', async () => {
      const ws = await server.workspace();
      const sandbox = await ws.createSandbox({ name: 'budget' });
      const stranger = inboundFrom(server.ports.smtpInbound as number, OTHER);
      const app = sandboxTransport(server.ports.smtp, sandbox);
      const inbound = (subject: string) =>
        stranger.sendMail({ from: 'x@stranger.test', to: inboxOf(sandbox), subject, text: 'x' });
      const submit = (subject: string) =>
        app.sendMail({ from: 'app@example.com', to: 'user@example.com', subject, text: 'x' });

      for (let i = 1; i <= 3; i++) await inbound(`stranger ${i}`);
      const over = await refusal(inbound('stranger 4'));
      assert.equal(over.responseCode, 421, over.response);
      assert.match(over.response, /^421 4\.7\.0 /);

      // The workspace's own budget on the submission port is whole: 5 messages.
      for (let i = 1; i <= 5; i++) await submit(`app ${i}`);
      const own = await refusal(submit('app 6'));
      assert.equal(own.responseCode, 421, 'the submission budget is its own, and still enforced');
      // and the stranger is still refused
      assert.equal((await refusal(inbound('stranger 5'))).responseCode, 421);

      const subjects = (await listMessages(ws, sandbox.id, '?limit=50')).map((m) => m.subject).sort();
      assert.deepEqual(subjects, [
        'app 1',
        'app 2',
        'app 3',
        'app 4',
        'app 5',
        'stranger 1',
        'stranger 2',
        'stranger 3',
      ]);
      assert.equal(server.core.config.limits.smtpInboundPerWorkspace, 3);
    });

    it('the defaults: 300 per workspace for inbound, 600 for submission', async () => {
      const { loadConfig } = await import('../../src/core/config.ts');
      const config = loadConfig({});
      assert.equal(config.limits.smtpInboundPerWorkspace, 300);
      assert.equal(config.limits.smtpPerWorkspace, 600);
    });
  });
});
