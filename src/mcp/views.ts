// Core values as the snake_case shapes MCP tools return, each beside the schema that describes it to clients,
// with OTP and links extracted where an agent wants them.
import { z } from 'zod';
import { extractLinks, extractOtp, htmlToPlainText, otpInputOf, primaryLink } from '../core/extract/index.ts';
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
  catch_all: z.boolean().optional().describe('Catches inbound mail to any outside address.'),
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
  // Issue 40's fields, present only on rules that set them (the callbacks as REST returns them).
  delay_ms: z.union([z.number(), z.object({ min: z.number(), max: z.number() })]).optional(),
  fault: z.object({ type: z.string(), durationMs: z.number().optional() }).optional(),
  times: z.number().optional(),
  scenario: z.string().optional(),
  required_state: z.string().optional(),
  new_state: z.string().optional(),
  state_key: z.string().optional(),
  callbacks: z.array(z.record(z.string(), z.unknown())).optional(),
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
    ...(s.catchAll ? { catch_all: true } : {}),
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
      ...(r.delayMs === undefined ? {} : { delay_ms: r.delayMs }),
      ...(r.fault === undefined ? {} : { fault: r.fault }),
      ...(r.times === undefined ? {} : { times: r.times }),
      ...(r.scenario === undefined ? {} : { scenario: r.scenario }),
      ...(r.requiredState === undefined ? {} : { required_state: r.requiredState }),
      ...(r.newState === undefined ? {} : { new_state: r.newState }),
      ...(r.stateKey === undefined ? {} : { state_key: r.stateKey }),
      ...(r.callbacks === undefined ? {} : { callbacks: r.callbacks.map((c) => ({ ...c })) }),
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
  traceparent: nullableString,
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
    traceparent: m.traceparent,
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
  primary_link: linkSchema
    .nullable()
    .describe('The link a person would click (verify, reset, magic login, invite); null when there is none.'),
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
    traceparent: m.traceparent,
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
    primary_link: primaryLink({ text: m.textBody, html: m.htmlBody }),
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
  traceparent: nullableString,
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
    traceparent: r.traceparent,
  };
}

/** Request bodies come back whole up to this many characters (a 4.5 KB webhook must verify byte for byte). */
export const MAX_BODY_CHARS = 256 * 1024;
/** JSON paths listed when the parsed view is not asked for. */
const MAX_JSON_PATHS = 60;

export const requestInclude = z
  .array(z.enum(['json', 'form']))
  .optional()
  .describe('Parsed views to add: json (the body parsed), form. By default only json_paths lists the keys.');

