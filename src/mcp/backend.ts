// What the MCP tools need from sandtrap, as one interface: served by core in-process (HTTP transport,
// `sandtrap mcp --embedded`) or by a running server's REST API (`sandtrap mcp`).
import type { CheckName, CheckReports } from '../core/checks/service.ts';
import type { QueuedCallback, ScenarioState } from '../core/mocks/mockState.ts';
import type { Core } from '../core/core.ts';
import type { MessageDetail, MessageListQuery, MessageSummary } from '../core/messages.ts';
import type { Page } from '../core/pagination.ts';
import type { RequestDetail, RequestListQuery, RequestSummary } from '../core/requests.ts';
import type { Sandbox } from '../core/sandboxes.ts';
import type { RequestWaitFilter as StoreRequestWaitFilter } from '../core/store/repos/requests.ts';
import type { CreateSandboxInput, ExpectationInput } from '../core/schemas.ts';
import type { Problem } from '../core/expectations/judge.ts';
import type { SmtpFaultStepView, SmtpSession } from '../core/smtpFaults/types.ts';
import type { MessageMiss, RequestMiss } from '../core/waitMisses.ts';
import type { MessageWaitFilter, WaitResult } from '../core/waits.ts';

/**
 * A failure inside the sandtrap server the stdio MCP mode talks to: its detail stays in that server's log, so
 * the agent gets only the server's correlation id to report.
 */
export class RemoteInternalError extends Error {
  readonly requestId: string;
  constructor(requestId: string) {
    super('The sandtrap server failed with an internal error.');
    this.name = 'RemoteInternalError';
    this.requestId = requestId;
  }
}

/** A tool's wait: it always reports what did not match, and claims (marks read) unless it only peeks. */
export interface WaitCall {
  timeoutSeconds: number;
  signal: AbortSignal;
  claim: boolean;
  /** Only items newer than the newest one a claiming wait handed out (core WaitOptions.onlyNewer). */
  onlyNewer: boolean;
}

/** What a tool's wait for a request filters on: the store's filter, less what only core sets. */
type RequestWaitFilter = Omit<StoreRequestWaitFilter, 'id' | 'newerThan'>;

/** An item an expectation names, as both backends can tell it. */
export type ExpectItem =
  | { stream: 'messages'; id: string; receivedAt: Date; subject: string | null; from: string }
  | { stream: 'requests'; id: string; receivedAt: Date; method: string; path: string };

/** An expectation's answer (core's ExpectationResult, as REST also carries it). */
export interface ExpectOutcome {
  result: 'pass' | 'fail';
  since: Date;
  summary: string;
  failure:
    | { condition: number; problem: Problem; item: ExpectItem | undefined; after?: number | undefined }
    | undefined;
  conditions: Array<{
    stream: 'messages' | 'requests';
    count: number;
    met: boolean;
    matched: ExpectItem[];
    closest: Array<ExpectItem & { failedFilters: string[] }>;
  }>;
}

export interface McpBackend {
  /** The sandbox's dashboard page, the base of its emails' and requests' pages (`<base>/messages/<id>`). */
  sandboxDashboardUrl(id: string): Promise<string>;
  createSandbox(input: CreateSandboxInput): Promise<Sandbox>;
  getSandbox(id: string): Promise<Sandbox>;
  listSandboxes(query: { limit?: number; cursor?: string; q?: string }): Promise<Page<Sandbox>>;
  deleteSandbox(id: string): Promise<void>;
  /** Replaces the rule list; `update` is `{ mocks: [...] }` as the REST API takes it. */
  setMocks(id: string, update: { mocks: unknown[] }): Promise<Sandbox>;
  /** Scenario states (issue 40); with `reset`, they are reset first and the list is then empty. */
  mockScenarios(id: string, query: { scenario?: string }, reset: boolean): Promise<ScenarioState[]>;
  /** The newest callbacks the sandbox's rules queued, with their attempts. */
  mockCallbacks(id: string, query: { requestId?: string; ruleId?: string }): Promise<Page<QueuedCallback>>;
  /** The newest matching callback once it has the outcome; undefined at the timeout (GET .../callbacks/wait). */
  waitForCallback(
    id: string,
    query: { requestId?: string; ruleId?: string; outcome: string; timeoutSeconds: number },
    signal: AbortSignal,
  ): Promise<QueuedCallback | undefined>;

