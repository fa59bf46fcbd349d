// SMTP submission listener (SMTP_PORT): STARTTLS before AUTH, AUTH PLAIN/LOGIN with the sandbox id and its
// smtpPassword, SIZE advertised and enforced, failed-AUTH caps per connection and per IP, any valid recipient,
// credentials of deleted/expired sandboxes, To vs capturedFor, rate limits, store failures, bad input.
// Clients: nodemailer, Python smtplib (test/helpers/smtplib_send.py) and a raw socket for protocol details.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { components } from '../../openapi/schema.d.ts';
import type { Store } from '../../src/core/store/openStore.ts';
import { listMessages, onlyMessage, rawOf, refusal, sandboxTransport as transport } from '../helpers/mail.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { smtplib, smtplibLarge } from '../helpers/smtplib.ts';
import { authedWire, plainAuth, Wire, type Reply } from '../helpers/smtpWire.ts';
import { describeEachStore, type StoreBackend } from '../helpers/stores.ts';

type MessageSummary = components['schemas']['MessageSummary'];
type MessageDetail = components['schemas']['MessageDetail'];
type Sandbox = Record<string, any>;

const MAX_BYTES = 10 * 1024 * 1024;

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** MAIL, RCPT..., DATA, message: the final reply (or the first refusal). */
async function wireSend(wire: Wire, from: string, rcpts: string[], raw: string | Buffer): Promise<Reply> {
  const mail = await wire.command(`MAIL FROM:<${from}>`);
  if (mail.code !== 250) return mail;
  for (const rcpt of rcpts) {
    const r = await wire.command(`RCPT TO:<${rcpt}>`);
    if (r.code !== 250) return r;
  }
  const data = await wire.command('DATA');
  assert.equal(data.code, 354, data.text);
  wire.write(raw);
  wire.write('.\r\n');
  return wire.read(30_000);
}

/** A message of exactly `total` bytes (headers, CRLF lines of 'a', a final CRLF). */
function sizedMessage(total: number, subject: string): Buffer {
  const head = `From: big@sender.test\r\nTo: big@rcpt.test\r\nSubject: ${subject}\r\n\r\n`;
  const buf = Buffer.alloc(total, 'a');
  buf.write(head, 0, 'latin1');
  for (let i = head.length + 76; i < total - 2; i += 78) buf.write('\r\n', i, 'latin1');
  buf.write('\r\n', total - 2, 'latin1');
  return buf;
}

