// API keys: issuing, listing, revoking, and authenticating a presented key. A refused key is a value, not
// an exception, so adapters can answer 401 with the reason.
import type { Kysely } from 'kysely';
import type { Clock } from './clock.ts';
import {
  displayPrefix,
  generateApiKey,
  hashApiKey,
  isValidApiKeyFormat,
  KEY_PREFIX,
} from './apiKeyFormat.ts';
import { notFound } from './errors.ts';
import { decodeCursor, DEFAULT_PAGE_SIZE, toPage, type Page } from './pagination.ts';
import { newId } from './random.ts';
import type { CreateKeyInput } from './schemas.ts';
import {
  findApiKeyByHash,
  insertApiKey,
  listApiKeys,
  revokeApiKey,
  touchApiKey,
} from './store/repos/apiKeys.ts';
import type { ApiKeyRow, Database } from './store/schema.ts';

export interface Principal {
  workspaceId: string;
  workspaceName: string;
  keyId: string;
  keyPrefix: string;
  label: string;
  /** Set when the key stands behind a dashboard session: what is opened with it ends with the session. */
  session?: { id: string; expiresAt: Date } | undefined;
}

/** Who a key acts for: the same whether it was presented itself or stands behind a dashboard session. */
export function principalOf(
  workspace: { id: string; name: string },
  key: { id: string; prefix: string; label: string },
): Principal {
  return {
    workspaceId: workspace.id,
    workspaceName: workspace.name,
    keyId: key.id,
    keyPrefix: key.prefix,
    label: key.label,
  };
}

export type AuthResult =
  | { ok: true; principal: Principal }
  | { ok: false; reason: 'missing' | 'malformed' | 'unknown' | 'revoked' | 'expired' };

export interface ApiKeyView {
  id: string;
  label: string;
  prefix: string;
  revoked: boolean;
  expired: boolean;
  lastUsedAt: Date | null;
  lastUsedIp: string | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

export interface CreatedKey {
  id: string;
  label: string;
  prefix: string;
  key: string;
  expiresAt: Date | null;
  createdAt: Date;
}

const DAY_MS = 86_400_000;
/** lastUsedAt/lastUsedIp are written at most once a minute per key, to keep auth off the write path. */
const TOUCH_INTERVAL_MS = 60_000;

export async function findKeyByPlainText(db: Kysely<Database>, key: string) {
  return findApiKeyByHash(db, hashApiKey(key));
}

export async function issueKey(
  db: Kysely<Database>,
  clock: Clock,
  workspaceId: string,
  input: CreateKeyInput,
  plainKey: string = generateApiKey(),
): Promise<CreatedKey> {
  const now = clock.now();
  const expiresAt =
    input.expiresInDays == null ? null : new Date(now.getTime() + input.expiresInDays * DAY_MS);
  const row = await insertApiKey(db, {
    id: newId(),
    workspace_id: workspaceId,
    label: input.label ?? '',
    prefix: displayPrefix(plainKey),
    key_hash: hashApiKey(plainKey),
    created_at: now,
    expires_at: expiresAt,
    revoked_at: null,
    last_used_at: null,
    last_used_ip: null,
  });
  return {
    id: row.id,
    label: row.label,
    prefix: row.prefix,
    key: plainKey,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
  };
}

function isExpired(row: ApiKeyRow, now: Date): boolean {
  return row.expires_at !== null && now.getTime() >= row.expires_at.getTime();
}

function toView(row: ApiKeyRow, now: Date): ApiKeyView {
  return {
    id: row.id,
    label: row.label,
    prefix: row.prefix,
    revoked: row.revoked_at !== null,
    expired: isExpired(row, now),
    lastUsedAt: row.last_used_at,
    lastUsedIp: row.last_used_ip,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    createdAt: row.created_at,
  };
}

export function createApiKeyService(db: Kysely<Database>, clock: Clock) {
  /**
   * When this process last wrote each key's lastUsedAt: requests of one key that arrive together (a burst of
   * waits) all read the old value, and without this each would write it.
   */
  const touched = new Map<string, number>();
  return {
    async authenticate(presented: string | undefined, ip: string | null): Promise<AuthResult> {
      if (presented === undefined || presented === '') return { ok: false, reason: 'missing' };
      if (!presented.startsWith(KEY_PREFIX) || !isValidApiKeyFormat(presented)) {
        return { ok: false, reason: 'malformed' };
      }
      const found = await findKeyByPlainText(db, presented);
      if (found === undefined) return { ok: false, reason: 'unknown' };
      const { key, workspace } = found;
      const now = clock.now();
      if (key.revoked_at !== null) return { ok: false, reason: 'revoked' };
      if (isExpired(key, now)) return { ok: false, reason: 'expired' };
      const lastUsed = Math.max(key.last_used_at?.getTime() ?? -Infinity, touched.get(key.id) ?? -Infinity);
      if (now.getTime() - lastUsed >= TOUCH_INTERVAL_MS) {
        // A process sees few keys; the map is cleared now and then rather than kept in order.
        if (touched.size >= 10_000) touched.clear();
        touched.set(key.id, now.getTime());
        await touchApiKey(db, key.id, now, ip);
      }
      return { ok: true, principal: principalOf(workspace, key) };
    },

    create(workspaceId: string, input: CreateKeyInput): Promise<CreatedKey> {
      return issueKey(db, clock, workspaceId, input);
    },

    async list(workspaceId: string, page: { limit?: number; cursor?: string }): Promise<Page<ApiKeyView>> {
      const limit = page.limit ?? DEFAULT_PAGE_SIZE;
      const cursor = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
      const rows = await listApiKeys(db, workspaceId, limit + 1, cursor);
      const now = clock.now();
      return toPage(
        rows,
        limit,
        (r) => ({ at: r.created_at, id: r.id }),
        (r) => toView(r, now),
      );
    },

    async revoke(workspaceId: string, id: string): Promise<void> {
      if (!(await revokeApiKey(db, workspaceId, id, clock.now()))) throw notFound('The API key');
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
