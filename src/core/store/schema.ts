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
  smtp_password: string;
  mocks: Json<StoredMockRule[]>;
  is_ephemeral: boolean;
  expires_at: Date | null;
  created_at: Date;
  /** Bumped on every change so caches of a sandbox (credentials, rules) can be checked cheaply. */
  version: Generated<number>;
}

export interface Database {
  workspaces: WorkspacesTable;
  api_keys: ApiKeysTable;
  sandboxes: SandboxesTable;
}

export type WorkspaceRow = Selectable<WorkspacesTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKeyRow = Insertable<ApiKeysTable>;
export type SandboxRow = Selectable<SandboxesTable>;
export type NewSandboxRow = Insertable<SandboxesTable>;
