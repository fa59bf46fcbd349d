// Core values as the snake_case shapes MCP tools return, each beside the schema that describes it to clients,
// with OTP and links extracted where an agent wants them.
import { z } from 'zod';
import { extractLinks, extractOtp, htmlToPlainText, otpInputOf } from '../core/extract/index.ts';
import type { MessageDetail, MessageSummary } from '../core/messages.ts';
import type { RequestDetail, RequestSummary } from '../core/requests.ts';
import type { Sandbox } from '../core/sandboxes.ts';

const iso = (d: Date) => d.toISOString();
const isoOrNull = (d: Date | null) => (d === null ? null : d.toISOString());
const MAX_TEXT = 4000;

const nullableString = z.string().nullable();
const nameValues = z.array(z.object({ name: z.string(), value: z.string() }));

const smtpBase = { host: z.string(), port: z.number(), username: z.string(), starttls: z.boolean() };

/** A sandbox as lists show it: everything but the SMTP password, which only create/get return. */
export const sandboxSummarySchema = z.object({
  sandbox_id: z.string(),
  name: z.string(),
  email_address: z.string(),
  email_domain: z.string(),
  smtp: z.object(smtpBase),
  capture_url: z.string(),
  expires_at: nullableString,
  created_at: z.string(),
  tags: z.record(z.string(), z.string()),
  dashboard_url: z.string().describe('The sandbox in the dashboard, for a person to look at.'),
});

export const mockRuleSchema = z.object({
  id: z.string(),
  name: z.string(),
  method: z.string(),
  pattern: z.string(),
  status_code: z.number(),
  headers: z.record(z.string(), z.string()),
  body: nullableString,
  is_fallback: z.boolean(),
});

/** A sandbox with its SMTP password and mock rules (create_sandbox, get_sandbox). */
export const sandboxSchema = sandboxSummarySchema.extend({
  smtp: z.object({ ...smtpBase, password: z.string() }),
  mock_rules: z.array(mockRuleSchema),
});

export function sandboxSummaryView(s: Sandbox): z.infer<typeof sandboxSummarySchema> {
  return {
    sandbox_id: s.id,
    name: s.name,
    email_address: s.emailAddress,
    email_domain: s.emailDomain,
    smtp: { host: s.smtpHost, port: s.smtpPort, username: s.smtpUsername, starttls: true },
    capture_url: s.captureUrl,
    expires_at: isoOrNull(s.expiresAt),
    created_at: iso(s.createdAt),
    tags: s.tags,
    dashboard_url: s.dashboardUrl,
  };
}

export function sandboxView(s: Sandbox): z.infer<typeof sandboxSchema> {
  const summary = sandboxSummaryView(s);
  return {
    ...summary,
    smtp: { ...summary.smtp, password: s.smtpPassword },
    mock_rules: s.mocks.map((r) => ({
      id: r.id,
      name: r.name,
      method: r.method,
      pattern: r.pattern,
      status_code: r.statusCode,
      headers: r.headers,
      body: r.body,
      is_fallback: r.isFallback,
    })),
  };
}

export const emailSummarySchema = z.object({
  id: z.string(),
  subject: nullableString,
  from: z.string(),
  to: z.array(z.string()),
  captured_for: z.array(z.string()),
  received_at: z.string(),
  preview: nullableString,
  is_read: z.boolean(),
  attachment_count: z.number(),
  dashboard_url: z.string(),
});

/** `sandboxUrl` is the sandbox's dashboard page (McpBackend.sandboxDashboardUrl). */
export function emailSummaryView(m: MessageSummary, sandboxUrl: string): z.infer<typeof emailSummarySchema> {
  return {
    id: m.id,
    subject: m.subject,
    from: m.from,
    to: m.to,
    captured_for: m.capturedFor,
    received_at: iso(m.receivedAt),
    preview: m.preview,
    is_read: m.isRead,
    attachment_count: m.attachmentCount,
    dashboard_url: `${sandboxUrl}/messages/${m.id}`,
  };
}

