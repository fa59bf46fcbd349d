// SMTP ingest behind the live-sandbox cache and group commit: no loss, sandboxes deleted behind the cache.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Store } from '../../src/core/store/openStore.ts';
import { listMessages, onlyMessage, sandboxTransport } from '../helpers/mail.ts';
import { freePort } from '../helpers/process.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { UUID_RE } from '../helpers/shapes.ts';
import { authedWire, plainAuth, Wire, type Reply } from '../helpers/smtpWire.ts';
import { describeEachStore } from '../helpers/stores.ts';

type Sandbox = Record<string, any>;

const DOMAIN = 'capture.localhost';
const addr = (local: string, sandbox: Sandbox) => `${local}@${sandbox.id}.${DOMAIN}`;

/**
 * MAIL, RCPT..., DATA, message over a raw session. Stops at the first command refused; `stage` says where
 * the transaction ended and `reply` is the reply there (the final reply after the message when all went on).
 */
async function wireSend(
  wire: Wire,
  from: string,
  rcpts: string[],
  raw: string,
): Promise<{ stage: 'mail' | 'rcpt' | 'data' | 'final'; reply: Reply; rcptReplies: Reply[] }> {
  const mail = await wire.command(`MAIL FROM:<${from}>`);
  if (mail.code !== 250) return { stage: 'mail', reply: mail, rcptReplies: [] };
  const rcptReplies: Reply[] = [];
  for (const rcpt of rcpts) rcptReplies.push(await wire.command(`RCPT TO:<${rcpt}>`));
  const refused = rcptReplies.find((r) => r.code !== 250);
  if (!rcptReplies.some((r) => r.code === 250)) {
    return { stage: 'rcpt', reply: refused as Reply, rcptReplies };
  }
  const data = await wire.command('DATA');
  if (data.code !== 354) return { stage: 'data', reply: data, rcptReplies };
  wire.write(raw);
  wire.write('.\r\n');
  return { stage: 'final', reply: await wire.read(30_000), rcptReplies };
}

/** The "sandbox gone" reply of src/smtp/replies.ts: 550 5.7.1 (or, at RCPT on the inbound port, 550 5.1.1). */
function assertGone(result: { stage: string; reply: Reply }): void {
  const { stage, reply } = result;
  assert.equal(reply.code, 550, `${stage}: ${reply.code} ${reply.text}`);
  if (stage === 'rcpt') assert.match(reply.text, /^5\.1\.1 /, reply.text);
  else assert.match(reply.text, /^5\.7\.1 /, reply.text);
}

