// SQL for sandboxes. An ephemeral sandbox past its expiry reads as absent before any sweep removes it.
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { StoredMockRule } from '../../mocks/types.ts';
import { likePattern, type Cursor } from '../../pagination.ts';
import type { Database, NewSandboxRow, SandboxRow } from '../schema.ts';
import { preparedLookup } from './prepared.ts';

function live(now: Date) {
  return (eb: ExpressionBuilder<Database, 'sandboxes'>) =>
    eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]);
}

export async function insertSandbox(db: Kysely<Database>, row: NewSandboxRow): Promise<SandboxRow> {
  return db.insertInto('sandboxes').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findSandbox(
  db: Kysely<Database>,
  workspaceId: string,
  id: string,
  now: Date,
): Promise<SandboxRow | undefined> {
  return preparedLookup(
    db,
    'sandbox',
    db
      .selectFrom('sandboxes')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .where(live(now)),
  );
}

export async function listSandboxes(
  db: Kysely<Database>,
  workspaceId: string,
  opts: { limit: number; cursor: Cursor | undefined; q: string | undefined; now: Date },
): Promise<SandboxRow[]> {
  let query = db
    .selectFrom('sandboxes')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where(live(opts.now));
  if (opts.q !== undefined) {
    const like = likePattern(opts.q);
    query = query.where((eb) =>
      eb.or([
        eb('name', 'ilike', like),
        eb(sql<string>`id::text`, 'ilike', like),
        eb.exists(
          sql`(select 1 from jsonb_each_text(sandboxes.tags) as t(k, v) where t.k ilike ${like} or t.v ilike ${like})`,
        ),
      ]),
    );
  }
  const cursor = opts.cursor;
  if (cursor !== undefined) {
    query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(cursor.at, cursor.id)));
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(opts.limit).execute();
}

export async function updateSandbox(
  db: Kysely<Database>,
  workspaceId: string,
  id: string,
  now: Date,
  changes: { name?: string; tags?: Record<string, string>; smtpPassword?: string; mocks?: StoredMockRule[] },
): Promise<SandboxRow | undefined> {
  return db
    .updateTable('sandboxes')
    .set((eb) => ({
      ...(changes.name === undefined ? {} : { name: changes.name }),
      ...(changes.tags === undefined ? {} : { tags: JSON.stringify(changes.tags) }),
      ...(changes.smtpPassword === undefined ? {} : { smtp_password: changes.smtpPassword }),
      ...(changes.mocks === undefined ? {} : { mocks: JSON.stringify(changes.mocks) }),
      version: eb('version', '+', 1),
    }))
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where(live(now))
    .returningAll()
    .executeTakeFirst();
}

export async function deleteSandbox(
  db: Kysely<Database>,
  workspaceId: string,
  id: string,
  now: Date,
): Promise<boolean> {
  const res = await db
    .deleteFrom('sandboxes')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where(live(now))
    .executeTakeFirst();
  return res.numDeletedRows > 0n;
}

/** Any workspace's live sandbox by id: for SMTP, where the credential or the address selects the sandbox. */
export async function findLiveSandboxById(
  db: Kysely<Database>,
  id: string,
  now: Date,
): Promise<Pick<SandboxRow, 'id' | 'workspace_id' | 'smtp_password' | 'expires_at'> | undefined> {
  return preparedLookup(
    db,
    'live_sandbox',
    db
      .selectFrom('sandboxes')
      .select(['id', 'workspace_id', 'smtp_password', 'expires_at'])
      .where('id', '=', id)
      .where(live(now)),
  );
}

/** What the capture path needs of a live sandbox: its owner and its rules (with a version for caching). */
export async function findCaptureSandbox(
  db: Kysely<Database>,
  id: string,
  now: Date,
): Promise<Pick<SandboxRow, 'id' | 'workspace_id' | 'mocks' | 'version' | 'expires_at'> | undefined> {
  return preparedLookup(
    db,
    'capture_sandbox',
    db
      .selectFrom('sandboxes')
      .select(['id', 'workspace_id', 'mocks', 'version', 'expires_at'])
      .where('id', '=', id)
      .where(live(now)),
  );
}

/** When a workspace's sandbox expired, if it did and no sweep has removed it yet (a 404 can then say so). */
export async function findExpiredSandbox(
  db: Kysely<Database>,
  workspaceId: string,
  id: string,
  now: Date,
): Promise<Date | undefined> {
  const row = await db
    .selectFrom('sandboxes')
    .select('expires_at')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('expires_at', '<=', now)
    .executeTakeFirst();
  return row?.expires_at ?? undefined;
}

/** Live, kept sandboxes of a workspace with this exact name, oldest first (the catch-all's lookup). */
export async function findKeptSandboxesByName(
  db: Kysely<Database>,
  workspaceId: string,
  name: string,
): Promise<SandboxRow[]> {
  return db
    .selectFrom('sandboxes')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('name', '=', name)
    .where('is_ephemeral', '=', false)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
