// SMTP inbound listener (SMTP_INBOUND_PORT): no AUTH; a recipient is accepted only when its domain is
// `<sandbox id>.<CAPTURE_DOMAIN>` of a live sandbox (else 550 5.1.1 at RCPT); one message for several
// sandboxes is stored once per sandbox with only its own recipients in capturedFor; rate limits, store
// failures and bad input. Clients: nodemailer, Python smtplib (test/helpers/smtplib_send.py), a raw socket.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { components } from '../../openapi/schema.d.ts';
import type { Store } from '../../src/core/store/openStore.ts';
import {
  inboundTransport,
  listMessages,
  messageDetail,
  onlyMessage,
  rawOf,
  refusal,
} from '../helpers/mail.ts';
import { freePort } from '../helpers/process.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { smtplib } from '../helpers/smtplib.ts';
import { plainAuth, Wire, type Reply } from '../helpers/smtpWire.ts';
import { describeEachStore, type StoreBackend } from '../helpers/stores.ts';

type MessageSummary = components['schemas']['MessageSummary'];
type Sandbox = Record<string, any>;

const MAX_BYTES = 10 * 1024 * 1024;
const DOMAIN = 'capture.localhost';

const addr = (local: string, sandbox: Sandbox) => `${local}@${sandbox.id}.${DOMAIN}`;

/** MAIL, RCPT..., DATA, message over a raw session: the replies to RCPT and the final reply. */
async function wireSend(
  wire: Wire,
  from: string,
  rcpts: string[],
  raw: string | Buffer,
): Promise<{ mail: Reply; rcpts: Reply[]; final: Reply | undefined }> {
  const mail = await wire.command(`MAIL FROM:<${from}>`);
  if (mail.code !== 250) return { mail, rcpts: [], final: undefined };
  const replies: Reply[] = [];
  for (const rcpt of rcpts) replies.push(await wire.command(`RCPT TO:<${rcpt}>`));
  if (!replies.some((r) => r.code === 250)) return { mail, rcpts: replies, final: undefined };
  const data = await wire.command('DATA');
  assert.equal(data.code, 354, data.text);
  wire.write(raw);
  wire.write('.\r\n');
  return { mail, rcpts: replies, final: await wire.read(30_000) };
}

async function openWire(port: number): Promise<Wire> {
  const wire = await Wire.open(port);
  assert.equal((await wire.command('EHLO raw.test')).code, 250);
  return wire;
}

/**
 * startTestServer with the inbound listener on, offering STARTTLS (SMTP_INBOUND_STARTTLS=on) so clients that
 * upgrade are covered too; the plain default is catchAll.test.ts's.
 */
async function startWithInbound(store: Store, env: Record<string, string> = {}): Promise<TestServer> {
  const server = await startTestServer(store, {
    SMTP_INBOUND_PORT: String(await freePort()),
    SMTP_INBOUND_STARTTLS: 'on',
    ...env,
  });
  assert.ok(server.ports.smtpInbound !== null, 'the inbound listener is on');
  return server;
}