export const requestSchema = requestSummarySchema.extend({
  headers: nameValues,
  query_params: nameValues,
  body: nullableString.describe('The body exactly as received (base64 when body_encoding says so).'),
  body_encoding: z.enum(['utf8', 'base64']),
  body_truncated: z.boolean(),
  json_paths: z.array(z.string()).describe('Paths of the JSON body ($.a.b, $.items[0]); [] when not JSON.'),
  json: z.json().optional().describe('With include ["json"]: the body parsed; null when it is not JSON.'),
  form: nameValues.optional().describe('With include ["form"]: the urlencoded or multipart text fields.'),
  content_encoding: nullableString,
  body_decoding: z.enum(['none', 'decoded', 'cut', 'failed']),
  body_note: nullableString,
  response: z
    .object({
      status_code: z.number(),
      headers: nameValues,
      body: nullableString,
      body_encoding: z.enum(['utf8', 'base64']),
      body_truncated: z.boolean().describe('The recorded reply body stops at 64 KB.'),
      size_bytes: z.number(),
      note: nullableString.describe(
        'Why a template rendered as it did (e.g. a request body that is not JSON).',
      ),
    })
    .nullable()
    .describe(
      'The reply the mock sent, as it went on the wire; null for requests captured before it was kept.',
    ),
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

/** Leaf and container paths of a parsed JSON value, breadth first, at most MAX_JSON_PATHS. */
export function jsonPaths(value: unknown): string[] {
  const out: string[] = [];
  const queue: Array<[string, unknown]> = [['$', value]];
  while (queue.length > 0 && out.length < MAX_JSON_PATHS) {
    const [path, v] = queue.shift() as [string, unknown];
    if (Array.isArray(v)) {
      // The first element shows the shape of a list; the rest repeat it.
      if (v.length > 0) queue.push([`${path}[0]`, v[0]]);
      if (path !== '$') out.push(path);
    } else if (v !== null && typeof v === 'object') {
      for (const [key, child] of Object.entries(v)) {
        const step = /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
        queue.push([`${path}${step}`, child]);
      }
      if (path !== '$') out.push(path);
    } else if (path !== '$') {
      out.push(path);
    }
  }
  return out;
}

export function requestView(
  r: RequestDetail,
  sandboxUrl: string,
  include: ReadonlyArray<'json' | 'form'> = [],
): z.infer<typeof requestSchema> {
  const body = r.body === null || r.body.length <= MAX_BODY_CHARS ? r.body : r.body.slice(0, MAX_BODY_CHARS);
  return {
    ...requestSummaryView(r, sandboxUrl),
    headers: r.headers,
    query_params: r.queryParams,
    body,
    body_encoding: r.bodyEncoding,
    body_truncated: r.bodyTruncated || body !== r.body,
    json_paths: r.json === null || r.json === undefined ? [] : jsonPaths(r.json),
    ...(include.includes('json') ? { json: (r.json ?? null) as z.infer<typeof requestSchema>['json'] } : {}),
    ...(include.includes('form') ? { form: r.form } : {}),
    content_encoding: r.contentEncoding,
    body_decoding: r.bodyDecoding,
    body_note: r.bodyNote,
    response:
      r.response === null || r.response === undefined
        ? null
        : {
            status_code: r.response.statusCode,
            headers: r.response.headers,
            body: r.response.body,
            body_encoding: r.response.bodyEncoding,
            body_truncated: r.response.bodyTruncated,
            size_bytes: r.response.sizeBytes,
            note: r.response.note,
          },
    files: r.files.map((f) => ({
      index: f.index,
      field: f.field,
      file_name: f.fileName,
      content_type: f.contentType,
      size_bytes: f.sizeBytes,
    })),
  };
}

/** The raw bytes of a request as an MCP resource (resources/read), for bodies past MAX_BODY_CHARS. */
export function requestRawUri(sandboxId: string, requestId: string): string {
  return `sandtrap://sandboxes/${sandboxId}/requests/${requestId}/raw`;
}

/** The raw source of an email as an MCP resource. */
export function emailRawUri(sandboxId: string, emailId: string): string {
  return `sandtrap://sandboxes/${sandboxId}/emails/${emailId}/raw`;
}

/** What to do with a request: verify it, read its values; where the rest of a cut body is. */
export function requestHint(request: z.infer<typeof requestSchema>, sandboxId: string): string {
  const next = `To wait for the next request, pass after: "${request.id}".`;
  if (request.body_truncated) {
    return (
      `The body (${request.size_bytes} bytes) is cut here: read it whole as the resource ` +
      `${requestRawUri(sandboxId, request.id)} (resources/read), or extract_from_body with mode "text". ${next}`
    );
  }
  const signed = request.headers.some((h) =>
    /^(stripe-signature|x-hub-signature-256|webhook-signature|svix-signature|x-shopify-hmac-sha256|x-slack-signature|x-twilio-signature)$/i.test(
      h.name,
    ),
  );
  const verify = signed ? 'It is signed: check it with verify_signature. ' : '';
  const values =
    request.json_paths.length > 0
      ? 'Read values with extract_from_body mode json_path, or pass include ["json"]. '
      : '';
  return `${verify}${values}${next}`.trim();
}

/**
 * resource_link blocks for the email or request a tool result carries, so clients that read resources get the
 * raw source or bytes without another tool call.
 */
export function rawLinks(
  args: Record<string, unknown>,
  structured: Record<string, unknown>,
): Array<{ type: 'resource_link'; uri: string; name: string; mimeType: string; description: string }> {
  const sandboxId = typeof args.sandbox_id === 'string' ? args.sandbox_id : undefined;
  if (sandboxId === undefined) return [];
  const idOf = (v: unknown) =>
    v !== null && typeof v === 'object' && typeof (v as { id?: unknown }).id === 'string'
      ? (v as { id: string }).id
      : undefined;
  const email = idOf(structured.email);
  const request = idOf(structured.request);
  const links = [];
  if (email !== undefined) {
    links.push({
      type: 'resource_link' as const,
      uri: emailRawUri(sandboxId, email),
      name: `email-${email}.eml`,
      mimeType: 'message/rfc822',
      description: 'The email exactly as received.',
    });
  }
  if (request !== undefined) {
    links.push({
      type: 'resource_link' as const,
      uri: requestRawUri(sandboxId, request),
      name: `request-${request}.http`,
      mimeType: 'message/http',
      description: 'The request exactly as received, body whole.',
    });
  }
  return links;
}
