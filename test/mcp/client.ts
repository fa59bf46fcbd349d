// Helpers for the MCP tests: a v1 SDK Client over real Streamable HTTP, tool calls whose result shape
// (one text block holding the same JSON as structuredContent) is checked on every call, real SMTP and
// capture senders, and bounded polling.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { eventually } from '../helpers/poll.ts';

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const TOOL_NAMES = [
  'create_sandbox',
  'wait_for_email',
  'wait_for_request',
  'expect',
  'extract_otp',
  'extract_from_body',
  'list_sandboxes',
  'get_sandbox',
  'delete_sandbox',
  'set_mock_rules',
  'mock_state',
  'wait_for_callback',
  'list_emails',
  'get_email',
  'list_requests',
  'get_request',
  'verify_signature',
  'set_smtp_faults',
  'list_smtp_sessions',
];

/** A connected v1 SDK client speaking Streamable HTTP to `<apiUrl>/mcp` with `key` as Bearer token. */
export async function connectHttp(apiUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: 'sandtrap-mcp-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${apiUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(transport, { timeout: 10_000 });
  return client;
}

export interface ToolOutcome {
  result: CallToolResult;
  /** structuredContent (successful calls). */
  data: Record<string, any>;
  /** The single text block. */
  text: string;
}

/**
 * The text block of a result: every result, error or not, carries exactly one, first; a result about an email
 * or a request may follow it with resource_link blocks (the raw source or bytes, for resources/read).
 */
export function textOf(result: CallToolResult): string {
  const [block, ...rest] = result.content;
  assert.ok(
    block !== undefined && block.type === 'text',
    `the first content block is text: ${JSON.stringify(result.content)}`,
  );
  assert.ok(
    rest.every((b) => b.type === 'resource_link'),
    `only resource_link blocks follow the text: ${JSON.stringify(rest)}`,
  );
  return block.text;
}

/**
 * Call options that make the client send a progress token: a wait then runs its whole timeout_seconds instead
 * of answering still_waiting by 50 s (the cap for clients that send none), as a test that ends it early wants.
 */
export const WITH_PROGRESS: RequestOptions = { onprogress: () => {} };

/** Calls a tool (15 s request timeout unless given); a successful result must carry the same JSON twice. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: RequestOptions = {},
): Promise<ToolOutcome> {
  const result = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 15_000,
    ...options,
  })) as CallToolResult;
  const text = textOf(result);
  if (result.isError === true) return { result, data: {}, text };
  assert.ok(result.structuredContent !== undefined, `${name} returns structuredContent`);
  assert.deepEqual(JSON.parse(text), result.structuredContent, `${name}: the text block is the same JSON`);
  assert.equal(typeof result.structuredContent.hint, 'string', `${name}: the result has a hint`);
  assert.ok((result.structuredContent.hint as string).length > 0, `${name}: the hint is not empty`);
  return { result, data: result.structuredContent as Record<string, any>, text };
}

/** A call that must succeed; returns its structuredContent. */
export async function ok(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: RequestOptions = {},
): Promise<Record<string, any>> {
  const out = await callTool(client, name, args, options);
  assert.ok(out.result.isError !== true, `${name} succeeds, got: ${out.text}`);
  return out.data;
}

/** A call that must be an isError result; returns its text. */
export async function fails(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const out = await callTool(client, name, args);
  assert.equal(out.result.isError, true, `${name} is an isError result, got: ${out.text}`);
  return out.text;
}

/** Sends one mail through the authenticated submission port with a create_sandbox result's smtp credentials. */
export async function sendMail(port: number, sb: Record<string, any>, mail: SendMailOptions): Promise<void> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    requireTLS: true,
    tls: { rejectUnauthorized: false },
    auth: { user: sb.smtp.username, pass: sb.smtp.password },
    connectionTimeout: 5_000,
    greetingTimeout: 5_000,
    socketTimeout: 10_000,
  });
  try {
    await transport.sendMail({ from: 'Acme <no-reply@acme.test>', to: 'inbox@example.test', ...mail });
  } finally {
    transport.close();
  }
}

/** Sends one HTTP request to `<captureUrl><path>`; returns the response with its body read. */
export async function capture(
  captureUrl: string,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; headers: Headers; body: string; requestId: string }> {
  const res = await fetch(`${captureUrl}${path}`, { ...init, signal: AbortSignal.timeout(30_000) });
  const body = await res.text();
  const requestId = res.headers.get('x-sandtrap-request-id') ?? '';
  assert.match(requestId, UUID_RE, `the capture was recorded (status ${res.status})`);
  return { status: res.status, headers: res.headers, body, requestId };
}

/** Polls `cond` until it holds (a generous bound: it fails only when the state never comes). */
export async function waitUntil(cond: () => boolean, what: string): Promise<void> {
  await eventually(what, cond, 20_000, 20);
}