describeEachStore('SMTP inbound listener', (getStore, backend: StoreBackend) => {
  describe('routing by recipient domain', () => {
    let store: Store;
    let server: TestServer;
    let port: number;
    before(async () => {
      store = getStore(); // closing it twice (server, then describeEachStore) is harmless
      server = await startWithInbound(store);
      port = server.ports.smtpInbound as number;
    });
    after(async () => {
      await server.close();
    });

    async function fresh(body?: Record<string, unknown>) {
      const ws = await server.workspace();
      return { ws, sandbox: await ws.createSandbox(body) };
    }

    it('offers no AUTH (the command is refused), advertises SIZE 10485760 and STARTTLS', async () => {
      const { sandbox } = await fresh();
      assert.equal(sandbox.emailDomain, `${sandbox.id}.${DOMAIN}`);
      const wire = await Wire.open(port);
      try {
        const ehlo = await wire.command('EHLO raw.test');
        assert.equal(ehlo.code, 250);
        const features = ehlo.lines.map((l) => l.slice(4));
        assert.ok(features.includes(`SIZE ${MAX_BYTES}`), ehlo.text);
        assert.ok(features.includes('STARTTLS'), ehlo.text);
        assert.ok(!features.some((f) => f.startsWith('AUTH')), ehlo.text);
        const auth = await wire.command(
          `AUTH PLAIN ${plainAuth(sandbox.smtpUsername, sandbox.smtpPassword)}`,
        );
        assert.ok(auth.code === 500 || auth.code === 502, auth.text);
        await wire.startTls();
        const secure = await wire.command('EHLO raw.test');
        assert.ok(!secure.lines.some((l) => l.slice(4).startsWith('AUTH')), secure.text);
        // no AUTH needed: a transaction goes straight through
        const sent = await wireSend(
          wire,
          'a@sender.test',
          [addr('tls', sandbox)],
          'Subject: over tls\r\n\r\nx\r\n',
        );
        assert.equal(sent.final?.code, 250, sent.final?.text);
      } finally {
        wire.close();
      }
    });

    it('smtplib without TLS or AUTH: a sandbox-domain recipient is accepted and readable right after 250', async () => {
      const { ws, sandbox } = await fresh();
      const to = addr('inbox', sandbox);
      const result = await smtplib({
        port,
        mail_from: 'noreply@shop.test',
        rcpt_to: [to],
        subject: 'Welcome to the shop',
        body: 'Your verification code is 482913',
      });
      assert.deepEqual(result, { ok: true });
      const items = await listMessages(ws, sandbox.id);
      assert.equal(items.length, 1);
      const m = items[0] as MessageSummary;
      assert.equal(m.subject, 'Welcome to the shop');
      assert.equal(m.from, 'noreply@shop.test');
      assert.deepEqual(m.to, [to]);
      assert.deepEqual(m.capturedFor, [to]);
      assert.equal(m.preview, 'Your verification code is 482913');
    });

    it('smtplib with STARTTLS (still no AUTH) is accepted too', async () => {
      const { ws, sandbox } = await fresh();
      const result = await smtplib({
        port,
        starttls: true,
        mail_from: 'noreply@shop.test',
        rcpt_to: [addr('secure', sandbox)],
        subject: 'over starttls',
        body: 'x',
      });
      assert.deepEqual(result, { ok: true });
      assert.deepEqual((await onlyMessage(ws, sandbox.id)).capturedFor, [addr('secure', sandbox)]);
    });

    it('smtplib: a recipient outside any sandbox domain is refused with 550 5.1.1 at RCPT', async () => {
      const { ws, sandbox } = await fresh();
      const result = await smtplib({
        port,
        mail_from: 'a@sender.test',
        rcpt_to: ['someone@example.com'],
        subject: 'nobody home',
        body: 'x',
      });
      assert.ok(!result.ok);
      assert.equal(result.stage, 'send');
      assert.equal(result.code, 550);
      assert.match(result.message, /^5\.1\.1 /);
      assert.deepEqual(await listMessages(ws, sandbox.id), []);
    });

    it('refuses every address that is not <anything>@<live sandbox id>.capture.localhost', async () => {
      const { ws, sandbox } = await fresh();
      const refused = [
        'a@example.com',
        `a@${randomUUID()}.${DOMAIN}`, // no such sandbox
        `a@${DOMAIN}`,
        `a@not-a-uuid.${DOMAIN}`,
        `a@sub.${sandbox.id}.${DOMAIN}`,
        `a@${sandbox.id}.capture.example`,
        `a@${sandbox.id}`,
        `a@${sandbox.id}.${DOMAIN}.evil.test`,
        `${sandbox.id}.${DOMAIN}@example.com`,
        'postmaster',
      ];
      const wire = await openWire(port);
      try {
        assert.equal((await wire.command('MAIL FROM:<a@sender.test>')).code, 250);
        for (const rcpt of refused) {
          const r = await wire.command(`RCPT TO:<${rcpt}>`);
          assert.equal(r.code, 550, `${rcpt}: ${r.text}`);
          assert.match(r.text, /^5\.1\.1 /, rcpt);
        }
        // the same session still accepts a real one
        assert.equal((await wire.command(`RCPT TO:<${addr('real', sandbox)}>`)).code, 250);
        assert.equal((await wire.command('DATA')).code, 354);
        wire.write('Subject: after refusals\r\n\r\nx\r\n.\r\n');
        assert.equal((await wire.read()).code, 250);
      } finally {
        wire.close();
      }
      const m = await onlyMessage(ws, sandbox.id);
      assert.deepEqual(m.capturedFor, [addr('real', sandbox)]);
    });

    it('the sandbox domain matches case-insensitively; capturedFor keeps the address as sent', async () => {
      const { ws, sandbox } = await fresh();
      const shouty = `Inbox@${sandbox.id.toUpperCase()}.CAPTURE.LOCALHOST`;
      const wire = await openWire(port);
      try {
        const sent = await wireSend(wire, 'a@sender.test', [shouty], 'Subject: shouting\r\n\r\nx\r\n');
        assert.equal(sent.rcpts[0]?.code, 250, sent.rcpts[0]?.text);
        assert.equal(sent.final?.code, 250);
      } finally {
        wire.close();
      }
      const m = await onlyMessage(ws, sandbox.id);
      assert.deepEqual(m.capturedFor, [shouty]);
      assert.equal(
        (await listMessages(ws, sandbox.id, `?capturedFor=${encodeURIComponent(shouty.toLowerCase())}`))
          .length,
        1,
      );
    });

    it('a recipient given twice (in different case) is captured once; a null sender (bounce) is accepted', async () => {
      const { ws, sandbox } = await fresh();
      const wire = await openWire(port);
      try {
        const sent = await wireSend(
          wire,
          '',
          [addr('dup', sandbox), addr('DUP', sandbox)],
          'Subject: bounce\r\nContent-Type: text/plain\r\n\r\nDelivery failed\r\n',
        );
        assert.deepEqual(
          sent.rcpts.map((r) => r.code),
          [250, 250],
        );
        assert.equal(sent.final?.code, 250, sent.final?.text);
      } finally {
        wire.close();
      }
      const m = await onlyMessage(ws, sandbox.id);
      assert.equal(m.subject, 'bounce');
      assert.equal(m.capturedFor.length, 1);
      assert.equal(m.capturedFor[0]?.toLowerCase(), addr('dup', sandbox).toLowerCase());
    });

    it('one message for several sandboxes (two workspaces) is stored once per sandbox with its own recipients; unknown ones are refused', async () => {
      const ws1 = await server.workspace();
      const a = await ws1.createSandbox({ name: 'a' });
      const b = await ws1.createSandbox({ name: 'b' });
      const ws2 = await server.workspace();
      const c = await ws2.createSandbox({ name: 'c' });
      const ghost = `ghost@${randomUUID()}.${DOMAIN}`;
      const t = inboundTransport(port);
      const info = await t.sendMail({
        envelope: {
          from: 'news@sender.test',
          to: [addr('one', a), 'nobody@example.com', addr('two', a), addr('bee', b), ghost, addr('sea', c)],
        },
        from: 'News <news@sender.test>',
        to: `${addr('one', a)}, ${addr('bee', b)}`,
        subject: 'Fan-out',
        text: 'same message for everyone',
      });
      t.close();
      assert.deepEqual(info.accepted, [addr('one', a), addr('two', a), addr('bee', b), addr('sea', c)]);
      assert.deepEqual(info.rejected, ['nobody@example.com', ghost]);
      const rejectedErrors = (
        info as unknown as { rejectedErrors: Array<{ responseCode: number; response: string }> }
      ).rejectedErrors;
      assert.deepEqual(
        rejectedErrors.map((e) => e.responseCode),
        [550, 550],
      );
      for (const e of rejectedErrors) assert.match(e.response, /^550 5\.1\.1 /);

      const ma = await onlyMessage(ws1, a.id);
      const mb = await onlyMessage(ws1, b.id);
      const mc = await onlyMessage(ws2, c.id);
      assert.deepEqual(ma.capturedFor, [addr('one', a), addr('two', a)]);
      assert.deepEqual(mb.capturedFor, [addr('bee', b)]);
      assert.deepEqual(mc.capturedFor, [addr('sea', c)]);
      for (const m of [ma, mb, mc]) {
        assert.equal(m.subject, 'Fan-out');
        assert.equal(m.from, 'News <news@sender.test>');
        assert.deepEqual(m.to, [addr('one', a), addr('bee', b)]);
        assert.equal(m.textBody?.trimEnd(), 'same message for everyone');
      }
      assert.equal(new Set([ma.id, mb.id, mc.id]).size, 3);
      const raws = await Promise.all([
        rawOf(ws1, a.id, ma.id),
        rawOf(ws1, b.id, mb.id),
        rawOf(ws2, c.id, mc.id),
      ]);
      assert.deepEqual(raws[1], raws[0]);
      assert.deepEqual(raws[2], raws[0]);
      assert.equal(ma.sizeBytes, raws[0]?.length);
      // no cross-workspace reads: ws2 cannot see sandbox a
      assert.equal((await ws2.api(`/sandboxes/${a.id}/messages`)).status, 404);
    });

    it('a Bcc recipient is in capturedFor only, never in to, and no Bcc header is stored', async () => {
      const ws = await server.workspace();
      const seen = await ws.createSandbox({ name: 'seen' });
      const hidden = await ws.createSandbox({ name: 'hidden' });
      const t = inboundTransport(port);
      await t.sendMail({
        from: 'a@sender.test',
        to: addr('visible', seen),
        bcc: addr('secret', hidden),
        subject: 'with bcc',
        text: 'x',
      });
      t.close();
      const mh = await onlyMessage(ws, hidden.id);
      assert.deepEqual(mh.capturedFor, [addr('secret', hidden)]);
      assert.deepEqual(mh.to, [addr('visible', seen)]);
      assert.deepEqual(
        mh.headers.filter((h) => h.name.toLowerCase() === 'bcc'),
        [],
      );
      const ms = await onlyMessage(ws, seen.id);
      assert.deepEqual(ms.capturedFor, [addr('visible', seen)]);
      assert.ok(!JSON.stringify(ms).includes('secret@'), 'the Bcc address appears nowhere in the other copy');
    });

    it('a deleted sandbox is refused at RCPT at once (550 5.1.1)', async () => {
      const { ws, sandbox } = await fresh();
      const t = inboundTransport(port);
      await t.sendMail({ from: 'a@s.test', to: addr('x', sandbox), subject: 'before delete', text: 'x' });
      assert.equal((await ws.api(`/sandboxes/${sandbox.id}`, { method: 'DELETE' })).status, 204);
      const err = await refusal(
        t.sendMail({ from: 'a@s.test', to: addr('x', sandbox), subject: 'after delete', text: 'x' }),
      );
      t.close();
      assert.equal(err.responseCode, 550);
      assert.match(err.response, /^550 5\.1\.1 /);
      const left = await store.db
        .selectFrom('messages')
        .select('id')
        .where('sandbox_id', '=', sandbox.id)
        .execute();
      assert.deepEqual(left, []);
    });

    it('an expired ephemeral sandbox is refused at RCPT at once (550 5.1.1)', async () => {
      const { sandbox } = await fresh({ name: 'short', ephemeral: true, ttlMinutes: 1 });
      const beforeExpiry = await smtplib({
        port,
        mail_from: 'a@s.test',
        rcpt_to: [addr('x', sandbox)],
        subject: 's',
        body: 'x',
      });
      assert.deepEqual(beforeExpiry, { ok: true });
      server.clock.advance(61_000);
      const result = await smtplib({
        port,
        mail_from: 'a@s.test',
        rcpt_to: [addr('x', sandbox)],
        subject: 'after expiry',
        body: 'x',
      });
      assert.ok(!result.ok);
      assert.equal(result.code, 550);
      assert.match(result.message, /^5\.1\.1 /);
    });

    it('a sandbox deleted between RCPT and the end of DATA gets nothing; the other recipients still do', async () => {
      const ws = await server.workspace();
      const stays = await ws.createSandbox({ name: 'stays' });
      const goes = await ws.createSandbox({ name: 'goes' });
      const wire = await openWire(port);
      try {
        assert.equal((await wire.command('MAIL FROM:<a@sender.test>')).code, 250);
        assert.equal((await wire.command(`RCPT TO:<${addr('s', stays)}>`)).code, 250);
        assert.equal((await wire.command(`RCPT TO:<${addr('g', goes)}>`)).code, 250);
        assert.equal((await wire.command('DATA')).code, 354);
        assert.equal((await ws.api(`/sandboxes/${goes.id}`, { method: 'DELETE' })).status, 204);
        wire.write('Subject: half gone\r\n\r\nx\r\n.\r\n');
        assert.equal((await wire.read()).code, 250);
        const kept = await onlyMessage(ws, stays.id);
        assert.equal(kept.subject, 'half gone');
        assert.deepEqual(kept.capturedFor, [addr('s', stays)]);
        // every recipient's sandbox gone: 550 5.7.1 and nothing kept
        assert.equal((await wire.command('MAIL FROM:<a@sender.test>')).code, 250);
        assert.equal((await wire.command(`RCPT TO:<${addr('s', stays)}>`)).code, 250);
        assert.equal((await wire.command('DATA')).code, 354);
        assert.equal((await ws.api(`/sandboxes/${stays.id}`, { method: 'DELETE' })).status, 204);
        wire.write('Subject: all gone\r\n\r\nx\r\n.\r\n');
        const gone = await wire.read();
        assert.equal(gone.code, 550, gone.text);
        assert.match(gone.text, /^5\.7\.1 /);
      } finally {
        wire.close();
      }
      const rows = await store.db
        .selectFrom('messages')
        .select('id')
        .where('sandbox_id', 'in', [stays.id, goes.id])
        .execute();
      assert.deepEqual(rows, []);
    });

    it('a store failure answers 451 4.3.0 and keeps nothing for any sandbox; the next send is stored', async () => {
      const ws = await server.workspace();
      const a = await ws.createSandbox({ name: 'a' });
      const b = await ws.createSandbox({ name: 'b' });
      const t = inboundTransport(port);
      await sql`alter table messages add constraint t_fail check (size_bytes < 0) not valid`.execute(
        store.db,
      );
      try {
        const err = await refusal(
          t.sendMail({ from: 'a@s.test', to: [addr('x', a), addr('y', b)], subject: 'fails', text: 'x' }),
        );
        assert.equal(err.responseCode, 451);
        assert.match(err.response, /^451 4\.3\.0 /);
      } finally {
        await sql`alter table messages drop constraint t_fail`.execute(store.db);
      }
      assert.deepEqual(await listMessages(ws, a.id), []);
      assert.deepEqual(await listMessages(ws, b.id), []);
      await t.sendMail({ from: 'a@s.test', to: [addr('x', a), addr('y', b)], subject: 'works', text: 'x' });
      t.close();
      assert.equal((await onlyMessage(ws, a.id)).subject, 'works');
      assert.equal((await onlyMessage(ws, b.id)).subject, 'works');
    });

    it('SIZE over 10 MB on MAIL is refused with 552; RCPT with a bad address is 501', async () => {
      const { ws, sandbox } = await fresh();
      const wire = await openWire(port);
      try {
        const big = await wire.command(`MAIL FROM:<a@sender.test> SIZE=${MAX_BYTES + 1}`);
        assert.equal(big.code, 552, big.text);
        assert.equal((await wire.command(`MAIL FROM:<a@sender.test> SIZE=${MAX_BYTES}`)).code, 250);
        for (const bad of ['RCPT TO:<no at sign>', 'RCPT TO:<a@b@c>', 'RCPT TO:<>']) {
          const r = await wire.command(bad);
          assert.equal(r.code, 501, `${bad}: ${r.text}`);
        }
        assert.equal((await wire.command(`RCPT TO:<${addr('ok', sandbox)}>`)).code, 250);
        assert.equal((await wire.command('DATA')).code, 354);
        wire.write('Subject: fits\r\n\r\nx\r\n.\r\n');
        assert.equal((await wire.read()).code, 250);
      } finally {
        wire.close();
      }
      assert.equal((await onlyMessage(ws, sandbox.id)).subject, 'fits');
    });

    it('malformed MIME (no boundary, NUL bytes, 8-bit junk) is stored and the listener keeps serving', async () => {
      const { ws, sandbox } = await fresh();
      const to = addr('bad', sandbox);
      const noBoundary =
        `From: bad@sender.test\r\nTo: ${to}\r\nSubject: no boundary\r\nContent-Type: multipart/mixed\r\n\r\n` +
        '--x\r\nContent-Type: text/html\r\n\r\n<p>hello</p>\r\n--x--\r\n';
      const withNul = `From: nul@sender.test\r\nSubject: nul\0inside\r\n\r\nbefore\0after\r\n`;
      const junk = Buffer.concat([
        Buffer.from('Subject: junk\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n'),
        Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82, 0x80, 0x01, 0x7f, 0x0d, 0x0a]),
      ]);
      const wire = await openWire(port);
      try {
        for (const raw of [noBoundary, withNul, junk]) {
          const sent = await wireSend(wire, 'bad@sender.test', [to], raw);
          assert.equal(sent.final?.code, 250, sent.final?.text);
        }
      } finally {
        wire.close();
      }
      const items = await listMessages(ws, sandbox.id);
      assert.deepEqual(items.map((m) => m.subject).sort(), ['junk', 'no boundary', 'nulinside']);
      const bySubject = new Map(items.map((m) => [m.subject, m]));
      const nb = bySubject.get('no boundary') as MessageSummary;
      assert.deepEqual(nb.to, [to]);
      assert.deepEqual(await rawOf(ws, sandbox.id, nb.id), Buffer.from(noBoundary));
      const nul = await messageDetail(ws, sandbox.id, (bySubject.get('nulinside') as MessageSummary).id);
      assert.equal(nul.textBody?.trim(), 'beforeafter');
      assert.equal(nul.from, 'nul@sender.test');
      const j = bySubject.get('junk') as MessageSummary;
      assert.deepEqual(await rawOf(ws, sandbox.id, j.id), junk);
      assert.equal(j.from, 'bad@sender.test'); // no From header: the envelope sender

      const stillUp = await smtplib({
        port,
        mail_from: 'a@s.test',
        rcpt_to: [to],
        subject: 'still up',
        body: 'x',
      });
      assert.deepEqual(stillUp, { ok: true });
    });

    it('unknown commands get 500/502 and the session continues', async () => {
      const { ws, sandbox } = await fresh();
      const wire = await openWire(port);
      try {
        for (const cmd of ['FOO', 'XYZZY 1 2 3', 'GET / HTTP/1.0x', 'BDATX']) {
          const r = await wire.command(cmd);
          assert.ok(r.code === 500 || r.code === 502, `${cmd}: ${r.text}`);
        }
        const sent = await wireSend(
          wire,
          'a@sender.test',
          [addr('x', sandbox)],
          'Subject: after junk\r\n\r\nx\r\n',
        );
        assert.equal(sent.final?.code, 250);
      } finally {
        wire.close();
      }
      assert.equal((await onlyMessage(ws, sandbox.id)).subject, 'after junk');
    });

    it('pipelining abuse: commands before the greeting get 421, MAIL before EHLO gets 503, a one-write transaction works', async () => {
      const { ws, sandbox } = await fresh();
      const early = await Wire.connect(port);
      try {
        early.write(
          `EHLO x\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<${addr('early', sandbox)}>\r\nDATA\r\nSubject: early\r\n\r\nx\r\n.\r\n`,
        );
        const r = await early.read();
        assert.equal(r.code, 421, r.text);
        assert.equal(await early.waitClosed(), true);
      } finally {
        early.close();
      }

      const wire = await Wire.open(port);
      try {
        const mail = await wire.command('MAIL FROM:<a@sender.test>');
        assert.equal(mail.code, 503, mail.text);
        const rcpt = await wire.command(`RCPT TO:<${addr('x', sandbox)}>`);
        assert.ok(rcpt.code >= 500, rcpt.text);
        wire.write(
          `EHLO raw.test\r\nMAIL FROM:<pipe@sender.test>\r\nRCPT TO:<${addr('one', sandbox)}>\r\n` +
            `RCPT TO:<nobody@example.com>\r\nRCPT TO:<${addr('two', sandbox)}>\r\nDATA\r\n` +
            'Subject: one write\r\n\r\nall at once\r\n.\r\nNOOP\r\nQUIT\r\n',
        );
        const codes = [];
        for (let i = 0; i < 9; i++) codes.push((await wire.read()).code);
        assert.deepEqual(codes, [250, 250, 250, 550, 250, 354, 250, 250, 221]);
      } finally {
        wire.close();
      }
      const m = await onlyMessage(ws, sandbox.id);
      assert.equal(m.subject, 'one write');
      assert.deepEqual(m.capturedFor, [addr('one', sandbox), addr('two', sandbox)]);
    });

    it('a client sending garbage does not crash the server: the next client gets 250', async () => {
      const { ws, sandbox } = await fresh();
      const junk = Buffer.alloc(5000);
      for (let i = 0; i < junk.length; i++) junk[i] = (i * 53 + 3) % 256;
      const a = await Wire.open(port);
      a.write(junk);
      a.write(`\r\n${'\0'.repeat(100)}\r\n${'y'.repeat(70_000)}\r\n`);
      await a.waitClosed(1000);
      a.close();
      const b = await Wire.open(port);
      await b.command('EHLO raw.test');
      assert.equal((await b.command('STARTTLS')).code, 220);
      b.write(junk); // no TLS handshake
      await b.waitClosed(2000);
      b.close();
      const c = await Wire.connect(port);
      c.close();

      const result = await smtplib({
        port,
        mail_from: 'a@sender.test',
        rcpt_to: [addr('x', sandbox)],
        subject: 'after garbage',
        body: 'x',
      });
      assert.deepEqual(result, { ok: true });
      assert.equal((await onlyMessage(ws, sandbox.id)).subject, 'after garbage');
    });
  });

  describe('rate limits (RATE_LIMIT_SMTP_INBOUND_PER_WORKSPACE=2, RATE_LIMIT_SMTP_PER_IP=5)', () => {
    let server: TestServer;
    before(async () => {
      server = await startWithInbound(await backend.open(), {
        RATE_LIMIT_SMTP_INBOUND_PER_WORKSPACE: '2',
        RATE_LIMIT_SMTP_PER_IP: '5',
      });
    });
    after(async () => {
      await server.close();
    });

    it('a workspace over its limit gets 421 4.7.0 at RCPT, counted once per message; the IP limit gives 421 at MAIL', async () => {
      const port = server.ports.smtpInbound as number;
      const ws1 = await server.workspace();
      const a = await ws1.createSandbox({ name: 'a' });
      const b = await ws1.createSandbox({ name: 'b' });
      const ws2 = await server.workspace();
      const c = await ws2.createSandbox({ name: 'c' });
      const ws3 = await server.workspace();
      const d = await ws3.createSandbox({ name: 'd' });
      const send = async (rcpts: string[], subject: string) => {
        const wire = await openWire(port);
        try {
          return await wireSend(wire, 'a@sender.test', rcpts, `Subject: ${subject}\r\n\r\nx\r\n`);
        } finally {
          wire.close();
        }
      };
      // ws1: one message for two of its sandboxes counts once, so a second message still fits.
      assert.equal((await send([addr('x', a), addr('y', b)], 'm1')).final?.code, 250);
      assert.equal((await send([addr('x', a)], 'm2')).final?.code, 250);
      const third = await send([addr('y', b)], 'm3');
      assert.equal(third.mail.code, 250);
      assert.equal(third.rcpts[0]?.code, 421, third.rcpts[0]?.text);
      assert.match(third.rcpts[0]?.text ?? '', /^4\.7\.0 /);
      assert.equal(third.final, undefined);
      // another workspace is unaffected
      assert.equal((await send([addr('z', c)], 'm4')).final?.code, 250);
      assert.equal((await send([addr('z', c)], 'm5')).final?.code, 250);
      // 5 MAILs from this IP so far: the 6th is refused at MAIL, for a workspace that has sent nothing
      const sixth = await send([addr('w', d)], 'm6');
      assert.equal(sixth.mail.code, 421, sixth.mail.text);
      assert.match(sixth.mail.text, /^4\.7\.0 /);

      assert.deepEqual((await listMessages(ws1, a.id)).map((m) => m.subject).sort(), ['m1', 'm2']);
      assert.deepEqual(
        (await listMessages(ws1, b.id)).map((m) => m.subject),
        ['m1'],
      );
      assert.deepEqual((await listMessages(ws2, c.id)).map((m) => m.subject).sort(), ['m4', 'm5']);
      assert.deepEqual(await listMessages(ws3, d.id), []);
    });
  });
});
