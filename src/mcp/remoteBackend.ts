// The MCP tools' backend for `sandtrap mcp` over stdio: a running server's REST API through the typed client.
import type { QueuedCallback } from '../core/mocks/mockState.ts';
import type { CheckReports } from '../core/checks/service.ts';
import { AppError, type ErrorCode } from '../core/errors.ts';
import type { MessageDetail, MessageSummary } from '../core/messages.ts';
import type { Page } from '../core/pagination.ts';
import type { RequestDetail, RequestSummary } from '../core/requests.ts';
import type { Sandbox } from '../core/sandboxes.ts';
import type { SmtpFaultStepView, SmtpSessionEvent } from '../core/smtpFaults/types.ts';
import type { MessageMiss, RequestMiss } from '../core/waitMisses.ts';
import type { WaitResult } from '../core/waits.ts';
import type { components, SandtrapClient } from '../client/index.ts';
import { RemoteInternalError, type ExpectItem, type McpBackend, type WaitCall } from './backend.ts';
import { ToolError } from './toolkit.ts';

type S = components['schemas'];

const CODES: Record<number, ErrorCode> = {
  400: 'invalid_input',
  401: 'unauthorized',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  429: 'rate_limited',
};

/**
 * Unwraps an openapi-fetch result, turning a problem response into the core error it stands for. A 5xx other
 * than 503 is the server's own failure: only its request id comes back, never its text.
 */
function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error === undefined && result.response.ok) return result.data as T;
  const problem = (result.error ?? {}) as {
    detail?: string;
    requestId?: string;
    errors?: Array<{ path: string; message: string }>;
  };
  const status = result.response.status;
  if (status >= 500 && status !== 503) {
    throw new RemoteInternalError(
      problem.requestId ?? result.response.headers.get('x-request-id') ?? `HTTP ${status}`,
    );
  }
  const retryAfter = Number(result.response.headers.get('retry-after') ?? '');
  throw new AppError(
    CODES[status] ?? 'unavailable',
    problem.detail ?? `The sandtrap server answered ${status}.`,
    {
      ...(problem.errors === undefined ? {} : { errors: problem.errors }),
      ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {}),
    },
  );
}

/** Socket error codes that are really a timeout, said as one word. */
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT']);

/**
 * The short form of why fetch failed (`ECONNREFUSED`, `ENOTFOUND`, `timeout`...): fetch's own text is only
 * "fetch failed", the socket error is its cause (or, when several addresses were tried, the cause's first).
 */
export function socketReason(err: unknown): string {
  let at: unknown = err;
  for (let depth = 0; depth < 4 && at instanceof Error; depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return TIMEOUT_CODES.has(code) ? 'timeout' : code;
    const inner: unknown = (at as { errors?: unknown[] }).errors?.[0] ?? at.cause;
    if (inner === undefined) break;
    at = inner;
  }
  if (at instanceof Error && at.name === 'TimeoutError') return 'timeout';
  return at instanceof Error && at.message !== 'fetch failed' ? at.message : 'no answer';
}

/** A server that cannot be reached: what happened and the two ways to get going, never "fetch failed". */
function reachFor(serverUrl: string) {
  return async function reach<R>(request: Promise<R>, signal?: AbortSignal): Promise<R> {
    try {
      return await request;
    } catch (err) {
      if (signal?.aborted === true) throw err;
      throw new ToolError(
        'UNAVAILABLE',
        `sandtrap at ${serverUrl} did not answer (${socketReason(err)})`,
        'Start it with npm start, or run sandtrap mcp --embedded.',
      );
    }
  };
}

/** The wait report as openapi/v1.yaml describes the Sandtrap-Wait-Misses header. */
interface WireReport<M> {
  nonMatchingArrivals: number;
  misses: Array<Omit<M, 'receivedAt'> & { receivedAt: string }>;
}

function waitReport<M>(response: Response): { nonMatching: number; misses: M[] } {
  const header = response.headers.get('sandtrap-wait-misses');
  if (header === null) return { nonMatching: 0, misses: [] };
  const report = JSON.parse(decodeURIComponent(header)) as WireReport<M>;
  return {
    nonMatching: report.nonMatchingArrivals,
    misses: report.misses.map((m) => ({ ...m, receivedAt: date(m.receivedAt) }) as M),
  };
}

const date = (s: string) => new Date(s);

/** The query both REST waits take besides their own filters: the claim, the miss report, the instants. */
function waitQuery(f: { isRead?: boolean | undefined; since?: Date | undefined }, call: WaitCall) {
  return {
    isRead: f.isRead,
    since: iso(f.since),
    timeoutSeconds: call.timeoutSeconds,
    markRead: call.claim,
    explain: true,
    onlyNewer: call.onlyNewer,
  };
}

/** A REST wait's answer as core's WaitResult: 204 is the timeout; either way the header carries the misses. */
function waitAnswer<D, T, M>(
  res: { data?: unknown; error?: unknown; response: Response },
  map: (d: D) => T,
): WaitResult<T, M> {
  const report = waitReport<M>(res.response);
  if (res.response.status === 204) return { status: 'timeout', ...report };
  return { status: 'found', item: map(unwrap(res) as D), ...report };
}