describeEachStore('SMTP submission listener', (getStore, backend: StoreBackend) => {
  // Every server has its own in-memory limits, and every client here is 127.0.0.1: this suite stays under
  // 120 MAILs and under the 10 failed AUTHs per IP (smtplib tries PLAIN then LOGIN, so one smtplib login
  // with a bad credential counts twice). The limit tests get servers of their own.
  describe('protocol, auth and capture', () => {
    let store: Store;
    let server: TestServer;
    let port: number;
    before(async () => {
      store = getStore(); // closing it twice (server, then describeEachStore) is harmless
      server = await startTestServer(store);
      port = server.ports.smtp;
    });
    after(async () => {
      await server.close();
    });

    async function fresh(body?: Record<string, unknown>) {
      const ws = await server.workspace();
      return { ws, sandbox: await ws.createSandbox(body) };
    }

    it('a sandbox reports the submission listener as smtpHost/smtpPort and its id as smtpUsername', async () => {
      const { sandbox } = await fresh();
      assert.equal(sandbox.smtpUsername, sandbox.id);
      assert.equal(sandbox.smtpHost, '127.0.0.1');
      assert.equal(sandbox.smtpPort, port);
    });

    it('advertises STARTTLS and SIZE 10485760 before TLS, AUTH PLAIN LOGIN after it', async () => {
      const wire = await Wire.open(port);
      try {
        const ehlo = await wire.command('EHLO raw.test');
        assert.equal(ehlo.code, 250);
        const features = ehlo.lines.map((l) => l.slice(4));
        assert.ok(features.includes('STARTTLS'), ehlo.text);
        assert.ok(features.includes(`SIZE ${MAX_BYTES}`), ehlo.text);
        assert.ok(features.includes('PIPELINING'), ehlo.text);
        await wire.startTls();
        const secure = await wire.command('EHLO raw.test');
        const secureFeatures = secure.lines.map((l) => l.slice(4));
        assert.ok(secureFeatures.includes('AUTH PLAIN LOGIN'), secure.text);
        assert.ok(secureFeatures.includes(`SIZE ${MAX_BYTES}`), secure.text);
        assert.ok(!secureFeatures.includes('STARTTLS'), secure.text);
      } finally {
        wire.close();
      }
    });

    it('smtplib: STARTTLS + AUTH PLAIN delivers, and the message is listed as soon as 250 came back', async () => {
      const { ws, sandbox } = await fresh();
      const result = await smtplib({
        port,
        starttls: true,
        username: sandbox.smtpUsername,
        password: sandbox.smtpPassword,
        mail_from: 'app@sender.test',
        rcpt_to: ['user@example.com'],
        subject: 'Hello from smtplib',
        body: 'Your code is 123456',
      });
      assert.deepEqual(result, { ok: true });
      const items = await listMessages(ws, sandbox.id);
      assert.equal(items.length, 1);
      const m = items[0] as MessageSummary;
      assert.equal(m.subject, 'Hello from smtplib');
      assert.equal(m.from, 'app@sender.test');
      assert.deepEqual(m.to, ['user@example.com']);
      assert.deepEqual(m.capturedFor, ['user@example.com']);
      assert.equal(m.preview, 'Your code is 123456');
      assert.equal(m.isRead, false);
    });

    it('nodemailer: AUTH LOGIN and AUTH PLAIN both deliver', async () => {
      const { ws, sandbox } = await fresh();
      for (const method of ['LOGIN', 'PLAIN']) {
        const t = transport(port, sandbox, { authMethod: method });
        const info = await t.sendMail({
          from: 'Sender <sender@app.test>',
          to: 'rcpt@app.test',
          subject: `via ${method}`,
          text: `sent with AUTH ${method}`,
        });
        t.close();
        assert.match(info.response, /^250 /);
        assert.deepEqual(info.accepted, ['rcpt@app.test']);
      }
      const items = await listMessages(ws, sandbox.id);
      assert.deepEqual(items.map((m) => m.subject).sort(), ['via LOGIN', 'via PLAIN']);
      for (const m of items) assert.equal(m.from, 'Sender <sender@app.test>');
    });

    it('AUTH LOGIN and AUTH PLAIN by hand: 334 prompts, 235, then a message goes through', async () => {
      const { ws, sandbox } = await fresh();
      const wire = await Wire.open(port);
      try {
        await wire.command('EHLO raw.test');
        await wire.startTls();
        await wire.command('EHLO raw.test');
        const user = await wire.command('AUTH LOGIN');
        assert.equal(user.code, 334);
        assert.equal(Buffer.from(user.text, 'base64').toString(), 'Username:');
        const pass = await wire.command(b64(sandbox.smtpUsername));
        assert.equal(pass.code, 334);
        assert.equal(Buffer.from(pass.text, 'base64').toString(), 'Password:');
        const ok = await wire.command(b64(sandbox.smtpPassword));
        assert.equal(ok.code, 235, ok.text);
        const sent = await wireSend(
          wire,
          'raw@sender.test',
          ['raw@rcpt.test'],
          'Subject: by hand\r\nTo: raw@rcpt.test\r\n\r\nhand made\r\n',
        );
        assert.equal(sent.code, 250, sent.text);
      } finally {
        wire.close();
      }
      // AUTH PLAIN without an initial response: the credentials follow a 334.
      const wire2 = await Wire.open(port);
      try {
        await wire2.command('EHLO raw.test');
        await wire2.startTls();
        await wire2.command('EHLO raw.test');
        const prompt = await wire2.command('AUTH PLAIN');
        assert.equal(prompt.code, 334);
        const ok = await wire2.command(plainAuth(sandbox.smtpUsername, sandbox.smtpPassword));
        assert.equal(ok.code, 235, ok.text);
      } finally {
        wire2.close();
      }
      const m = await onlyMessage(ws, sandbox.id);
      assert.equal(m.subject, 'by hand');
      assert.deepEqual(m.capturedFor, ['raw@rcpt.test']);
      assert.equal(m.from, 'raw@sender.test'); // no From header: the envelope sender
    });

    it('smtplib: AUTH before STARTTLS is refused with 530 5.7.0', async () => {
      const { ws, sandbox } = await fresh();
      const result = await smtplib({
        port,
        starttls: false,
        username: sandbox.smtpUsername,
        password: sandbox.smtpPassword,
        mail_from: 'a@sender.test',
        rcpt_to: ['b@rcpt.test'],
        subject: 'plaintext',
        body: 'x',
      });
      assert.equal(result.ok, false);
      assert.ok(!result.ok);
      assert.equal(result.stage, 'auth');
      assert.equal(result.code, 530);
      assert.match(result.message, /^5\.7\.0 /);
      assert.deepEqual(await listMessages(ws, sandbox.id), []);
    });

    it('by hand: AUTH in plaintext is 530 5.7.0, MAIL without AUTH is 530 5.7.0, even after STARTTLS', async () => {
      const { sandbox } = await fresh();
      const wire = await Wire.open(port);
      try {
        await wire.command('EHLO raw.test');
        const plain = await wire.command(
          `AUTH PLAIN ${plainAuth(sandbox.smtpUsername, sandbox.smtpPassword)}`,
        );
        assert.equal(plain.code, 530);
        assert.match(plain.text, /^5\.7\.0 /);
        const mail = await wire.command('MAIL FROM:<a@sender.test>');
        assert.equal(mail.code, 530);
        assert.match(mail.text, /^5\.7\.0 /);
        await wire.startTls();
        await wire.command('EHLO raw.test');
        const mail2 = await wire.command('MAIL FROM:<a@sender.test>');
        assert.equal(mail2.code, 530);
        assert.match(mail2.text, /^5\.7\.0 /);
        // the session is still usable: AUTH now succeeds
        const ok = await wire.command(`AUTH PLAIN ${plainAuth(sandbox.smtpUsername, sandbox.smtpPassword)}`);
        assert.equal(ok.code, 235);
      } finally {
        wire.close();
      }
    });

    it('smtplib: a wrong password is 535 and nothing is stored', async () => {
      const { ws, sandbox } = await fresh();
      const result = await smtplib({
        port,
        starttls: true,
        username: sandbox.smtpUsername,
        password: `${sandbox.smtpPassword}x`,
        mail_from: 'a@sender.test',
        rcpt_to: ['b@rcpt.test'],
        subject: 'wrong password',
        body: 'x',
      });
      assert.ok(!result.ok);
      assert.equal(result.stage, 'auth');
      assert.equal(result.code, 535);
      assert.match(result.message, /^5\.7\.8 /);
      assert.deepEqual(await listMessages(ws, sandbox.id), []);
    });

    it("another sandbox's id with this password is 535 (the password belongs to one sandbox)", async () => {
      const { sandbox } = await fresh();
      const { sandbox: other } = await fresh();
      const t = transport(port, { smtpUsername: other.id, smtpPassword: sandbox.smtpPassword });
      const err = await refusal(t.sendMail({ from: 'a@s.test', to: 'b@r.test', subject: 'x', text: 'x' }));
      t.close();
      assert.equal(err.responseCode, 535);
    });

    it('any syntactically valid recipient is accepted and kept in capturedFor', async () => {
      const { ws, sandbox } = await fresh();
      const rcpts = [
        'someone@example.com',
        'first.last+tag@sub.domain.invalid',
        'user@[127.0.0.1]',
        'postmaster@localhost',
      ];
      const t = transport(port, sandbox);
      const info = await t.sendMail({
        envelope: { from: 'app@sender.test', to: rcpts },
        from: 'app@sender.test',
        to: 'someone@example.com',
        subject: 'many recipients',
        text: 'hi',
      });
      t.close();
      assert.deepEqual(info.accepted, rcpts);
      assert.deepEqual(info.rejected, []);
      const m = await onlyMessage(ws, sandbox.id);
      assert.deepEqual(m.capturedFor, rcpts);
      assert.deepEqual(m.to, ['someone@example.com']);
    });

    it('a mixed-case recipient is kept as sent and matched case-insensitively by the capturedFor filter', async () => {
      const { ws, sandbox } = await fresh();
      const wire = await authedWire(port, sandbox);
      try {
        const r = await wireSend(
          wire,
          'a@sender.test',
          ['UPPER.Case@Example.ORG', 'other@example.org'],
          'Subject: mixed case\r\n\r\nx\r\n',
        );
        assert.equal(r.code, 250, r.text);
      } finally {
        wire.close();
      }
      const m = await onlyMessage(ws, sandbox.id);
      assert.deepEqual(m.capturedFor, ['UPPER.Case@Example.ORG', 'other@example.org']);
      const found = await listMessages(ws, sandbox.id, '?capturedFor=upper.case%40example.org');
      assert.deepEqual(
        found.map((x) => x.id),
        [m.id],
      );
      assert.deepEqual(await listMessages(ws, sandbox.id, '?capturedFor=upper.case'), []);
    });

    it('a syntactically invalid RCPT address is 501 and the session goes on', async () => {
      const { ws, sandbox } = await fresh();
      const wire = await authedWire(port, sandbox);
      try {
        assert.equal((await wire.command('MAIL FROM:<a@sender.test>')).code, 250);
        for (const bad of [
          'RCPT TO:<not an address>',
          'RCPT TO:<@>',
          'RCPT TO:<a@b@c>',
          'RCPT TO:nobrackets@x.test',
        ]) {
          const r = await wire.command(bad);
          assert.equal(r.code, 501, `${bad}: ${r.lines.join(' | ')}`);
        }
        assert.equal((await wire.command('RCPT TO:<good@rcpt.test>')).code, 250);
        assert.equal((await wire.command('DATA')).code, 354);
        wire.write('Subject: after bad rcpt\r\n\r\nok\r\n.\r\n');
        assert.equal((await wire.read()).code, 250);
      } finally {
        wire.close();
      }
      const m = await onlyMessage(ws, sandbox.id);
      assert.deepEqual(m.capturedFor, ['good@rcpt.test']);
      assert.equal(m.subject, 'after bad rcpt');
    });

    it('To comes from the header, capturedFor from the envelope; Bcc is in capturedFor only', async () => {
      const { ws, sandbox } = await fresh();
      const t = transport(port, sandbox);
      await t.sendMail({
        from: '"The App" <app@sender.test>',
        to: '"Alice A" <alice@rcpt.test>, bob@rcpt.test',
        cc: 'carol@rcpt.test',
        bcc: 'secret@hidden.test',
        subject: 'To vs envelope',
        text: 'body',
      });
      const m1 = await onlyMessage(ws, sandbox.id);
      assert.deepEqual(m1.to, ['Alice A <alice@rcpt.test>', 'bob@rcpt.test']);
      assert.deepEqual(m1.capturedFor, [
        'alice@rcpt.test',
        'bob@rcpt.test',
        'carol@rcpt.test',
        'secret@hidden.test',
      ]);
      assert.equal(m1.from, 'The App <app@sender.test>');
      assert.ok(!m1.to.some((a) => a.includes('secret@hidden.test')));
      assert.deepEqual(
        m1.headers.filter((h) => h.name.toLowerCase() === 'bcc'),
        [],
      );
      assert.deepEqual(
        m1.headers.filter((h) => h.name.toLowerCase() === 'cc').map((h) => h.value),
        ['carol@rcpt.test'],
      );

      // An envelope that differs from the headers entirely.
      await t.sendMail({
        envelope: { from: 'bounce@sender.test', to: ['envelope-only@rcpt.test'] },
        from: 'app@sender.test',
        to: 'Header Person <header@rcpt.test>',
        subject: 'envelope differs',
        text: 'body',
      });
      t.close();
      const items = await listMessages(ws, sandbox.id, '?q=envelope%20differs');
      assert.equal(items.length, 1);
      assert.deepEqual((items[0] as MessageSummary).to, ['Header Person <header@rcpt.test>']);
      assert.deepEqual((items[0] as MessageSummary).capturedFor, ['envelope-only@rcpt.test']);
      const byCapturedFor = await listMessages(ws, sandbox.id, '?capturedFor=secret%40hidden.test');
      assert.deepEqual(
        byCapturedFor.map((m) => m.subject),
        ['To vs envelope'],
      );
    });

    it('encoded headers are decoded, a leading-dot line survives dot-stuffing, sizeBytes is the raw size', async () => {
      const { ws, sandbox } = await fresh();
      const t = transport(port, sandbox);
      await t.sendMail({
        from: { name: 'Jürgen Müller', address: 'juergen@sender.test' },
        to: { name: 'Zoë', address: 'zoe@rcpt.test' },
        subject: 'Grüße 👋 — Bestätigung',
        text: 'line one\n.starts with a dot\n..two dots\nend',
      });
      t.close();
      const m = await onlyMessage(ws, sandbox.id);
      assert.equal(m.subject, 'Grüße 👋 — Bestätigung');
      assert.equal(m.from, 'Jürgen Müller <juergen@sender.test>');
      assert.deepEqual(m.to, ['Zoë <zoe@rcpt.test>']);
      assert.equal(m.textBody?.trimEnd(), 'line one\n.starts with a dot\n..two dots\nend');
      const raw = await rawOf(ws, sandbox.id, m.id);
      assert.equal(m.sizeBytes, raw.length);
      assert.ok(raw.includes('\r\n.starts with a dot\r\n..two dots\r\n'), 'the raw source is un-stuffed');
    });

    it('a message with only a Bcc recipient has an empty to and the Bcc address in capturedFor', async () => {
      const { ws, sandbox } = await fresh();
      const t = transport(port, sandbox);
      await t.sendMail({ from: 'a@sender.test', bcc: 'only-bcc@rcpt.test', subject: 'bcc only', text: 'x' });
      t.close();
      const m = await onlyMessage(ws, sandbox.id);
      assert.deepEqual(m.to, []);
      assert.deepEqual(m.capturedFor, ['only-bcc@rcpt.test']);
      assert.ok(!m.headers.some((h) => /only-bcc/.test(h.value)), 'the Bcc address is in no header');
    });

    it("the credential selects the sandbox: a recipient in another sandbox's capture domain does not reach it", async () => {
      const { ws, sandbox } = await fresh();
      const { ws: ws2, sandbox: other } = await fresh();
      const rcpt = `inbox@${other.id}.capture.localhost`;
      const t = transport(port, sandbox);
      await t.sendMail({ from: 'a@sender.test', to: rcpt, subject: 'credential decides', text: 'x' });
      t.close();
      assert.deepEqual((await onlyMessage(ws, sandbox.id)).capturedFor, [rcpt]);
      assert.deepEqual(await listMessages(ws2, other.id), []);
    });

    it('an SMTPUTF8 recipient with non-ASCII local part and domain is accepted and kept', async () => {
      const { ws, sandbox } = await fresh();
      const wire = await authedWire(port, sandbox);
      try {
        assert.equal((await wire.command('MAIL FROM:<a@sender.test> SMTPUTF8')).code, 250);
        const r = await wire.command('RCPT TO:<josé@bücher.example>');
        assert.equal(r.code, 250, r.text);
        assert.equal((await wire.command('DATA')).code, 354);
        wire.write('Subject: utf8\r\nTo: josé@bücher.example\r\n\r\nx\r\n.\r\n');
        assert.equal((await wire.read()).code, 250);
      } finally {
        wire.close();
      }
      const m = await onlyMessage(ws, sandbox.id);
      assert.deepEqual(m.capturedFor, ['josé@bücher.example']);
      assert.deepEqual(m.to, ['josé@bücher.example']);
    });

    it('deleting a sandbox stops its credentials at once: AUTH 535, an open session gets 550 at MAIL', async () => {
      const { ws, sandbox } = await fresh();
      const open = await authedWire(port, sandbox);
      try {
        const del = await ws.api(`/sandboxes/${sandbox.id}`, { method: 'DELETE' });
        assert.equal(del.status, 204);
        const result = await smtplib({
          port,
          starttls: true,
          username: sandbox.smtpUsername,
          password: sandbox.smtpPassword,
          mail_from: 'a@sender.test',
          rcpt_to: ['b@rcpt.test'],
          subject: 'after delete',
          body: 'x',
        });
        assert.ok(!result.ok);
        assert.equal(result.stage, 'auth');
        assert.equal(result.code, 535);
        const mail = await open.command('MAIL FROM:<a@sender.test>');
        assert.equal(mail.code, 550);
        assert.match(mail.text, /^5\.7\.1 /);
      } finally {
        open.close();
      }
    });

    it('a sandbox deleted between RCPT and the end of DATA stores nothing and answers 550 5.7.1', async () => {
      const { ws, sandbox } = await fresh();
      const wire = await authedWire(port, sandbox);
      try {
        assert.equal((await wire.command('MAIL FROM:<a@sender.test>')).code, 250);
        assert.equal((await wire.command('RCPT TO:<b@rcpt.test>')).code, 250);
        assert.equal((await wire.command('DATA')).code, 354);
        assert.equal((await ws.api(`/sandboxes/${sandbox.id}`, { method: 'DELETE' })).status, 204);
        wire.write('Subject: too late\r\n\r\nx\r\n.\r\n');
        const reply = await wire.read();
        assert.equal(reply.code, 550, reply.text);
        assert.match(reply.text, /^5\.7\.1 /);
      } finally {
        wire.close();
      }
      const left = await store.db
        .selectFrom('messages')
        .select('id')
        .where('sandbox_id', '=', sandbox.id)
        .execute();
      assert.deepEqual(left, []);
    });

    it('an expired ephemeral sandbox stops its credentials at once (535)', async () => {
      const { ws, sandbox } = await fresh({ name: 'short', ephemeral: true, ttlMinutes: 1 });
      const t = transport(port, sandbox);
      await t.sendMail({ from: 'a@sender.test', to: 'b@rcpt.test', subject: 'before expiry', text: 'x' });
      t.close();
      assert.equal((await listMessages(ws, sandbox.id)).length, 1);
      server.clock.advance(61_000);
      const result = await smtplib({
        port,
        starttls: true,
        username: sandbox.smtpUsername,
        password: sandbox.smtpPassword,
        mail_from: 'a@sender.test',
        rcpt_to: ['b@rcpt.test'],
        subject: 'after expiry',
        body: 'x',
      });
      assert.ok(!result.ok);
      assert.equal(result.stage, 'auth');
      assert.equal(result.code, 535);
    });

    it('a secret reset stops the old password at once and the new one works', async () => {
      const { ws, sandbox } = await fresh();
      const res = await ws.api(`/sandboxes/${sandbox.id}/secret/reset`, { method: 'POST' });
      assert.equal(res.status, 200);
      const renewed = (await res.json()) as Sandbox;
      assert.notEqual(renewed.smtpPassword, sandbox.smtpPassword);
      const old = transport(port, sandbox);
      const err = await refusal(
        old.sendMail({ from: 'a@s.test', to: 'b@r.test', subject: 'old', text: 'x' }),
      );
      old.close();
      assert.equal(err.responseCode, 535);
      const fresh2 = transport(port, renewed);
      await fresh2.sendMail({ from: 'a@s.test', to: 'b@r.test', subject: 'new', text: 'x' });
      fresh2.close();
      assert.deepEqual(
        (await listMessages(ws, sandbox.id)).map((m) => m.subject),
        ['new'],
      );
    });

    it('smtplib: a message over 10 MB is refused with 552 (SIZE on MAIL) and nothing is stored', async () => {
      const { ws, sandbox } = await fresh();
      const raw = sizedMessage(MAX_BYTES + 1, 'too big').toString('latin1');
      const result = await smtplibLarge({
        port,
        starttls: true,
        username: sandbox.smtpUsername,
        password: sandbox.smtpPassword,
        mail_from: 'big@sender.test',
        rcpt_to: ['big@rcpt.test'],
        raw,
      });
      assert.ok(!result.ok);
      assert.equal(result.stage, 'send');
      assert.equal(result.code, 552);
      assert.deepEqual(await listMessages(ws, sandbox.id), []);
    });

    it('DATA of exactly 10 MB is kept; 10 MB + 1 byte without SIZE is 552 5.3.4 and nothing is stored', async () => {
      const { ws, sandbox } = await fresh();
      const wire = await authedWire(port, sandbox);
      try {
        const over = await wireSend(
          wire,
          'big@sender.test',
          ['big@rcpt.test'],
          sizedMessage(MAX_BYTES + 1, 'over'),
        );
        assert.equal(over.code, 552, over.text);
        assert.match(over.text, /^5\.3\.4 /);
        assert.deepEqual(await listMessages(ws, sandbox.id), []);
        // the session goes on
        const exact = await wireSend(
          wire,
          'big@sender.test',
          ['big@rcpt.test'],
          sizedMessage(MAX_BYTES, 'exact'),
        );
        assert.equal(exact.code, 250, exact.text);
      } finally {
        wire.close();
      }
      const items = await listMessages(ws, sandbox.id);
      assert.equal(items.length, 1);
      assert.equal((items[0] as MessageSummary).subject, 'exact');
      assert.equal((items[0] as MessageSummary).sizeBytes, MAX_BYTES);
    });

    it('a store failure answers 451 4.3.0 and keeps nothing; the next send is stored', async () => {
      const { ws, sandbox } = await fresh();
      const t = transport(port, sandbox);
      await sql`alter table messages add constraint t_fail check (size_bytes < 0) not valid`.execute(
        store.db,
      );
      try {
        const err = await refusal(
          t.sendMail({ from: 'a@s.test', to: 'b@r.test', subject: 'fails', text: 'x' }),
        );
        assert.equal(err.responseCode, 451);
        assert.match(err.response, /^451 4\.3\.0 /);
      } finally {
        await sql`alter table messages drop constraint t_fail`.execute(store.db);
      }
      const info = await t.sendMail({ from: 'a@s.test', to: 'b@r.test', subject: 'works', text: 'x' });
      t.close();
      assert.match(info.response, /^250 /);
      assert.deepEqual(
        (await listMessages(ws, sandbox.id)).map((m) => m.subject),
        ['works'],
      );
    });

    it('malformed MIME is stored with what could be parsed, and the listener keeps serving', async () => {
      const { ws, sandbox } = await fresh();
      const t = transport(port, sandbox);
      const envelope = { from: 'bad@sender.test', to: ['bad@rcpt.test'] };
      const noBoundary =
        'From: bad@sender.test\r\nTo: bad@rcpt.test\r\nSubject: no boundary\r\nContent-Type: multipart/mixed\r\n\r\n' +
        '--x\r\nContent-Type: text/plain\r\n\r\nhello\r\n--x--\r\n';
      const withNul =
        'From: nul@sender.test\r\nTo: bad@rcpt.test\r\nSubject: with\0nul\r\n\r\nbefore\0after\r\n';
      const badEncoding =
        'From: enc@sender.test\r\nSubject: =?x-unknown?B?!!!?=\r\nContent-Type: text/plain; charset=no-such-charset\r\n' +
        'Content-Transfer-Encoding: base64\r\n\r\n%%% not base64 %%%\r\n';
      for (const raw of [noBoundary, withNul, badEncoding]) {
        const info = await t.sendMail({ envelope, raw });
        assert.match(info.response, /^250 /);
      }
      t.close();
      // Garbage bytes (no header at all, every byte value but CR, LF and NUL) over the raw socket.
      const garbage = Buffer.alloc(4000);
      for (let i = 0; i < garbage.length; i++) {
        const b = (i * 37 + 11) % 256;
        garbage[i] = b === 10 || b === 13 || b === 0 || b === 46 ? 0xfe : b;
        if (i % 80 === 78) garbage[i] = 13;
        if (i % 80 === 79) garbage[i] = 10;
      }
      garbage[garbage.length - 2] = 13;
      garbage[garbage.length - 1] = 10;
      const wire = await authedWire(port, sandbox);
      try {
        const r = await wireSend(wire, 'garbage@sender.test', ['bad@rcpt.test'], garbage);
        assert.equal(r.code, 250, r.text);
      } finally {
        wire.close();
      }

      const items = await listMessages(ws, sandbox.id);
      assert.equal(items.length, 4);
      const bySubject = new Map(items.map((m) => [m.subject, m]));
      const nb = bySubject.get('no boundary');
      assert.ok(nb, `subjects: ${JSON.stringify(items.map((m) => m.subject))}`);
      assert.equal(nb.from, 'bad@sender.test');
      assert.deepEqual(nb.to, ['bad@rcpt.test']);
      assert.equal(nb.sizeBytes, Buffer.byteLength(noBoundary));
      assert.deepEqual(await rawOf(ws, sandbox.id, nb.id), Buffer.from(noBoundary));

      const nul = bySubject.get('withnul');
      assert.ok(nul, `subjects: ${JSON.stringify(items.map((m) => m.subject))}`);
      const nulDetail = (await (
        await ws.api(`/sandboxes/${sandbox.id}/messages/${nul.id}`)
      ).json()) as MessageDetail;
      assert.equal(nulDetail.textBody?.trim(), 'beforeafter');
      assert.deepEqual(await rawOf(ws, sandbox.id, nul.id), Buffer.from(withNul));

      const enc = items.find((m) => m.from === 'enc@sender.test');
      assert.ok(enc, 'the badly encoded message is listed');
      assert.deepEqual(await rawOf(ws, sandbox.id, enc.id), Buffer.from(badEncoding));

      const junk = items.find((m) => m.from === 'garbage@sender.test');
      assert.ok(junk, 'the garbage message is listed under its envelope sender');
      assert.equal(junk.subject, null);
      assert.deepEqual(junk.to, []);
      assert.deepEqual(junk.capturedFor, ['bad@rcpt.test']);
      assert.equal(junk.sizeBytes, garbage.length);
      assert.deepEqual(await rawOf(ws, sandbox.id, junk.id), garbage);

      // still serving
      const again = transport(port, sandbox);
      await again.sendMail({ from: 'a@s.test', to: 'b@r.test', subject: 'still serving', text: 'x' });
      again.close();
      assert.equal((await listMessages(ws, sandbox.id)).length, 5);
    });

    it('unknown commands get 500/502 and the session continues to a stored message', async () => {
      const { ws, sandbox } = await fresh();
      const wire = await authedWire(port, sandbox);
      try {
        for (const cmd of ['FOO bar', 'XYZZY', 'HELLO there', 'MAIL', 'ETRN x']) {
          const r = await wire.command(cmd);
          assert.ok(r.code >= 500 && r.code <= 504, `${cmd}: ${r.lines.join(' | ')}`);
        }
        for (const cmd of ['FOO', 'BAR']) {
          const r = await wire.command(cmd);
          assert.ok(r.code === 500 || r.code === 502, `${cmd}: ${r.lines.join(' | ')}`);
        }
        assert.equal((await wire.command('NOOP')).code, 250);
        const sent = await wireSend(
          wire,
          'a@sender.test',
          ['b@rcpt.test'],
          'Subject: after junk\r\n\r\nx\r\n',
        );
        assert.equal(sent.code, 250, sent.text);
        assert.equal((await wire.command('QUIT')).code, 221);
      } finally {
        wire.close();
      }
      assert.deepEqual(
        (await listMessages(ws, sandbox.id)).map((m) => m.subject),
        ['after junk'],
      );
    });

    it('commands before the greeting are refused (421) and other clients are still served', async () => {
      const { ws, sandbox } = await fresh();
      const early = await Wire.connect(port);
      try {
        early.write(
          'EHLO early.test\r\nAUTH PLAIN AAAA\r\nMAIL FROM:<a@b.test>\r\nRCPT TO:<c@d.test>\r\nDATA\r\n',
        );
        const reply = await early.read();
        assert.equal(reply.code, 421, reply.text);
        assert.equal(await early.waitClosed(), true);
      } finally {
        early.close();
      }
      const t = transport(port, sandbox);
      await t.sendMail({ from: 'a@s.test', to: 'b@r.test', subject: 'after early talker', text: 'x' });
      t.close();
      assert.equal((await listMessages(ws, sandbox.id)).length, 1);
    });

    it('MAIL FROM before EHLO is 503; the session then works normally', async () => {
      const { ws, sandbox } = await fresh();
      const wire = await Wire.open(port);
      try {
        const early = await wire.command('MAIL FROM:<a@sender.test>');
        assert.equal(early.code, 503, early.text);
        const rcpt = await wire.command('RCPT TO:<b@rcpt.test>');
        assert.ok(rcpt.code >= 500 && rcpt.code < 600, rcpt.text);
        const data = await wire.command('DATA');
        assert.ok(data.code >= 500 && data.code < 600, data.text);
        assert.equal((await wire.command('EHLO raw.test')).code, 250);
        await wire.startTls();
        await wire.command('EHLO raw.test');
        assert.equal(
          (await wire.command(`AUTH PLAIN ${plainAuth(sandbox.smtpUsername, sandbox.smtpPassword)}`)).code,
          235,
        );
        const sent = await wireSend(
          wire,
          'a@sender.test',
          ['b@rcpt.test'],
          'Subject: in order now\r\n\r\nx\r\n',
        );
        assert.equal(sent.code, 250, sent.text);
      } finally {
        wire.close();
      }
      assert.equal((await onlyMessage(ws, sandbox.id)).subject, 'in order now');
    });

    it('a whole pipelined transaction in one write gets one reply per command and is stored', async () => {
      const { ws, sandbox } = await fresh();
      const wire = await authedWire(port, sandbox);
      try {
        wire.write(
          'MAIL FROM:<pipe@sender.test>\r\nRCPT TO:<one@rcpt.test>\r\nRCPT TO:<bad address>\r\nRCPT TO:<two@rcpt.test>\r\n' +
            'DATA\r\nSubject: pipelined\r\n\r\nall at once\r\n.\r\n' +
            'MAIL FROM:<pipe@sender.test>\r\nDATA\r\nRSET\r\nNOOP\r\n',
        );
        const codes = [];
        for (let i = 0; i < 10; i++) codes.push((await wire.read()).code);
        assert.deepEqual(codes, [250, 250, 501, 250, 354, 250, 250, 503, 250, 250]);
        assert.equal((await wire.command('QUIT')).code, 221);
      } finally {
        wire.close();
      }
      const m = await onlyMessage(ws, sandbox.id);
      assert.equal(m.subject, 'pipelined');
      assert.deepEqual(m.capturedFor, ['one@rcpt.test', 'two@rcpt.test']);
    });

    it('a client sending garbage (plain and after STARTTLS) does not crash the server', async () => {
      const { ws, sandbox } = await fresh();
      const junk = Buffer.alloc(3000);
      for (let i = 0; i < junk.length; i++) junk[i] = (i * 101 + 7) % 256;
      const a = await Wire.open(port);
      a.write(junk);
      a.write('\r\n\0\0\0\r\n');
      a.write(`${'x'.repeat(70_000)}\r\n`);
      await a.waitClosed(1000);
      a.close();
      // STARTTLS, then bytes that are no TLS handshake
      const b = await Wire.open(port);
      await b.command('EHLO raw.test');
      assert.equal((await b.command('STARTTLS')).code, 220);
      b.write(junk);
      await b.waitClosed(2000);
      b.close();
      // a client that connects and vanishes
      const c = await Wire.connect(port);
      c.close();

      const result = await smtplib({
        port,
        starttls: true,
        username: sandbox.smtpUsername,
        password: sandbox.smtpPassword,
        mail_from: 'a@sender.test',
        rcpt_to: ['b@rcpt.test'],
        subject: 'after garbage',
        body: 'fine',
      });
      assert.deepEqual(result, { ok: true });
      assert.equal((await onlyMessage(ws, sandbox.id)).subject, 'after garbage');
    });
  });

  describe('default limits: failed AUTH caps, 120 messages per IP', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(await backend.open());
    });
    after(async () => {
      await server.close();
    });

    async function tlsWire(): Promise<Wire> {
      const wire = await Wire.open(server.ports.smtp);
      await wire.command('EHLO raw.test');
      await wire.startTls();
      await wire.command('EHLO raw.test');
      return wire;
    }

    it('the 121st MAIL from one IP gets 421 4.7.0 and is not stored', async () => {
      const ws = await server.workspace();
      const sandbox = await ws.createSandbox();
      const t = transport(server.ports.smtp, sandbox, {
        pool: true,
        maxConnections: 1,
        maxMessages: Infinity,
      });
      const sends = Array.from({ length: 121 }, (_, i) =>
        t.sendMail({ from: 'a@s.test', to: 'b@r.test', subject: `msg ${i + 1}`, text: '.' }),
      );
      const results = await Promise.allSettled(sends);
      t.close();
      const fulfilled = results.filter((r) => r.status === 'fulfilled');
      assert.equal(fulfilled.length, 120);
      const last = results[120] as PromiseSettledResult<unknown>;
      assert.equal(last.status, 'rejected');
      const err = (last as PromiseRejectedResult).reason as { responseCode: number; response: string };
      assert.equal(err.responseCode, 421);
      assert.match(err.response, /^421 4\.7\.0 /);
      const items = await listMessages(ws, sandbox.id, '?limit=200');
      assert.equal(items.length, 120);
      assert.ok(!items.some((m) => m.subject === 'msg 121'));
    });

    // After the message-rate test: this one leaves AUTH from 127.0.0.1 blocked for 10 minutes.
    it('per connection: the 3rd failure is 421 4.7.0 and the connection closes; per address and username: after 10, even a right password is 421, while other sandboxes from that address log in', async () => {
      const ws = await server.workspace();
      const sandbox = await ws.createSandbox();
      const wrong = plainAuth(sandbox.smtpUsername, 'wrong-password');

      // one connection: 535, 535, then 421 and close
      const first = await tlsWire();
      try {
        for (let i = 0; i < 2; i++) {
          const r = await first.command(`AUTH PLAIN ${wrong}`);
          assert.equal(r.code, 535, r.text);
          assert.match(r.text, /^5\.7\.8 /);
        }
        const third = await first.command(`AUTH PLAIN ${wrong}`);
        assert.equal(third.code, 421, third.text);
        assert.match(third.text, /^4\.7\.0 /);
        assert.equal(await first.waitClosed(), true, 'the server closes the connection');
      } finally {
        first.close();
      }

      // failures are counted per connection: two failures then the right password still works
      const second = await tlsWire();
      try {
        assert.equal((await second.command(`AUTH PLAIN ${wrong}`)).code, 535);
        const user = await second.command('AUTH LOGIN');
        assert.equal(user.code, 334);
        await second.command(b64(sandbox.smtpUsername));
        assert.equal((await second.command(b64('also wrong'))).code, 535);
        const ok = await second.command(
          `AUTH PLAIN ${plainAuth(sandbox.smtpUsername, sandbox.smtpPassword)}`,
        );
        assert.equal(ok.code, 235, ok.text);
      } finally {
        second.close();
      }

      // 5 failures so far from this IP; 5 more reach the per-IP cap of 10
      for (const n of [3, 2]) {
        const w = await tlsWire();
        try {
          for (let i = 0; i < n; i++) {
            const r = await w.command(`AUTH PLAIN ${wrong}`);
            assert.equal(r.code, i === 2 ? 421 : 535, r.text);
          }
        } finally {
          w.close();
        }
      }
      const blocked = await tlsWire();
      try {
        const r = await blocked.command(
          `AUTH PLAIN ${plainAuth(sandbox.smtpUsername, sandbox.smtpPassword)}`,
        );
        assert.equal(r.code, 421, r.text);
        assert.match(r.text, /^4\.7\.0 /);
      } finally {
        blocked.close();
      }
      // nodemailer, with the right password, is refused the same way
      const t = transport(server.ports.smtp, sandbox);
      const err = await refusal(
        t.sendMail({ from: 'a@s.test', to: 'b@r.test', subject: 'blocked', text: 'x' }),
      );
      t.close();
      assert.equal(err.responseCode, 421);
      assert.match(err.response, /^421 4\.7\.0 /);
      assert.deepEqual(await listMessages(ws, sandbox.id), []);

      // Another sandbox's right password from the same address is not locked out (a shared NAT or CI runner).
      const neighbour = await ws.createSandbox({ name: 'neighbour' });
      const other = await tlsWire();
      try {
        const r = await other.command(
          `AUTH PLAIN ${plainAuth(neighbour.smtpUsername, neighbour.smtpPassword)}`,
        );
        assert.equal(r.code, 235, r.text);
      } finally {
        other.close();
      }
    });
  });

  describe('rate limit per workspace (RATE_LIMIT_SMTP_PER_WORKSPACE=5)', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(await backend.open(), {
        RATE_LIMIT_SMTP_PER_WORKSPACE: '5',
        RATE_LIMIT_SMTP_PER_IP: '10000',
      });
    });
    after(async () => {
      await server.close();
    });

    it('the 6th message of a workspace gets 421 4.7.0 across its sandboxes; other workspaces are unaffected', async () => {
      const ws = await server.workspace();
      const a = await ws.createSandbox({ name: 'a' });
      const b = await ws.createSandbox({ name: 'b' });
      const other = await server.workspace();
      const c = await other.createSandbox({ name: 'c' });
      const send = (sandbox: Sandbox, subject: string) => {
        const t = transport(server.ports.smtp, sandbox);
        return t.sendMail({ from: 'a@s.test', to: 'b@r.test', subject, text: 'x' }).finally(() => t.close());
      };
      for (let i = 1; i <= 3; i++) await send(a, `a${i}`);
      for (let i = 1; i <= 2; i++) await send(b, `b${i}`);
      const err = await refusal(send(a, 'a4'));
      assert.equal(err.responseCode, 421);
      assert.match(err.response, /^421 4\.7\.0 /);
      const errB = await refusal(send(b, 'b3'));
      assert.equal(errB.responseCode, 421);
      await send(c, 'c1');
      assert.deepEqual((await listMessages(ws, a.id)).map((m) => m.subject).sort(), ['a1', 'a2', 'a3']);
      assert.deepEqual((await listMessages(ws, b.id)).map((m) => m.subject).sort(), ['b1', 'b2']);
      assert.deepEqual(
        (await listMessages(other, c.id)).map((m) => m.subject),
        ['c1'],
      );
    });
  });

  describe('RATE_LIMITS=off; graceful shutdown', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(await backend.open(), { RATE_LIMITS: 'off' });
    });
    after(async () => {
      await server.close();
    });

    it('130 messages in quick succession over one pooled connection are all stored', async () => {
      const ws = await server.workspace();
      const sandbox = await ws.createSandbox();
      const t = transport(server.ports.smtp, sandbox, {
        pool: true,
        maxConnections: 1,
        maxMessages: Infinity,
      });
      const results = await Promise.allSettled(
        Array.from({ length: 130 }, (_, i) =>
          t.sendMail({ from: 'a@s.test', to: 'b@r.test', subject: `n${i}`, text: '.' }),
        ),
      );
      t.close();
      assert.deepEqual(
        results
          .filter((r) => r.status === 'rejected')
          .map((r) => String((r as PromiseRejectedResult).reason)),
        [],
      );
      const items = await listMessages(ws, sandbox.id, '?limit=200');
      assert.equal(items.length, 130);
      assert.equal(new Set(items.map((m) => m.subject)).size, 130);
    });

    // Last in this suite: it closes the server (the after hook's close is then a no-op).
    it('a DATA in flight when the server closes still gets 250; new commands then get 421', async () => {
      const ws = await server.workspace();
      const sandbox = await ws.createSandbox();
      const wire = await authedWire(server.ports.smtp, sandbox);
      let closed: Promise<void> | undefined;
      try {
        assert.equal((await wire.command('MAIL FROM:<a@sender.test>')).code, 250);
        assert.equal((await wire.command('RCPT TO:<b@rcpt.test>')).code, 250);
        assert.equal((await wire.command('DATA')).code, 354);
        wire.write('Subject: in flight\r\n\r\nfirst half\r\n');
        closed = server.close();
        await new Promise((resolve) => setTimeout(resolve, 100));
        wire.write('second half\r\n.\r\n');
        const reply = await wire.read();
        assert.equal(reply.code, 250, reply.text);
        assert.match(reply.text, /^2\.6\.0 Captured [0-9a-f-]{36}$/); // the id of the committed row
        const next = await wire.command('MAIL FROM:<a@sender.test>');
        assert.equal(next.code, 421, next.text);
      } finally {
        wire.close();
      }
      await closed;
    });
  });
});