  /** Replaces the SMTP fault script; `update` is `{ faults: [...] }` as the REST API takes it. */
  setSmtpFaults(id: string, update: { faults: unknown[] }): Promise<SmtpFaultStepView[]>;
  listSmtpSessions(id: string, query: { limit?: number; cursor?: string }): Promise<Page<SmtpSession>>;
  listEmails(id: string, query: MessageListQuery): Promise<Page<MessageSummary>>;
  getEmail(id: string, messageId: string): Promise<MessageDetail>;
  /** The named checks of one email; `links` fetches its links now (under the webhooks' target policy). */
  emailChecks(id: string, messageId: string, names: readonly CheckName[]): Promise<CheckReports>;
  listRequests(id: string, query: RequestListQuery): Promise<Page<RequestSummary>>;
  getRequest(id: string, requestId: string): Promise<RequestDetail>;
  /** The message's raw source as received (resources/read). */
  emailRaw(id: string, messageId: string): Promise<Uint8Array>;
  /** The request as received: request line, headers and body bytes (resources/read). */
  requestRaw(id: string, requestId: string): Promise<Uint8Array>;
  waitForEmail(
    id: string,
    filter: MessageWaitFilter,
    call: WaitCall,
  ): Promise<WaitResult<MessageDetail, MessageMiss>>;
  waitForRequest(
    id: string,
    filter: RequestWaitFilter,
    call: WaitCall,
  ): Promise<WaitResult<RequestDetail, RequestMiss>>;
  expect(id: string, input: ExpectationInput, signal: AbortSignal): Promise<ExpectOutcome>;
}

/** Core, acting for one API key's workspace. */
export function inProcessBackend(core: Core, principal: { workspaceId: string; keyId: string }): McpBackend {
  const ws = principal.workspaceId;
  return {
    sandboxDashboardUrl: async (id) => `${core.endpoints.dashboardBaseUrl}/s/${id}`,
    createSandbox: (input) => core.sandboxes.create(ws, input),
    getSandbox: (id) => core.sandboxes.get(ws, id),
    listSandboxes: (query) => core.sandboxes.list(ws, query),
    deleteSandbox: (id) => core.sandboxes.delete(ws, id),
    setMocks: (id, update) => core.sandboxes.setMocks(ws, id, update),
    async mockScenarios(id, query, reset) {
      if (reset) await core.mockState.resetScenarios(ws, id, query);
      return core.mockState.scenarios(ws, id, query);
    },
    mockCallbacks: (id, query) => core.mockState.callbacks(ws, id, query),
    waitForCallback: (id, query, signal) =>
      core.mockState.waitForCallback(ws, id, query, { signal, keyId: principal.keyId }),

    setSmtpFaults: (id, update) => core.smtpFaults.set(ws, id, update),
    listSmtpSessions: (id, query) => core.smtpFaults.sessions(ws, id, query),
    listEmails: (id, query) => core.messages.list(ws, id, query),
    getEmail: (id, messageId) => core.messages.get(ws, id, messageId),
    emailChecks: async (id, messageId, names) =>
      core.checks.of(await core.messages.get(ws, id, messageId), names),
    listRequests: (id, query) => core.requests.list(ws, id, query),
    getRequest: (id, requestId) => core.requests.get(ws, id, requestId),
    emailRaw: (id, messageId) => core.messages.raw(ws, id, messageId),
    requestRaw: (id, requestId) => core.requests.raw(ws, id, requestId),
    waitForEmail: (id, filter, call) =>
      core.waits.forMessage(ws, id, filter, { ...call, explain: true, keyId: principal.keyId }),
    waitForRequest: (id, filter, call) =>
      core.waits.forRequest(ws, id, filter, { ...call, explain: true, keyId: principal.keyId }),
    async expect(id, input, signal) {
      const r = await core.expectations.wait(ws, id, input, { keyId: principal.keyId, signal });
      return {
        ...r,
        conditions: r.conditions.map((c) => ({
          ...c,
          closest: c.closest.map((m) =>
            'method' in m ? { stream: 'requests' as const, ...m } : { stream: 'messages' as const, ...m },
          ),
        })),
      };
    },
  };
}