function sandbox(s: S['Sandbox']): Sandbox {
  return {
    ...s,
    createdAt: date(s.createdAt),
    expiresAt: s.expiresAt === null ? null : date(s.expiresAt),
    catchAll: s.catchAll ?? false,
  };
}

function messageSummary(m: S['MessageSummary']): MessageSummary {
  return { ...m, receivedAt: date(m.receivedAt), attachmentCount: m.attachmentCount ?? 0 };
}

function messageDetail(m: S['MessageDetail']): MessageDetail {
  return { ...m, receivedAt: date(m.receivedAt) };
}

function requestSummary(r: S['RequestSummary']): RequestSummary {
  return { ...r, receivedAt: date(r.receivedAt) };
}

function requestDetail(r: S['RequestDetail']): RequestDetail {
  return {
    ...r,
    receivedAt: date(r.receivedAt),
    bodyEncoding: r.bodyEncoding ?? 'utf8',
    json: r.json ?? null,
  };
}

function queuedCallback(c: S['QueuedCallback']): QueuedCallback {
  return {
    ...c,
    status: c.status,
    nextAttemptAt: date(c.nextAttemptAt),
    createdAt: date(c.createdAt),
    deliveries: c.deliveries.map((d) => ({
      ...d,
      nextAttemptAt: d.nextAttemptAt === null ? null : date(d.nextAttemptAt),
      at: date(d.at),
    })),
  };
}

function page<D, T>(p: { items: D[]; nextCursor: string | null }, map: (d: D) => T): Page<T> {
  return { items: p.items.map(map), nextCursor: p.nextCursor };
}

function expectItem(i: S['ExpectationItem']): ExpectItem {
  const receivedAt = date(i.receivedAt);
  return i.stream === 'messages'
    ? { stream: 'messages', id: i.id, receivedAt, subject: i.subject ?? null, from: i.from ?? '' }
    : { stream: 'requests', id: i.id, receivedAt, method: i.method ?? '', path: i.path ?? '' };
}

const iso = (d: Date | undefined) => (d === undefined ? undefined : d.toISOString());

