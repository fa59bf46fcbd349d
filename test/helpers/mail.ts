// Test mail: nodemailer transports for the SMTP listeners, refused sends, captured messages read over REST.
import assert from 'node:assert/strict';
import nodemailer from 'nodemailer';
import type { components } from '../../openapi/schema.d.ts';
import type { TestServerWorkspace } from './server.ts';

type MessagePage = components['schemas']['MessagePage'];
type MessageSummary = components['schemas']['MessageSummary'];
type MessageDetail = components['schemas']['MessageDetail'];

/**
 * A nodemailer transport for the submission port, logged in as `sandbox` (its smtpUsername and smtpPassword):
 * STARTTLS required (the test certificate accepted); `extra` adds or overrides transport options.
 */
export function sandboxTransport(
  port: number,
  sandbox: Record<string, any>,
  extra: Record<string, unknown> = {},
) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    requireTLS: true,
    tls: { rejectUnauthorized: false },
    auth: { user: sandbox.smtpUsername, pass: sandbox.smtpPassword },
    ...extra,
  });
}

/** A nodemailer transport for the inbound port: no AUTH; STARTTLS when offered. */
export function inboundTransport(port: number) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    tls: { rejectUnauthorized: false },
  });
}

/** nodemailer's error for a refused send: the SMTP reply code and text (and the refused recipients). */
export async function refusal(
  p: Promise<unknown>,
): Promise<{ responseCode: number; response: string; rejected?: string[] }> {
  return p.then(
    () => assert.fail('the send was expected to be refused'),
    (e: unknown) => e as { responseCode: number; response: string },
  );
}

export async function listMessages(
  ws: TestServerWorkspace,
  sandboxId: string,
  query = '',
): Promise<MessageSummary[]> {
  const res = await ws.api(`/sandboxes/${sandboxId}/messages${query}`);
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as MessagePage).items;
}

export async function messageDetail(
  ws: TestServerWorkspace,
  sandboxId: string,
  messageId: string,
): Promise<MessageDetail> {
  const res = await ws.api(`/sandboxes/${sandboxId}/messages/${messageId}`);
  assert.equal(res.status, 200);
  return (await res.json()) as MessageDetail;
}

/** The detail of the sandbox's only message (asserting there is exactly one). */
export async function onlyMessage(ws: TestServerWorkspace, sandboxId: string): Promise<MessageDetail> {
  const items = await listMessages(ws, sandboxId);
  assert.equal(items.length, 1, `exactly one message expected, got ${items.length}`);
  return messageDetail(ws, sandboxId, (items[0] as MessageSummary).id);
}

/** The raw source of a captured message. */
export async function rawOf(ws: TestServerWorkspace, sandboxId: string, messageId: string): Promise<Buffer> {
  const res = await ws.api(`/sandboxes/${sandboxId}/messages/${messageId}/raw`);
  assert.equal(res.status, 200);
  return Buffer.from(await res.arrayBuffer());
}
