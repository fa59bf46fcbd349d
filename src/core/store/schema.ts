// Table types for kysely: the single source of truth for column names and types in SQL.
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { StoredMockRule } from '../mocks/types.ts';
import type { SmtpFaultStep, SmtpSessionEvent } from '../smtpFaults/types.ts';

type Json<T> = ColumnType<T, string, string>;
/** A column an insert may leave out (null then): added later, for some rows only. */
type Optional<T> = ColumnType<T | null, T | null | undefined, T | null>;

/** A row's position in the live event stream (migration 010): xid8 and bigint, read as text, set by defaults. */
type EventXid = Generated<string>;
type EventSeq = Generated<string>;

export interface WorkspacesTable {
  id: string;
  name: string;
  subdomain: string;
  created_at: Date;
}

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  label: string;
  prefix: string;
  key_hash: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  last_used_ip: string | null;
}

export interface SandboxesTable {
  id: string;
  workspace_id: string;
  name: string;
  tags: Json<Record<string, string>>;
  /** Indexed by sha256 for provider-API keys (migration 022). */
  smtp_password: string;
  mocks: Json<StoredMockRule[]>;
  is_ephemeral: boolean;
  expires_at: Date | null;
  created_at: Date;
  /** Bumped on every change so caches of a sandbox (credentials, rules) can be checked cheaply. */
  version: Generated<number>;
}

export interface NameValue {
  name: string;
  value: string;
}

export interface AttachmentInfo {
  index: number;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  /** The part's Content-ID without angle brackets (what `cid:` URLs name); absent on rows stored before it. */
  contentId?: string | null;
}

export interface MessagesTable {
  id: string;
  sandbox_id: string;
  received_at: Date;
  envelope_from: string | null;
  from_header: string;
  to_addrs: Json<string[]>;
  captured_for: Json<string[]>;
  subject: string | null;
  preview: string | null;
  text_body: string | null;
  html_body: string | null;
  headers: Json<NameValue[]>;
  attachments: Json<AttachmentInfo[]>;
  attachment_count: number;
  size_bytes: number;
  is_read: Generated<boolean>;
  raw: Uint8Array;
  /** Why the parsed fields are incomplete or empty; null when the message was read in full. */
  parse_error: string | null;
  /** The words of its search text that hold a digit (migration 013): the writer derives them, messages.ts. */
  search_words: string;
  /** The W3C trace context it arrived with, validated (migration 026); null when absent or invalid. */
  traceparent: string | null;
  /** Its words for `search=` as tsvector input (migration 028): the writer derives them, search/document.ts. */
  search_doc: string | null;
  event_xid: EventXid;
  event_seq: EventSeq;
}

export interface RequestsTable {
  id: string;
  sandbox_id: string;
  received_at: Date;
  method: string;
  /** The request-target exactly as received (path routing prefix included). */
  target: string;
  http_version: string;
  /** The path as recorded: raw, without the query and without a path-routing sandbox prefix. */
  path: string;
  query: string | null;
  /** [name, value] pairs in original order and case, duplicates kept. */
  headers: Json<Array<[string, string]>>;
  body: Uint8Array;
  size_bytes: number;
  source_ip: string | null;
  mock_status_code: number;
  mock_name: string | null;
  /** Names of the dashboard session cookies removed from the Cookie header before it was stored. */
  redacted_cookies: Json<string[]> | null;
  /** The reply's headers as written to the wire, [name, value] in order; null on rows from before migration 020. */
  response_headers: Json<Array<[string, string]>> | null;
  /** The reply's body as sent, cut at MAX_RECORDED_REPLY_BYTES (at a UTF-8 character boundary). */
  response_body: Uint8Array | null;
  /** The size of the whole reply body as sent, cut or not. */
  response_size_bytes: number | null;
  /** Why the reply may not be what the rule's author expected (a template read a body it could not parse). */
  response_note: string | null;
  /** The W3C trace context it arrived with, validated (migration 026); null when absent or invalid. */
  traceparent: string | null;
  /** Its words for `search=` as tsvector input (migration 029): the writer derives them, search/document.ts. */
  search_doc: string | null;
  is_read: Generated<boolean>;
  event_xid: EventXid;
  event_seq: EventSeq;
}

