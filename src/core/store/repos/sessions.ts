// SQL for dashboard sessions (migration 011): open, find by token hash with the key and workspace behind it,
// end one, and drop a key's expired ones.
import type { Kysely } from 'kysely';
import type { ApiKeyRow, Database, SessionRow, WorkspaceRow } from '../schema.ts';
import { preparedLookup } from './prepared.ts';

export async function insertSession(db: Kysely<Database>, row: SessionRow): Promise<void> {
  await db.insertInto('dashboard_sessions').values(row).execute();
}

export interface FoundSession {
  session: SessionRow;
  key: ApiKeyRow;
  workspace: WorkspaceRow;
}

export async function findSessionByHash(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<FoundSession | undefined> {
  const row = await preparedLookup(
    db,
    'session_by_hash',
    db
      .selectFrom('dashboard_sessions as s')
      .innerJoin('api_keys as k', 'k.id', 's.key_id')
      .innerJoin('workspaces as w', 'w.id', 's.workspace_id')
      .select([
        's.id as s_id',
        's.token_hash as s_token_hash',
        's.workspace_id as s_workspace_id',
        's.key_id as s_key_id',
        's.created_at as s_created_at',
        's.expires_at as s_expires_at',
        'w.name as w_name',
        'w.subdomain as w_subdomain',
        'w.created_at as w_created_at',
      ])
      .selectAll('k')
      // A session can only stand for a key of its own workspace; the join says so rather than trusting the row.
      .whereRef('k.workspace_id', '=', 's.workspace_id')
      .where('s.token_hash', '=', tokenHash),
  );
  if (row === undefined) return undefined;
  const {
    s_id,
    s_token_hash,
    s_workspace_id,
    s_key_id,
    s_created_at,
    s_expires_at,
    w_name,
    w_subdomain,
    w_created_at,
    ...key
  } = row;
  return {
    session: {
      id: s_id,
      token_hash: s_token_hash,
      workspace_id: s_workspace_id,
      key_id: s_key_id,
      created_at: s_created_at,
      expires_at: s_expires_at,
    },
    key,
    workspace: { id: s_workspace_id, name: w_name, subdomain: w_subdomain, created_at: w_created_at },
  };
}

/** Returns the id of the session ended, if there was one. */
export async function deleteSessionByHash(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<string | undefined> {
  const row = await db
    .deleteFrom('dashboard_sessions')
    .where('token_hash', '=', tokenHash)
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/** Of `ids`, the sessions that still stand (not signed out, not expired at `now`). */
export async function liveSessionIds(db: Kysely<Database>, ids: string[], now: Date): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('dashboard_sessions')
    .select('id')
    .where('id', 'in', ids)
    .where('expires_at', '>', now)
    .execute();
  return new Set(rows.map((r) => r.id));
}

export async function deleteExpiredSessions(db: Kysely<Database>, keyId: string, now: Date): Promise<void> {
  await db
    .deleteFrom('dashboard_sessions')
    .where('key_id', '=', keyId)
    .where('expires_at', '<=', now)
    .execute();
}
