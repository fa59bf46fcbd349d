// What the MCP tools need from sandtrap, as one interface: served by core in-process (HTTP transport,
// `sandtrap mcp --embedded`) or by a running server's REST API (`sandtrap mcp`).
import type { Core } from '../core/core.ts';
import type { MessageDetail, MessageListQuery, MessageSummary } from '../core/messages.ts';
import type { Page } from '../core/pagination.ts';
import type { RequestDetail, RequestListQuery, RequestSummary } from '../core/requests.ts';
import type { Sandbox } from '../core/sandboxes.ts';
import type { RequestWaitFilter as StoreRequestWaitFilter } from '../core/store/repos/requests.ts';
import type { CreateSandboxInput } from '../core/schemas.ts';
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

export interface McpBackend {
  /** The sandbox's dashboard page, the base of its emails' and requests' pages (`<base>/messages/<id>`). */
  sandboxDashboardUrl(id: string): Promise<string>;
  createSandbox(input: CreateSandboxInput): Promise<Sandbox>;
  getSandbox(id: string): Promise<Sandbox>;
  listSandboxes(query: { limit?: number; cursor?: string; q?: string }): Promise<Page<Sandbox>>;
  deleteSandbox(id: string): Promise<void>;
  /** Replaces the rule list; `update` is `{ mocks: [...] }` as the REST API takes it. */
  setMocks(id: string, update: { mocks: unknown[] }): Promise<Sandbox>;
  listEmails(id: string, query: MessageListQuery): Promise<Page<MessageSummary>>;
  getEmail(id: string, messageId: string): Promise<MessageDetail>;
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
    listEmails: (id, query) => core.messages.list(ws, id, query),
    getEmail: (id, messageId) => core.messages.get(ws, id, messageId),
    listRequests: (id, query) => core.requests.list(ws, id, query),
    getRequest: (id, requestId) => core.requests.get(ws, id, requestId),
    emailRaw: (id, messageId) => core.messages.raw(ws, id, messageId),
    requestRaw: (id, requestId) => core.requests.raw(ws, id, requestId),
    waitForEmail: (id, filter, call) =>
      core.waits.forMessage(ws, id, filter, { ...call, explain: true, keyId: principal.keyId }),
    waitForRequest: (id, filter, call) =>
      core.waits.forRequest(ws, id, filter, { ...call, explain: true, keyId: principal.keyId }),
  };
}
