// PARSE_POOL_MIN_BYTES: messages at or above it are parsed on the worker pool, end to end over real SMTP, with
// the same fields as an inline parse and the raw message stored byte for byte.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { onlyMessage, rawOf, sandboxTransport } from '../helpers/mail.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

describeEachStore('SMTP with PARSE_POOL_MIN_BYTES=0 (every message on the parse pool)', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  before(async () => {
    server = await startTestServer(getStore(), { PARSE_POOL_MIN_BYTES: '0' });
    ws = await server.workspace();
  });
  after(() => server.close());

  it('captures a message parsed on a worker: subject, bodies, attachment, and the raw bytes as sent', async () => {
    assert.equal(server.core.config.parsePoolMinBytes, 0);
    const sandbox = await ws.createSandbox({ name: 'pooled' });
    const transport = sandboxTransport(server.ports.smtp, sandbox);
    const info = await transport.sendMail({
      from: 'app@example.com',
      to: 'user@example.com',
      subject: 'Pooled ünïcode subject',
      text: 'Your code is 482913',
      html: '<p>Your code is <b>482913</b></p>',
      attachments: [{ filename: 'a.txt', content: 'attached' }],
    });
    transport.close();
    const message = await onlyMessage(ws, sandbox.id);
    assert.equal(message.subject, 'Pooled ünïcode subject');
    assert.match(message.textBody ?? '', /482913/);
    assert.match(message.htmlBody ?? '', /<b>482913<\/b>/);
    assert.deepEqual(
      message.attachments.map((a) => a.fileName),
      ['a.txt'],
    );
    const raw = await rawOf(ws, sandbox.id, message.id);
    assert.ok(raw.toString('latin1').includes(info.messageId), 'the raw message is the one sent');
    assert.equal(message.sizeBytes, raw.length);
  });
});
