// SQL for workspaces.
import type { Kysely } from 'kysely';
import type { Database, WorkspaceRow } from '../schema.ts';

export async function insertWorkspace(db: Kysely<Database>, row: WorkspaceRow): Promise<boolean> {
  const res = await db
    .insertInto('workspaces')
    .values(row)
    .onConflict((oc) => oc.column('subdomain').doNothing())
    .executeTakeFirst();
  return (res.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

export async function findWorkspaceById(db: Kysely<Database>, id: string): Promise<WorkspaceRow | undefined> {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findWorkspaceBySubdomain(
  db: Kysely<Database>,
  subdomain: string,
): Promise<WorkspaceRow | undefined> {
  return db.selectFrom('workspaces').selectAll().where('subdomain', '=', subdomain).executeTakeFirst();
}

export async function listAllWorkspaces(db: Kysely<Database>): Promise<WorkspaceRow[]> {
  return db.selectFrom('workspaces').selectAll().orderBy('created_at').execute();
}

export async function countWorkspaces(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('workspaces')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
