// Table types for kysely: the single source of truth for column names and types in SQL.
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { StoredMockRule } from '../mocks/types.ts';

type Json<T> = ColumnType<T, string, string>;

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
  is_read: Generated<boolean>;
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

export interface Database {
  workspaces: WorkspacesTable;
  api_keys: ApiKeysTable;
  sandboxes: SandboxesTable;
  messages: MessagesTable;
  requests: RequestsTable;
  wait_marks: WaitMarksTable;
  sandbox_tombstones: SandboxTombstonesTable;
}

export type WorkspaceRow = Selectable<WorkspacesTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKeyRow = Insertable<ApiKeysTable>;
export type SandboxRow = Selectable<SandboxesTable>;
export type NewSandboxRow = Insertable<SandboxesTable>;
export type MessageRow = Selectable<MessagesTable>;
export type NewMessageRow = Insertable<MessagesTable>;
export type RequestRow = Selectable<RequestsTable>;
export type NewRequestRow = Insertable<RequestsTable>;
