// Core values to the published JSON shapes; typed against the OpenAPI-generated types so drift fails to compile.
import { extractLinks, extractOtp, otpInputOf } from '../core/extract/index.ts';
import type { ApiKeyView, CreatedKey, Principal } from '../core/apiKeys.ts';
import type { MessageDetail, MessageSummary } from '../core/messages.ts';
import type { StoredMockRule } from '../core/mocks/types.ts';
import type { RequestDetail, RequestSummary } from '../core/requests.ts';
import type { Page } from '../core/pagination.ts';
import type { ReplayResult } from '../core/replay/service.ts';
import type { Sandbox } from '../core/sandboxes.ts';
import type { SandboxActivity } from '../core/streamActions.ts';
import type { Account } from '../core/workspaces.ts';
import type { CreatedWebhook, Webhook, WebhookDelivery } from '../core/webhooks/service.ts';
import type { SmtpFaultStepView, SmtpSession } from '../core/smtpFaults/types.ts';
import type { components } from '../../openapi/schema.d.ts';

type Schemas = components['schemas'];

const iso = (d: Date): string => d.toISOString();
const isoOrNull = (d: Date | null): string | null => (d === null ? null : d.toISOString());

export function pageDto<T, D>(page: Page<T>, map: (item: T) => D): { items: D[]; nextCursor: string | null } {
  return { items: page.items.map(map), nextCursor: page.nextCursor };
}

export function mockRuleDto(r: StoredMockRule): Schemas['MockRule'] {
  return {
    id: r.id,
    name: r.name,
    method: r.method,
    pattern: r.pattern,
    statusCode: r.statusCode,
    headers: r.headers,
    body: r.body,
    isFallback: r.isFallback,
    // Issue 40's fields appear only on rules that set them.
    ...(r.delayMs === undefined ? {} : { delayMs: r.delayMs }),
    ...(r.fault === undefined ? {} : { fault: r.fault }),
    ...(r.times === undefined ? {} : { times: r.times }),
    ...(r.scenario === undefined ? {} : { scenario: r.scenario }),
    ...(r.requiredState === undefined ? {} : { requiredState: r.requiredState }),
    ...(r.newState === undefined ? {} : { newState: r.newState }),
    ...(r.stateKey === undefined ? {} : { stateKey: r.stateKey }),
    ...(r.callbacks === undefined ? {} : { callbacks: r.callbacks }),
  };
}

export function sandboxDto(s: Sandbox): Schemas['Sandbox'] {
  return {
    id: s.id,
    name: s.name,
    tags: s.tags,
    smtpHost: s.smtpHost,
    smtpPort: s.smtpPort,
    smtpUsername: s.smtpUsername,
    smtpPassword: s.smtpPassword,
    captureUrl: s.captureUrl,
    mocks: s.mocks.map(mockRuleDto),
    createdAt: iso(s.createdAt),
    isEphemeral: s.isEphemeral,
    expiresAt: isoOrNull(s.expiresAt),
    emailDomain: s.emailDomain,
    emailAddress: s.emailAddress,
    dashboardUrl: s.dashboardUrl,
    catchAll: s.catchAll,
    providerBaseUrls: s.providerBaseUrls,
  };
}

export function apiKeyDto(k: ApiKeyView): Schemas['ApiKey'] {
  return {
    id: k.id,
    label: k.label,
    prefix: k.prefix,
    revoked: k.revoked,
    expired: k.expired,
    lastUsedAt: isoOrNull(k.lastUsedAt),
    lastUsedIp: k.lastUsedIp,
    expiresAt: isoOrNull(k.expiresAt),
    revokedAt: isoOrNull(k.revokedAt),
    createdAt: iso(k.createdAt),
  };
}

export function createdKeyDto(k: CreatedKey): Schemas['CreatedApiKey'] {
  return {
    id: k.id,
    label: k.label,
    prefix: k.prefix,
    key: k.key,
    expiresAt: isoOrNull(k.expiresAt),
    createdAt: iso(k.createdAt),
  };
}

export function accountDto(a: Account): Schemas['Account'] {
  return { orgId: a.orgId, name: a.name, subdomain: a.subdomain, createdAt: iso(a.createdAt) };
}

export function whoamiDto(p: Principal): Schemas['WhoAmI'] {
  return {
    workspaceId: p.workspaceId,
    workspaceName: p.workspaceName,
    keyId: p.keyId,
    keyPrefix: p.keyPrefix,
    label: p.label,
  };
}

export function messageSummaryDto(m: MessageSummary): Schemas['MessageSummary'] {
  return {
    id: m.id,
    from: m.from,
    to: m.to,
    subject: m.subject,
    preview: m.preview,
    isRead: m.isRead,
    attachmentCount: m.attachmentCount,
    receivedAt: iso(m.receivedAt),
    sizeBytes: m.sizeBytes,
    capturedFor: m.capturedFor,
    traceparent: m.traceparent,
  };
}

