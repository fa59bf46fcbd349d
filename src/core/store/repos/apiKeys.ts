// SQL for API keys.
import type { Kysely } from 'kysely';
import type { Cursor } from '../../pagination.ts';
import type { ApiKeyRow, Database, NewApiKeyRow, WorkspaceRow } from '../schema.ts';
import { isDiskRefusal } from '../unavailable.ts';
import { preparedLookup } from './prepared.ts';

export async function insertApiKey(db: Kysely<Database>, row: NewApiKeyRow): Promise<ApiKeyRow> {
  return db.insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findApiKeyByHash(
  db: Kysely<Database>,
  keyHash: string,
): Promise<{ key: ApiKeyRow; workspace: WorkspaceRow } | undefined> {
  const row = await preparedLookup(
    db,
    'api_key_by_hash',
    db
      .selectFrom('api_keys as k')
      .innerJoin('workspaces as w', 'w.id', 'k.workspace_id')
      .selectAll('k')
      .select(['w.name as w_name', 'w.subdomain as w_subdomain', 'w.created_at as w_created_at'])
      .where('k.key_hash', '=', keyHash),
  );
  if (row === undefined) return undefined;
  const { w_name, w_subdomain, w_created_at, ...key } = row;
  return {
    key,
    workspace: { id: key.workspace_id, name: w_name, subdomain: w_subdomain, created_at: w_created_at },
  };
}

export async function listApiKeys(
  db: Kysely<Database>,
  workspaceId: string,
  limit: number,
  cursor: Cursor | undefined,
): Promise<ApiKeyRow[]> {
  let q = db.selectFrom('api_keys').selectAll().where('workspace_id', '=', workspaceId);
  if (cursor !== undefined) {
    q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(cursor.at, cursor.id)));
  }
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** Revokes once: a second revoke keeps the first `revoked_at`. Returns false when no such key. */
export async function revokeApiKey(
  db: Kysely<Database>,
  workspaceId: string,
  id: string,
  at: Date,
): Promise<boolean> {
  const res = await db
    .updateTable('api_keys')
    .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(at)) }))
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

/** A courtesy write that every authenticated read makes once a minute: a full disk skips it, not the read. */
export async function touchApiKey(
  db: Kysely<Database>,
  id: string,
  at: Date,
  ip: string | null,
): Promise<void> {
  try {
    await db
      .updateTable('api_keys')
      .set({ last_used_at: at, last_used_ip: ip })
      .where('id', '=', id)
      .execute();
  } catch (err) {
    if (!isDiskRefusal(err)) throw err;
  }
}