function cut(text: string | null): string | null {
  return text === null || text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT)}…`;
}

const otpSource = z.enum(['subject', 'text', 'html']);

export const otpSchema = z.object({
  status: z.enum(['found', 'ambiguous', 'not_found']),
  code: nullableString,
  confidence: z.number(),
  source: otpSource.nullable(),
  context: nullableString,
  candidates: z.array(
    z.object({ code: z.string(), confidence: z.number(), source: otpSource, context: nullableString }),
  ),
});

export const linkSchema = z.object({
  url: z.string(),
  text: z.string(),
  kind: z.enum(['verify', 'reset', 'magic_login', 'invite', 'unsubscribe', 'other']),
});

export const emailSchema = emailSummarySchema.omit({ preview: true, attachment_count: true }).extend({
  text: nullableString.describe('The text part, or text made from the HTML when the mail has none.'),
  has_html: z.boolean(),
  parse_error: nullableString,
  otp: otpSchema,
  links: z.array(linkSchema),
  attachments: z.array(
    z.object({
      index: z.number(),
      file_name: nullableString,
      content_type: z.string(),
      size_bytes: z.number(),
    }),
  ),
});

/** An email with its one-time code and links already extracted, so the agent needs no second call. */
export function emailView(m: MessageDetail, sandboxUrl: string): z.infer<typeof emailSchema> {
  const otp = extractOtp(otpInputOf(m));
  // HTML-only mail still gets readable text: agents read `text`, not markup.
  const text = m.textBody ?? (m.htmlBody === null ? null : htmlToPlainText(m.htmlBody));
  return {
    id: m.id,
    subject: m.subject,
    from: m.from,
    to: m.to,
    captured_for: m.capturedFor,
    received_at: iso(m.receivedAt),
    is_read: m.isRead,
    dashboard_url: `${sandboxUrl}/messages/${m.id}`,
    text: cut(text),
    has_html: m.htmlBody !== null,
    // Set when the mail could not be read whole: fields may be empty; the raw source is always kept.
    parse_error: m.parseError,
    otp: {
      status: otp.status,
      code: otp.code,
      confidence: otp.confidence,
      source: otp.source,
      context: otp.context,
      candidates: otp.candidates,
    },
    links: extractLinks({ text: m.textBody, html: m.htmlBody }).slice(0, 50),
    attachments: m.attachments.map((a) => ({
      index: a.index,
      file_name: a.fileName,
      content_type: a.contentType,
      size_bytes: a.sizeBytes,
    })),
  };
}

export const requestSummarySchema = z.object({
  id: z.string(),
  method: z.string(),
  path: z.string(),
  query: nullableString,
  mock_status_code: z.number(),
  mock_name: nullableString,
  source_ip: nullableString,
  received_at: z.string(),
  size_bytes: z.number(),
  is_read: z.boolean(),
  dashboard_url: z.string(),
});

export function requestSummaryView(
  r: RequestSummary,
  sandboxUrl: string,
): z.infer<typeof requestSummarySchema> {
  return {
    id: r.id,
    method: r.method,
    path: r.path,
    query: r.query,
    mock_status_code: r.mockStatusCode,
    mock_name: r.mockName,
    source_ip: r.sourceIp,
    received_at: iso(r.receivedAt),
    size_bytes: r.sizeBytes,
    is_read: r.isRead,
    dashboard_url: `${sandboxUrl}/requests/${r.id}`,
  };
}

export const requestSchema = requestSummarySchema.extend({
  headers: nameValues,
  query_params: nameValues,
  form: nameValues,
  body: nullableString,
  body_encoding: z.enum(['utf8', 'base64']),
  body_truncated: z.boolean(),
  json: z.json().describe('The body parsed as JSON; null when it is not JSON.'),
  content_encoding: nullableString,
  body_decoding: z.enum(['none', 'decoded', 'cut', 'failed']),
  body_note: nullableString,
  files: z.array(
    z.object({
      index: z.number(),
      field: nullableString,
      file_name: nullableString,
      content_type: z.string(),
      size_bytes: z.number(),
    }),
  ),
});

export function requestView(r: RequestDetail, sandboxUrl: string): z.infer<typeof requestSchema> {
  return {
    ...requestSummaryView(r, sandboxUrl),
    headers: r.headers,
    query_params: r.queryParams,
    form: r.form,
    body: cut(r.body),
    body_encoding: r.bodyEncoding,
    body_truncated: r.bodyTruncated || (r.body !== null && r.body.length > MAX_TEXT),
    json: (r.json ?? null) as z.infer<typeof requestSchema>['json'],
    content_encoding: r.contentEncoding,
    body_decoding: r.bodyDecoding,
    body_note: r.bodyNote,
    files: r.files.map((f) => ({
      index: f.index,
      field: f.field,
      file_name: f.fileName,
      content_type: f.contentType,
      size_bytes: f.sizeBytes,
    })),
  };
}