/** The detail lists at most this many links, as the MCP views do. */
const MAX_LINKS = 50;

export function messageDetailDto(m: MessageDetail): Schemas['MessageDetail'] {
  return {
    id: m.id,
    from: m.from,
    to: m.to,
    subject: m.subject,
    isRead: m.isRead,
    receivedAt: iso(m.receivedAt),
    sizeBytes: m.sizeBytes,
    capturedFor: m.capturedFor,
    textBody: m.textBody,
    htmlBody: m.htmlBody,
    headers: m.headers,
    // Rows stored before contentId existed have no such key: null, as for a part without a Content-ID.
    attachments: m.attachments.map((a) => ({ ...a, contentId: a.contentId ?? null })),
    parseError: m.parseError,
    // Read-back for people and test suites as for agents: the code and links, extracted on read.
    otp: extractOtp(otpInputOf(m)),
    links: extractLinks({ text: m.textBody, html: m.htmlBody }).slice(0, MAX_LINKS),
    traceparent: m.traceparent,
  };
}

export function requestSummaryDto(r: RequestSummary): Schemas['RequestSummary'] {
  return {
    id: r.id,
    method: r.method,
    path: r.path,
    query: r.query,
    mockStatusCode: r.mockStatusCode,
    mockName: r.mockName,
    sourceIp: r.sourceIp,
    receivedAt: iso(r.receivedAt),
    sizeBytes: r.sizeBytes,
    isRead: r.isRead,
    traceparent: r.traceparent,
  };
}

export function requestDetailDto(r: RequestDetail): Schemas['RequestDetail'] {
  return {
    ...requestSummaryDto(r),
    headers: r.headers,
    queryParams: r.queryParams,
    form: r.form,
    body: r.body,
    bodyTruncated: r.bodyTruncated,
    bodyEncoding: r.bodyEncoding,
    json: r.json,
    contentEncoding: r.contentEncoding,
    bodyDecoding: r.bodyDecoding,
    bodyNote: r.bodyNote,
    files: r.files.map((f) => ({
      index: f.index,
      field: f.field,
      fileName: f.fileName,
      contentType: f.contentType,
      sizeBytes: f.sizeBytes,
    })),
    redactedCookies: r.redactedCookies,
    response:
      r.response === null
        ? null
        : {
            statusCode: r.response.statusCode,
            headers: r.response.headers,
            body: r.response.body,
            bodyEncoding: r.response.bodyEncoding,
            bodyTruncated: r.response.bodyTruncated,
            sizeBytes: r.response.sizeBytes,
            note: r.response.note,
          },
  };
}

export function webhookDto(w: Webhook): Schemas['Webhook'] {
  return {
    id: w.id,
    url: w.url,
    sandboxId: w.sandboxId,
    events: w.events as Schemas['WebhookEventType'][],
    description: w.description,
    createdAt: w.createdAt.toISOString(),
  };
}

export function createdWebhookDto(w: CreatedWebhook): Schemas['CreatedWebhook'] {
  return { ...webhookDto(w), secret: w.secret };
}

export function webhookDeliveryDto(d: WebhookDelivery): Schemas['WebhookDelivery'] {
  return {
    id: d.id,
    messageId: d.messageId,
    eventType: d.eventType,
    attempt: d.attempt,
    outcome: d.outcome,
    statusCode: d.statusCode,
    durationMs: d.durationMs,
    responseExcerpt: d.responseExcerpt,
    error: d.error,
    nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
    at: d.at.toISOString(),
  };
}

export function smtpFaultsDto(steps: SmtpFaultStepView[]): Schemas['SmtpFaults'] {
  return { faults: steps.map((s) => ({ ...s })) };
}

export function smtpSessionDto(s: SmtpSession): Schemas['SmtpSession'] {
  return {
    id: s.id,
    listener: s.listener,
    remoteAddress: s.remoteAddress,
    startedAt: iso(s.startedAt),
    endedAt: isoOrNull(s.endedAt),
    events: s.events,
  };
}

export function sandboxActivityDto(a: SandboxActivity): Schemas['SandboxActivity'] {
  const stream = (s: SandboxActivity['messages']): Schemas['StreamActivity'] => ({
    total: s.total,
    unread: s.unread,
    lastReceivedAt: isoOrNull(s.lastReceivedAt),
  });
  return { sandboxId: a.sandboxId, messages: stream(a.messages), requests: stream(a.requests) };
}

export function replayResultDto(r: ReplayResult): Schemas['ReplayResult'] {
  return { ...r };
}
