// Every .eml fixture round-trips through the real SMTP submission port and the message API on both stores:
// subject, sender, recipients, charset-decoded text and HTML, headers, and attachments byte-exact.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, it } from 'node:test';
import type { Transporter } from 'nodemailer';
import { sandboxTransport } from '../helpers/mail.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';

const dir = new URL('../fixtures/mail/', import.meta.url);
const expected = JSON.parse(readFileSync(new URL('expected.json', dir), 'utf8')) as Record<string, Expected>;

interface Expected {
  subject: string | null;
  fromContains: string;
  fromAddress: string;
  toAddresses: string[];
  textContains: string[] | null;
  htmlContains: string[] | null;
  attachments: Array<{ fileName: string | null; contentType: string; sizeBytes: number; sha256: string }>;
  headers: Array<{ name: string; valueContains?: string; value?: string }>;
}

describeEachStore('fixture corpus over SMTP', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let sandbox: Record<string, any>;
  let transport: Transporter;

  before(async () => {
    server = await startTestServer(getStore(), { RATE_LIMITS: 'off' });
    ws = await server.workspace();
    sandbox = await ws.createSandbox({ name: 'fixtures' });
    transport = sandboxTransport(server.ports.smtp, sandbox);
  });
  after(async () => {
    transport.close();
    await server.close();
  });

  for (const [file, want] of Object.entries(expected)) {
    it(`${file} round-trips`, async () => {
      const raw = readFileSync(new URL(file, dir));
      const rcpt = `fixture+${file.replace(/\W/g, '')}@example.net`;
      const info = await transport.sendMail({ envelope: { from: 'sender@example.org', to: [rcpt] }, raw });
      assert.match(String(info.response), /^250 /);

      const list: any = await (
        await ws.api(`/sandboxes/${sandbox.id}/messages?capturedFor=${encodeURIComponent(rcpt)}`)
      ).json();
      assert.equal(list.items.length, 1, 'stored once, readable at once');
      const summary = list.items[0];
      assert.equal(summary.sizeBytes, raw.length);
      assert.equal(summary.attachmentCount, want.attachments.length);

      const msg: any = await (await ws.api(`/sandboxes/${sandbox.id}/messages/${summary.id}`)).json();
      assert.equal(msg.subject, want.subject);
      assert.ok(msg.from.includes(want.fromContains), `from ${msg.from} contains ${want.fromContains}`);
      assert.ok(msg.from.includes(want.fromAddress));
      assert.deepEqual(
        msg.to.map((t: string) => /<([^>]+)>$/.exec(t)?.[1] ?? t),
        want.toAddresses,
      );
      assert.deepEqual(msg.capturedFor, [rcpt]);
      if (want.textContains === null) assert.equal(msg.textBody, null);
      else for (const s of want.textContains) assert.ok(msg.textBody?.includes(s), `text contains ${s}`);
      if (want.htmlContains === null) assert.equal(msg.htmlBody, null);
      else for (const s of want.htmlContains) assert.ok(msg.htmlBody?.includes(s), `html contains ${s}`);
      for (const h of want.headers) {
        const found = msg.headers.find(
          (x: { name: string }) => x.name.toLowerCase() === h.name.toLowerCase(),
        );
        assert.ok(found, `header ${h.name} present`);
        if (h.value !== undefined) assert.equal(found.value, h.value);
        if (h.valueContains !== undefined)
          assert.ok(found.value.includes(h.valueContains), `${h.name}: ${found.value}`);
      }

      assert.equal(msg.attachments.length, want.attachments.length);
      for (const [i, a] of want.attachments.entries()) {
        const got = msg.attachments[i];
        assert.equal(got.index, i);
        assert.equal(got.contentType, a.contentType);
        assert.equal(got.sizeBytes, a.sizeBytes);
        if (a.fileName !== null) assert.equal(got.fileName, a.fileName);
        const res = await ws.api(`/sandboxes/${sandbox.id}/messages/${summary.id}/attachments/${i}`);
        assert.equal(res.status, 200);
        const bytes = Buffer.from(await res.arrayBuffer());
        assert.equal(
          createHash('sha256').update(bytes).digest('hex'),
          a.sha256,
          `attachment ${i} byte-exact`,
        );
      }

      const rawBack = Buffer.from(
        await (await ws.api(`/sandboxes/${sandbox.id}/messages/${summary.id}/raw`)).arrayBuffer(),
      );
      assert.ok(rawBack.equals(raw), 'raw source byte-exact');
    });
  }
});
