// Shared by the provider-API suites: a test server per store, its messages read back over REST (with the raw
// source parsed again, for the attachments' content ids) and over MCP, and the shape of a refused send.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { components } from '../../openapi/schema.d.ts';
import { listMessages, messageDetail, rawOf } from '../helpers/mail.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import type { Store } from '../../src/core/store/openStore.ts';
import { connectHttp, ok } from '../mcp/client.ts';

export type MessageDetail = components['schemas']['MessageDetail'];

/** A small PNG, as an app would inline a logo. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

export interface ReadBack {
  detail: MessageDetail;
  raw: ParsedMail;
}

/** Every message of the sandbox, newest first, with its detail and re-parsed source. */
export async function readBack(ws: TestServerWorkspace, sandboxId: string): Promise<ReadBack[]> {
  const items = await listMessages(ws, sandboxId);
  return Promise.all(
    items.map(async (item) => ({
      detail: await messageDetail(ws, sandboxId, item.id),
      raw: await simpleParser(await rawOf(ws, sandboxId, item.id)),
    })),
  );
}

export function header(detail: MessageDetail, name: string): string[] {
  return detail.headers.filter((h) => h.name.toLowerCase() === name.toLowerCase()).map((h) => h.value);
}

/** The checks every provider's full send shares: recipients, bodies, the code, the inline logo and the PDF. */
/** `logoName`: the inline image's file name (Mailgun names an inline file by its content id). */
export function assertFullSend(got: ReadBack, provider: string, logoName = 'logo.png'): void {
  const { detail, raw } = got;
  assert.equal(detail.subject, 'Your sign-in code');
  assert.match(detail.from, /app@example\.test/);
  assert.deepEqual(
    detail.to.map((t) => /[^<\s]+@[^>\s]+/.exec(t)?.[0]),
    ['ann@example.test'],
  );
  assert.deepEqual(
    [...detail.capturedFor].sort(),
    ['ann@example.test', 'audit@example.test', 'cc@example.test'],
    'bcc is captured for, never a header',
  );
  assert.deepEqual(header(detail, 'bcc'), []);
  assert.equal(raw.bcc, undefined);
  assert.match(header(detail, 'reply-to')[0] ?? '', /support@example\.test/);
  assert.equal(detail.otp?.code, '493817');
  assert.match(detail.textBody ?? '', /493817/);
  assert.match(detail.htmlBody ?? '', /cid:logo@app/);
  assert.deepEqual(header(detail, 'x-entity-ref-id'), ['ref-1']);
  assert.deepEqual(header(detail, 'x-sandtrap-provider'), [provider]);
  const names = detail.attachments.map((a) => a.fileName).sort();
  assert.deepEqual(names, [logoName, 'terms.pdf'].sort());
  const logo = raw.attachments.find((a) => a.filename === logoName);
  assert.equal(logo?.cid, 'logo@app');
  assert.deepEqual(logo?.content, PNG);
  const pdf = raw.attachments.find((a) => a.filename === 'terms.pdf');
  assert.equal(pdf?.contentType, 'application/pdf');
  assert.equal(pdf?.content.toString(), '%PDF-1.4 terms');
}

export const TEXT = 'Your sign-in code is 493817. It expires in 10 minutes.';
export const HTML = '<p>Your sign-in code is <b>493817</b>.</p><img src="cid:logo@app">';

/** A test server on the suite's store for its tests, with one workspace; set before the first test runs. */
export function serverPerSuite(getStore: () => Store): { server: TestServer; ws: TestServerWorkspace } {
  const suite: { server?: TestServer; ws?: TestServerWorkspace } = {};
  before(async () => {
    suite.server = await startTestServer(getStore());
    suite.ws = await suite.server.workspace();
  });
  after(() => suite.server?.close());
  return {
    get server() {
      assert.ok(suite.server !== undefined, 'used before the suite started');
      return suite.server;
    },
    get ws() {
      assert.ok(suite.ws !== undefined, 'used before the suite started');
      return suite.ws;
    },
  };
}

/** The error a send was refused with; a send that succeeds fails the test. */
export async function refusal<E>(p: Promise<unknown>): Promise<E> {
  return p.then(
    () => assert.fail('the send was expected to be refused'),
    (e: unknown) => e as E,
  );
}

export interface WaitedEmail {
  status: string;
  email: { otp: { code: string }; attachments: Array<{ file_name: string | null; content_type: string }> };
}

/** Starts an MCP `wait_for_email` on the sandbox, sends while it waits, and returns what the wait returned. */
export async function waitForEmailWhile(
  server: TestServer,
  ws: TestServerWorkspace,
  sandboxId: string,
  send: () => Promise<unknown>,
): Promise<WaitedEmail> {
  const mcp = await connectHttp(server.apiUrl, ws.key);
  try {
    const waiting = ok(mcp, 'wait_for_email', { sandbox_id: sandboxId, timeout_seconds: 30 });
    // When the send fails, closing the client ends the wait too: that rejection is not the test's failure.
    waiting.catch(() => undefined);
    await send();
    return (await waiting) as WaitedEmail;
  } finally {
    await mcp.close();
  }
}
