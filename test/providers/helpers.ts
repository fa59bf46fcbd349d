// Shared by the provider-API suites: a test server per store, a sandbox, and its messages read back over REST
// (with the raw source parsed again, for the attachments' content ids).
import assert from 'node:assert/strict';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { components } from '../../openapi/schema.d.ts';
import { listMessages, messageDetail, rawOf } from '../helpers/mail.ts';
import type { TestServerWorkspace } from '../helpers/server.ts';

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