export function remoteBackend(client: SandtrapClient): McpBackend {
  const reach = reachFor(client.serverUrl);
  const path = (id: string) => ({ params: { path: { id } } });
  const sb = (sandboxId: string) => ({ sandboxId });
  // The server knows its public URL (PUBLIC_URL); a sandbox's page is asked for once and kept.
  const dashboardUrls = new Map<string, Promise<string>>();
  const backend: McpBackend = {
    sandboxDashboardUrl(id) {
      let url = dashboardUrls.get(id);
      if (url === undefined) {
        url = backend.getSandbox(id).then((s) => s.dashboardUrl);
        url.catch(() => dashboardUrls.delete(id));
        dashboardUrls.set(id, url);
      }
      return url;
    },
    async createSandbox(input) {
      const body = {
        name: input.name,
        tags: input.tags ?? null,
        ...(input.ephemeral === true ? { ephemeral: true, ttlMinutes: input.ttlMinutes ?? null } : {}),
      };
      return sandbox(unwrap(await reach(client.POST('/sandboxes', { body }))));
    },
    async getSandbox(id) {
      return sandbox(unwrap(await reach(client.GET('/sandboxes/{id}', path(id)))));
    },
    async listSandboxes(query) {
      return page(unwrap(await reach(client.GET('/sandboxes', { params: { query } }))), sandbox);
    },
    async deleteSandbox(id) {
      unwrap(await reach(client.DELETE('/sandboxes/{id}', path(id))));
    },
    async mockScenarios(id, query, reset) {
      const params = { path: { id }, query };
      if (reset) unwrap(await reach(client.DELETE('/sandboxes/{id}/scenarios', { params })));
      const got = unwrap(await reach(client.GET('/sandboxes/{id}/scenarios', { params })));
      return got.states.map((s) => ({ ...s, updatedAt: date(s.updatedAt) }));
    },
    async mockCallbacks(id, query) {
      const params = { path: { id }, query };
      return page(unwrap(await reach(client.GET('/sandboxes/{id}/callbacks', { params }))), queuedCallback);
    },
    async waitForCallback(id, query, signal) {
      const params = {
        path: { id },
        query: { ...query, outcome: query.outcome as 'delivered' | 'failed' | 'attempted' },
      };
      const res = await reach(client.GET('/sandboxes/{id}/callbacks/wait', { params, signal }), signal);
      if (res.response.status === 204) return undefined;
      return queuedCallback(unwrap(res));
    },
    async setMocks(id, update) {
      const body = update as never;
      return sandbox(unwrap(await reach(client.PUT('/sandboxes/{id}/mocks', { ...path(id), body }))));
    },
    async setSmtpFaults(id, update) {
      const body = update as never;
      const saved = unwrap(await reach(client.PUT('/sandboxes/{id}/smtp-faults', { ...path(id), body })));
      return saved.faults as SmtpFaultStepView[];
    },
    async listSmtpSessions(id, query) {
      const params = { path: { id }, query };
      const got = unwrap(await reach(client.GET('/sandboxes/{id}/smtp-sessions', { params })));
      return page(got, (s) => ({
        ...s,
        startedAt: new Date(s.startedAt),
        endedAt: s.endedAt === null ? null : new Date(s.endedAt),
        events: s.events as SmtpSessionEvent[],
      }));
    },
    async listEmails(id, q) {
      const query = {
        limit: q.limit,
        cursor: q.cursor,
        q: q.q,
        search: q.search,
        capturedFor: q.capturedFor,
        isRead: q.isRead,
        since: iso(q.since),
      };
      const params = { path: sb(id), query };
      return page(
        unwrap(await reach(client.GET('/sandboxes/{sandboxId}/messages', { params }))),
        messageSummary,
      );
    },
    async getEmail(id, messageId) {
      const params = { path: { sandboxId: id, messageId } };
      return messageDetail(
        unwrap(await reach(client.GET('/sandboxes/{sandboxId}/messages/{messageId}', { params }))),
      );
    },
    async emailChecks(id, messageId, names) {
      const params = { path: { sandboxId: id, messageId } };
      const base = '/sandboxes/{sandboxId}/messages/{messageId}/checks' as const;
      const out: CheckReports = {};
      if (names.includes('html')) out.html = unwrap(await reach(client.GET(`${base}/html`, { params })));
      if (names.includes('spam')) out.spam = unwrap(await reach(client.GET(`${base}/spam`, { params })));
      if (names.includes('links')) out.links = unwrap(await reach(client.POST(`${base}/links`, { params })));
      return out;
    },
    async listRequests(id, q) {
      const params = {
        path: sb(id),
        query: { limit: q.limit, cursor: q.cursor, q: q.q, search: q.search, isRead: q.isRead },
      };
      return page(
        unwrap(await reach(client.GET('/sandboxes/{sandboxId}/requests', { params }))),
        requestSummary,
      );
    },
    async getRequest(id, requestId) {
      const params = { path: { sandboxId: id, requestId } };
      return requestDetail(
        unwrap(await reach(client.GET('/sandboxes/{sandboxId}/requests/{requestId}', { params }))),
      );
    },
    async emailRaw(id, messageId) {
      const params = { path: { sandboxId: id, messageId } };
      const res = await reach(
        client.GET('/sandboxes/{sandboxId}/messages/{messageId}/raw', { params, parseAs: 'arrayBuffer' }),
      );
      return new Uint8Array(unwrap(res) as ArrayBuffer);
    },
    async requestRaw(id, requestId) {
      const params = { path: { sandboxId: id, requestId } };
      const res = await reach(
        client.GET('/sandboxes/{sandboxId}/requests/{requestId}/raw', { params, parseAs: 'arrayBuffer' }),
      );
      return new Uint8Array(unwrap(res) as ArrayBuffer);
    },
    async waitForEmail(id, f, call) {
      const query = {
        subjectContains: f.subjectContains,
        fromContains: f.fromContains,
        capturedFor: f.capturedFor,
        ...waitQuery(f, call),
      };
      const res = await reach(
        client.GET('/sandboxes/{sandboxId}/messages/wait', {
          params: { path: sb(id), query },
          signal: call.signal,
        }),
        call.signal,
      );
      return waitAnswer<S['MessageDetail'], MessageDetail, MessageMiss>(res, messageDetail);
    },
    async waitForRequest(id, f, call) {
      const query = { method: f.method, pathContains: f.pathContains, ...waitQuery(f, call) };
      const res = await reach(
        client.GET('/sandboxes/{sandboxId}/requests/wait', {
          params: { path: sb(id), query },
          signal: call.signal,
        }),
        call.signal,
      );
      return waitAnswer<S['RequestDetail'], RequestDetail, RequestMiss>(res, requestDetail);
    },
    async expect(id, input, signal) {
      const body = { ...input, since: iso(input.since) };
      const r = unwrap(
        await reach(
          client.POST('/sandboxes/{sandboxId}/expectations/wait', { params: { path: sb(id) }, body, signal }),
          signal,
        ),
      );
      const f = r.failure;
      return {
        result: r.result,
        since: date(r.since),
        summary: r.summary,
        failure:
          f === null
            ? undefined
            : {
                condition: f.condition,
                problem: f.problem,
                item: f.item === null ? undefined : expectItem(f.item),
                after: f.after,
              },
        conditions: r.conditions.map((c) => ({
          stream: c.stream,
          count: c.count,
          met: c.met,
          matched: c.matched.map(expectItem),
          closest: c.closest.map((m) => ({ ...expectItem(m), failedFilters: m.failedFilters })),
        })),
      };
    },
  };
  return backend;
}