/** The newest item a claiming wait handed out, per sandbox and stream (migration 021). */
export interface WaitMarksTable {
  sandbox_id: string;
  stream: 'message' | 'request';
  received_at: Date;
  item_id: string;
}

/** A sandbox that expired or was deleted, remembered for a day (migration 021). */
export interface SandboxTombstonesTable {
  id: string;
  workspace_id: string;
  reason: 'expired' | 'deleted';
  ended_at: Date;
}

/** Changes that are not arrivals, journaled for the live event stream (migration 010). */
export interface ChangeEventsTable {
  event_seq: EventSeq;
  event_xid: EventXid;
  workspace_id: string;
  sandbox_id: string;
  kind: string;
  data: Json<unknown>;
  at: Generated<Date>;
}

/** The newest position pruned from change_events: one row, id 1 (migration 010). */
export interface ChangeEventsHorizonTable {
  id: number;
  event_xid: string;
  event_seq: string;
}

/** How often a `times` mock rule has answered, per save of the rules (migration 034). */
export interface MockRuleUsesTable {
  sandbox_id: string;
  version: number;
  rule_id: string;
  used: number;
}

/** A mock scenario's state per correlation key; no row means the initial state, `Started` (migration 034). */
export interface MockScenarioStatesTable {
  sandbox_id: string;
  scenario: string;
  /** '' when the state is kept for the whole sandbox. */
  state_key: string;
  state: string;
  updated_at: Date;
}

/** Outgoing webhooks: a workspace's (or one sandbox's) subscription to live event types (migration 023). */
export interface WebhooksTable {
  id: string;
  workspace_id: string;
  sandbox_id: string | null;
  url: string;
  events: string[];
  description: string | null;
  /** `whsec_<base64>`: shown once, kept to sign each delivery. */
  secret: string;
  created_at: Date;
  start_xid: Generated<string>;
}

/** One event to deliver to one webhook: pending until delivered or given up (migration 023). */
export interface WebhookOutboxTable {
  /** The `webhook-id` header: the same on every attempt, so receivers can drop repeats. */
  id: string;
  /** Null for a mock rule's callback (migration 035), which carries its own target below. */
  webhook_id: string | null;
  event_key: string;
  event_type: string;
  /** The exact body sent (and signed) on every attempt. */
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: Date;
  /** Set while a process is sending it; a crashed sender's claim lapses at this time. */
  claimed_until: Date | null;
  created_at: Date;
  /** A callback's origin and target (migration 035); null for a webhook's rows. */
  sandbox_id: Optional<string>;
  rule_id: Optional<string>;
  request_id: Optional<string>;
  target_url: Optional<string>;
  target_method: Optional<string>;
  /** JSON: header name -> value. */
  target_headers: Optional<string>;
  /** JSON: the rule's CallbackSigning. */
  signing: Optional<string>;
}

/** The log of delivery attempts (migration 023; callbacks' too, migration 035). */
export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string | null;
  message_id: string;
  event_type: string;
  attempt: number;
  outcome: 'delivered' | 'retrying' | 'failed';
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string | null;
  error: string | null;
  next_attempt_at: Date | null;
  created_at: Date;
  sandbox_id: Optional<string>;
  rule_id: Optional<string>;
  request_id: Optional<string>;
  url: Optional<string>;
}

/** The fan-out's position in the event stream: one row, id 1 (migration 023). */
export interface WebhookFanoutTable {
  id: number;
  event_xid: string;
  event_seq: string;
}

/** One step of a sandbox's SMTP fault script (migration 032). */
export interface SmtpFaultStepsTable {
  sandbox_id: string;
  position: number;
  generation: string;
  step: Json<SmtpFaultStep>;
  remaining: number | null;
}

/** One SMTP session as seen by a sandbox that has a fault script (migration 032). */
export interface SmtpSessionsTable {
  id: string;
  sandbox_id: string;
  listener: 'submission' | 'inbound';
  remote_address: string | null;
  started_at: Date;
  ended_at: Date | null;
  events: ColumnType<SmtpSessionEvent[], string | undefined, string>;
}

/** Secrets every process of one store shares, made on first use (migration 017). */
export interface ServerSecretsTable {
  name: string;
  value: string;
}

/** Dashboard sign-in sessions, the token stored as its SHA-256 (migration 011). */
export interface DashboardSessionsTable {
  id: string;
  token_hash: string;
  workspace_id: string;
  key_id: string;
  created_at: Date;
  expires_at: Date;
}