async function countMessages(store: Store, sandboxId?: string): Promise<number> {
  let q = store.db.selectFrom('messages').select((eb) => eb.fn.countAll<string>().as('n'));
  if (sandboxId !== undefined) q = q.where('sandbox_id', '=', sandboxId);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

describeEachStore('SMTP ingest: live-sandbox cache and group commit', (getStore) => {
  let server: TestServer;
  let submission: number;
  let inbound: number;

  before(async () => {
    // describeEachStore closes its store; the server must not close it a second time. Rate limits are not
    // under test here (100 messages from one IP would pass the default 120 with the other tests).
    server = await startTestServer(
      { ...getStore(), close: async () => {} },
      { SMTP_INBOUND_PORT: String(await freePort()), RATE_LIMITS: 'off' },
    );
    assert.ok(server.ports.smtpInbound !== null, 'the inbound listener is on');
    submission = server.ports.smtp;
    inbound = server.ports.smtpInbound;
  });
  after(async () => {
    await server.close();
  });

  /** Another process's delete: straight to the store, so this process's cache and bus hear nothing. */
  async function deleteBehindTheCache(sandboxId: string): Promise<void> {
    const res = await getStore().db.deleteFrom('sandboxes').where('id', '=', sandboxId).executeTakeFirst();
    assert.equal(res.numDeletedRows, 1n);
  }

  it('100 messages sent at once over 8 pooled STARTTLS+AUTH connections are all accepted, stored and listed', async () => {
    const ws = await server.workspace();
    const sandbox = await ws.createSandbox({ name: 'burst' });
    const t = sandboxTransport(submission, sandbox, { pool: true, maxConnections: 8, maxMessages: Infinity });
    const subjects = Array.from({ length: 100 }, (_, i) => `burst message ${i}`);
    let infos;
    try {
      infos = await Promise.all(
        subjects.map((subject, i) =>
          t.sendMail({ from: 'app@sender.test', to: `user${i}@rcpt.test`, subject, text: `body of ${i}` }),
        ),
      );
    } finally {
      t.close();
    }
    // Each 250 names the message stored for that sender.
    const idBySubject = new Map<string, string>();
    for (const [i, info] of infos.entries()) {
      assert.deepEqual(info.accepted, [`user${i}@rcpt.test`]);
      const m = /^250 2\.6\.0 Captured (\S+)$/.exec(info.response);
      assert.ok(m !== null, `message ${i}: ${info.response}`);
      assert.match(m[1] as string, UUID_RE);
      idBySubject.set(subjects[i] as string, m[1] as string);
    }
    assert.equal(new Set(idBySubject.values()).size, 100, 'every 250 names its own message');

    const items = await listMessages(ws, sandbox.id, '?limit=200');
    assert.equal(items.length, 100);
    assert.equal(new Set(items.map((m) => m.id)).size, 100, 'distinct ids');
    assert.deepEqual(new Set(items.map((m) => m.subject)), new Set(subjects), 'each with its own subject');
    for (const m of items) {
      assert.equal(
        idBySubject.get(m.subject as string),
        m.id,
        `the 250 for "${m.subject}" named this message`,
      );
      const n = (m.subject as string).replace('burst message ', '');
      assert.deepEqual(m.capturedFor, [`user${n}@rcpt.test`]);
      assert.equal(m.preview, `body of ${n}`);
    }
    assert.equal(await countMessages(getStore(), sandbox.id), 100);
  });

  it('submission: a sandbox deleted in the store behind the cache mid-session is refused with 550 5.7.1 and nothing is stored', async () => {
    const ws = await server.workspace();
    const sandbox = await ws.createSandbox({ name: 'doomed' });
    const wire = await authedWire(submission, sandbox);
    try {
      // One message accepted: the session's sandbox is now known live (and cached).
      const first = await wireSend(wire, 'a@sender.test', ['b@rcpt.test'], 'Subject: before\r\n\r\nkept\r\n');
      assert.equal(first.stage, 'final');
      assert.equal(first.reply.code, 250, first.reply.text);
      assert.equal((await listMessages(ws, sandbox.id)).length, 1);

      await deleteBehindTheCache(sandbox.id);
      const total = await countMessages(getStore());
      const next = await wireSend(wire, 'a@sender.test', ['b@rcpt.test'], 'Subject: after\r\n\r\nlost\r\n');
      assertGone(next);
      assert.equal(await countMessages(getStore()), total, 'no message stored anywhere');
      assert.equal(await countMessages(getStore(), sandbox.id), 0);

      // The session is still usable: it can reset and quit cleanly.
      assert.equal((await wire.command('RSET')).code, 250);
      assert.equal((await wire.command('QUIT')).code, 221);
    } finally {
      wire.close();
    }
    // New sessions cannot log in with the deleted sandbox's credentials.
    const fresh = await Wire.open(submission);
    try {
      assert.equal((await fresh.command('EHLO raw.test')).code, 250);
      await fresh.startTls();
      assert.equal((await fresh.command('EHLO raw.test')).code, 250);
      const auth = await fresh.command(`AUTH PLAIN ${plainAuth(sandbox.smtpUsername, sandbox.smtpPassword)}`);
      assert.equal(auth.code, 535, auth.text);
    } finally {
      fresh.close();
    }
  });

  it('submission: deleted behind the cache between RCPT and the end of DATA, the message is refused with 550 5.7.1', async () => {
    const ws = await server.workspace();
    const sandbox = await ws.createSandbox({ name: 'doomed in data' });
    const wire = await authedWire(submission, sandbox);
    try {
      assert.equal((await wire.command('MAIL FROM:<a@sender.test>')).code, 250);
      assert.equal((await wire.command('RCPT TO:<b@rcpt.test>')).code, 250);
      assert.equal((await wire.command('DATA')).code, 354);
      await deleteBehindTheCache(sandbox.id);
      wire.write('Subject: too late\r\n\r\nx\r\n.\r\n');
      assertGone({ stage: 'final', reply: await wire.read() });
    } finally {
      wire.close();
    }
    assert.equal(await countMessages(getStore(), sandbox.id), 0);
  });

  it('inbound: a message to a sandbox deleted in the store behind the cache is not stored', async () => {
    const ws = await server.workspace();
    const sandbox = await ws.createSandbox({ name: 'inbound doomed' });
    const wire = await Wire.open(inbound);
    try {
      assert.equal((await wire.command('EHLO raw.test')).code, 250);
      const first = await wireSend(
        wire,
        'a@sender.test',
        [addr('x', sandbox)],
        'Subject: before\r\n\r\nx\r\n',
      );
      assert.equal(first.stage, 'final');
      assert.equal(first.reply.code, 250, first.reply.text);
      assert.equal((await onlyMessage(ws, sandbox.id)).subject, 'before');

      await deleteBehindTheCache(sandbox.id);
      const total = await countMessages(getStore());
      const next = await wireSend(wire, 'a@sender.test', [addr('x', sandbox)], 'Subject: after\r\n\r\nx\r\n');
      assertGone(next);
      assert.equal(await countMessages(getStore()), total, 'no message stored anywhere');
      assert.equal(await countMessages(getStore(), sandbox.id), 0);
    } finally {
      wire.close();
    }
  });

  it('inbound: with a live and a deleted-behind-the-cache recipient, only the live sandbox gets the message', async () => {
    const ws = await server.workspace();
    const stays = await ws.createSandbox({ name: 'stays' });
    const goes = await ws.createSandbox({ name: 'goes' });
    const wire = await Wire.open(inbound);
    try {
      assert.equal((await wire.command('EHLO raw.test')).code, 250);
      // Both sandboxes are seen live (and cached) by a first message to each.
      const warm = await wireSend(
        wire,
        'a@sender.test',
        [addr('s', stays), addr('g', goes)],
        'Subject: warm\r\n\r\nx\r\n',
      );
      assert.equal(warm.reply.code, 250, warm.reply.text);

      await deleteBehindTheCache(goes.id);
      const sent = await wireSend(
        wire,
        'a@sender.test',
        [addr('s', stays), addr('g', goes)],
        'Subject: half gone\r\n\r\nx\r\n',
      );
      assert.equal(sent.stage, 'final');
      assert.equal(sent.reply.code, 250, sent.reply.text);
      // The deleted recipient may be refused at RCPT already; if so, it is with 550 5.1.1.
      const goesRcpt = sent.rcptReplies[1] as Reply;
      if (goesRcpt.code !== 250) assertGone({ stage: 'rcpt', reply: goesRcpt });
    } finally {
      wire.close();
    }
    const kept = await listMessages(ws, stays.id);
    assert.deepEqual(kept.map((m) => m.subject).sort(), ['half gone', 'warm']);
    const halfGone = kept.find((m) => m.subject === 'half gone');
    assert.deepEqual(halfGone?.capturedFor, [addr('s', stays)]);
    assert.equal(await countMessages(getStore(), goes.id), 0);
  });
});
