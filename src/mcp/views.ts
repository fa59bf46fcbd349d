// Core values as the snake_case shapes MCP tools return, with OTP and links extracted where an agent wants them.
import { emailItemOf, extractLinks, extractOtp, otpInputOf } from '../core/extract/index.ts';
import type { MessageDetail, MessageSummary } from '../core/messages.ts';
import type { RequestDetail, RequestSummary } from '../core/requests.ts';
import type { Sandbox } from '../core/sandboxes.ts';

const iso = (d: Date | null) => (d === null ? null : d.toISOString());
const MAX_TEXT = 4000;

export function sandboxView(s: Sandbox) {
  return {
    sandbox_id: s.id,
    name: s.name,
    email_address: s.emailAddress,
    email_domain: s.emailDomain,
    smtp: {
      host: s.smtpHost,
      port: s.smtpPort,
      username: s.smtpUsername,
      password: s.smtpPassword,
      starttls: true,
    },
    capture_url: s.captureUrl,
    expires_at: iso(s.expiresAt),
    created_at: iso(s.createdAt),
    tags: s.tags,
  };
}

export function mockRuleViews(s: Sandbox) {
  return s.mocks.map((r) => ({
    id: r.id,
    name: r.name,
    method: r.method,
    pattern: r.pattern,
    status_code: r.statusCode,
    headers: r.headers,
    body: r.body,
    is_fallback: r.isFallback,
  }));
}

export function emailSummaryView(m: MessageSummary) {
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
  };
}

function cut(text: string | null): string | null {
  return text === null || text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT)}…`;
}

/** An email with its one-time code and links already extracted, so the agent needs no second call. */
export function emailView(m: MessageDetail) {
  const otp = extractOtp(otpInputOf(m));
  const item = emailItemOf(m);
  return {
    id: m.id,
    subject: m.subject,
    from: m.from,
    to: m.to,
    captured_for: m.capturedFor,
    received_at: iso(m.receivedAt),
    text: cut(m.textBody ?? (item.html === null ? null : null)),
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

export function requestSummaryView(r: RequestSummary) {
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
  };
}

export function requestView(r: RequestDetail) {
  return {
    ...requestSummaryView(r),
    headers: r.headers,
    query_params: r.queryParams,
    form: r.form,
    body: cut(r.body),
    body_encoding: r.bodyEncoding,
    body_truncated: r.bodyTruncated || (r.body !== null && r.body.length > MAX_TEXT),
    json: r.json,
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
