// Dashboard sessions: an API key pasted once is exchanged for an opaque random token (the cookie's value).
// Only the token's hash is stored; a session stands for its key in its workspace, so each use re-checks the
// key: revoking or expiring it ends the session at once. A refusal is a value, like an API key's. Signing out
// is announced on the bus, so the session's open event streams end on every process.
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { ApiKeyService, AuthResult, Principal } from './apiKeys.ts';
import { findKeyByPlainText, principalOf } from './apiKeys.ts';
import type { Clock } from './clock.ts';
import type { EventBus } from './events.ts';
import { newId } from './random.ts';
import {
  deleteExpiredSessions,
  deleteSessionByHash,
  findSessionByHash,
  insertSession,
} from './store/repos/sessions.ts';
import type { Database } from './store/schema.ts';

/** A session lasts a working day; the key's own expiry cuts it shorter. */
export const SESSION_TTL_MS = 12 * 3_600_000;
/** 32 random bytes, base64url: what a token looks like (anything else is refused before the store). */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface SessionView {
  workspaceId: string;
  keyId: string;
  keyLabel: string;
  expiresAt: Date;
}

export type OpenedSession =
  { ok: true; token: string; session: SessionView } | Extract<AuthResult, { ok: false }>;

export type SessionAuth =
  | { ok: true; principal: Principal; session: SessionView }
  | { ok: false; reason: 'unknown' | 'expired' | 'key-revoked' | 'key-expired' };

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function createSessionService(
  db: Kysely<Database>,
  clock: Clock,
  apiKeys: ApiKeyService,
  bus: EventBus,
) {
  return {
    /** Signs in with an API key: the token to set as the cookie, or why the key was refused. */
    async open(apiKey: string | undefined, ip: string | null): Promise<OpenedSession> {
      const auth = await apiKeys.authenticate(apiKey, ip);
      if (!auth.ok) return auth;
      const found = await findKeyByPlainText(db, apiKey as string);
      if (found === undefined) return { ok: false, reason: 'unknown' };
      const now = clock.now();
      const keyExpiry = found.key.expires_at?.getTime() ?? Infinity;
      const expiresAt = new Date(Math.min(now.getTime() + SESSION_TTL_MS, keyExpiry));
      // Sessions nobody signed out of would otherwise pile up: each sign-in clears its key's dead ones.
      await deleteExpiredSessions(db, found.key.id, now);
      const token = randomBytes(32).toString('base64url');
      await insertSession(db, {
        id: newId(),
        token_hash: hashToken(token),
        workspace_id: auth.principal.workspaceId,
        key_id: auth.principal.keyId,
        created_at: now,
        expires_at: expiresAt,
      });
      return {
        ok: true,
        token,
        session: {
          workspaceId: auth.principal.workspaceId,
          keyId: auth.principal.keyId,
          keyLabel: auth.principal.label,
          expiresAt,
        },
      };
    },

    /** The principal a session cookie stands for, checked against its key as it is now. */
    async authenticate(token: string): Promise<SessionAuth> {
      if (!TOKEN_SHAPE.test(token)) return { ok: false, reason: 'unknown' };
      const hash = hashToken(token);
      const found = await findSessionByHash(db, hash);
      if (found === undefined) return { ok: false, reason: 'unknown' };
      const { session, key, workspace } = found;
      const now = clock.now();
      if (now.getTime() >= session.expires_at.getTime()) {
        await deleteSessionByHash(db, hash);
        return { ok: false, reason: 'expired' };
      }
      if (key.revoked_at !== null) return { ok: false, reason: 'key-revoked' };
      if (key.expires_at !== null && now.getTime() >= key.expires_at.getTime()) {
        return { ok: false, reason: 'key-expired' };
      }
      return {
        ok: true,
        principal: {
          ...principalOf(workspace, key),
          session: { id: session.id, expiresAt: session.expires_at },
        },
        session: {
          workspaceId: workspace.id,
          keyId: key.id,
          keyLabel: key.label,
          expiresAt: session.expires_at,
        },
      };
    },

    /**
     * Signs out: the token stops working everywhere, and the streams opened with it end (here at once, on other
     * processes when the announcement reaches them). Ending an unknown token is not an error.
     */
    async end(token: string): Promise<void> {
      if (!TOKEN_SHAPE.test(token)) return;
      const sessionId = await deleteSessionByHash(db, hashToken(token));
      if (sessionId !== undefined) bus.publish({ kind: 'session_ended', sessionId });
    },
  };
}