/** OAuth clients for /mcp (migrations 012 and 015). */
export interface OAuthClientsTable {
  client_id: string;
  kind: 'registered' | 'metadata-document';
  secret_hash: string | null;
  token_endpoint_auth_method: 'none' | 'client_secret_post' | 'client_secret_basic';
  client_name: string;
  client_uri: string | null;
  logo_uri: string | null;
  redirect_uris: Json<string[]>;
  created_at: Date;
  updated_at: Date;
  /** When its first tokens were issued (migration 015); null until an authorization completes. */
  first_authorized_at: Date | null;
  /** When its latest tokens were issued: an access token lives an hour, so use is never older than that. */
  last_used_at: Date | null;
}

/** Pending consent requests, the consent page's subject (migration 012). */
export interface OAuthAuthorizationRequestsTable {
  id: string;
  client_id: string;
  redirect_uri: string;
  state: string | null;
  code_challenge: string;
  scope: string;
  resource: string;
  created_at: Date;
  expires_at: Date;
}

/** A client's grant, bound to a workspace and the API key that approved it (migration 012). */
export interface OAuthGrantsTable {
  id: string;
  client_id: string;
  workspace_id: string;
  key_id: string;
  redirect_uri: string;
  scope: string;
  resource: string;
  created_at: Date;
  last_used_at: Date | null;
}

/** Single-use authorization codes, kept after use so a replay is recognised (migration 012). */
export interface OAuthCodesTable {
  code_hash: string;
  grant_id: string;
  redirect_uri: string;
  code_challenge: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

/** Access and refresh tokens, stored as SHA-256 (migration 012). */
export interface OAuthTokensTable {
  token_hash: string;
  grant_id: string;
  kind: 'access' | 'refresh';
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export interface Database {
  workspaces: WorkspacesTable;
  api_keys: ApiKeysTable;
  sandboxes: SandboxesTable;
  messages: MessagesTable;
  requests: RequestsTable;
  wait_marks: WaitMarksTable;
  sandbox_tombstones: SandboxTombstonesTable;
  change_events: ChangeEventsTable;
  change_events_horizon: ChangeEventsHorizonTable;
  server_secrets: ServerSecretsTable;
  dashboard_sessions: DashboardSessionsTable;
  oauth_clients: OAuthClientsTable;
  oauth_authorization_requests: OAuthAuthorizationRequestsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_codes: OAuthCodesTable;
  oauth_tokens: OAuthTokensTable;
  webhooks: WebhooksTable;
  mock_rule_uses: MockRuleUsesTable;
  mock_scenario_states: MockScenarioStatesTable;
  webhook_outbox: WebhookOutboxTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_fanout: WebhookFanoutTable;
  smtp_fault_steps: SmtpFaultStepsTable;
  smtp_sessions: SmtpSessionsTable;
}

/** Columns the store fills itself: a row as the code reads or writes it leaves them out. */
type StoreDerived = 'search_words' | 'search_doc' | 'event_xid' | 'event_seq';

export type WorkspaceRow = Selectable<WorkspacesTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKeyRow = Insertable<ApiKeysTable>;
export type SandboxRow = Selectable<SandboxesTable>;
export type NewSandboxRow = Insertable<SandboxesTable>;
export type MessageRow = Omit<Selectable<MessagesTable>, StoreDerived>;
export type NewMessageRow = Omit<Insertable<MessagesTable>, StoreDerived>;
export type RequestRow = Omit<Selectable<RequestsTable>, StoreDerived>;
export type NewRequestRow = Omit<Insertable<RequestsTable>, StoreDerived>;
export type SessionRow = Selectable<DashboardSessionsTable>;
export type OAuthClientRow = Selectable<OAuthClientsTable>;
export type AuthorizationRequestRow = Selectable<OAuthAuthorizationRequestsTable>;
export type GrantRow = Selectable<OAuthGrantsTable>;
export type CodeRow = Selectable<OAuthCodesTable>;
export type TokenRow = Selectable<OAuthTokensTable>;
export type WebhookRow = Selectable<WebhooksTable>;
export type WebhookOutboxRow = Selectable<WebhookOutboxTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type SmtpFaultStepRow = Selectable<SmtpFaultStepsTable>;
export type SmtpSessionRow = Selectable<SmtpSessionsTable>;
