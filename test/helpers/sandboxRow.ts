// A workspace and a sandbox written straight into a store, for tests of repos that need a sandbox row, and
// captured requests in bulk for tests of what many rows do (statistics, maintenance).
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/core/store/schema.ts';

/** Returns the new sandbox's id; `expired` sets its expiry a minute in the past. */
export async function insertSandbox(
  db: Kysely<Database>,
  options: { expired?: boolean; version?: number } = {},
): Promise<string> {
  const workspace = randomUUID();
  const id = randomUUID();
  await sql`insert into workspaces (id, name, subdomain, created_at)
    values (${workspace}, 'w', ${workspace}, now())`.execute(db);
  await sql`insert into sandboxes (id, workspace_id, name, smtp_password, is_ephemeral, expires_at, created_at, version)
    values (${id}, ${workspace}, 's', 'p', false, ${options.expired === true ? new Date(Date.now() - 60_000) : null},
      now(), ${options.version ?? 1})`.execute(db);
  return id;
}

/** `count` captured requests in the sandbox, inserted in one statement. */
export async function insertRequests(db: Kysely<Database>, sandboxId: string, count: number): Promise<void> {
  await sql`insert into requests (id, sandbox_id, received_at, method, target, http_version, path, query, headers,
      body, size_bytes, source_ip, mock_status_code, mock_name)
    select gen_random_uuid(), ${sandboxId}::uuid, now(), 'POST', '/hook', '1.1', '/hook/' || g, null, '[]'::jsonb,
      '\\x7b7d'::bytea, 2, '127.0.0.1', 200, null
    from generate_series(1, ${count}::int) as g`.execute(db);
}

/** The workspace that owns a sandbox inserted here. */
export async function workspaceOf(db: Kysely<Database>, sandboxId: string): Promise<string> {
  const row = await db
    .selectFrom('sandboxes')
    .select('workspace_id')
    .where('id', '=', sandboxId)
    .executeTakeFirstOrThrow();
  return row.workspace_id;
}
