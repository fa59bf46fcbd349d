// When an OAuth client first completed an authorization (its first tokens) and was last used (its latest
// tokens), so the sweep can drop clients that never finished one after a day and every client unused for 90
// days. Clients already stored take both from their grants; one with none left counts as never authorized.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('oauth_clients')
    .addColumn('first_authorized_at', 'timestamptz')
    .addColumn('last_used_at', 'timestamptz')
    .execute();
  await sql`
    update oauth_clients c
       set first_authorized_at = g.first_at,
           last_used_at = g.last_at
      from (select client_id,
                   min(created_at) as first_at,
                   max(coalesce(last_used_at, created_at)) as last_at
              from oauth_grants
             group by client_id) g
     where g.client_id = c.client_id`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('oauth_clients')
    .dropColumn('first_authorized_at')
    .dropColumn('last_used_at')
    .execute();
}
