// Positions for the live event stream. Every arrival and every journaled change gets (transaction id, sequence):
// a reader that only takes rows whose transaction is older than every transaction still running can never
// see a later commit land behind its cursor, so a resume from a position replays exactly what followed it,
// on any process. Old rows keep null positions (they predate every stream); no table is rewritten.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create sequence event_seq`.execute(db);
  for (const table of ['messages', 'requests']) {
    await db.schema
      .alterTable(table)
      .addColumn('event_xid', sql`xid8`)
      .execute();
    await db.schema.alterTable(table).addColumn('event_seq', 'bigint').execute();
    // Defaults set after the columns are added apply to new rows only, so existing rows are not rewritten.
    await sql`alter table ${sql.id(table)} alter column event_xid set default pg_current_xact_id(),
      alter column event_seq set default nextval('event_seq')`.execute(db);
    await db.schema
      .createIndex(`${table}_event_position`)
      .on(table)
      .columns(['event_xid', 'event_seq'])
      .execute();
  }
  // Changes that are not arrivals (read flags, deletions, clears, sandbox changes), written in the transaction
  // that makes them. No foreign key: a sandbox's deletion must outlive the sandbox.
  await db.schema
    .createTable('change_events')
    .addColumn('event_seq', 'bigint', (c) => c.primaryKey().defaultTo(sql`nextval('event_seq')`))
    .addColumn('event_xid', sql`xid8`, (c) => c.notNull().defaultTo(sql`pg_current_xact_id()`))
    .addColumn('workspace_id', 'uuid', (c) => c.notNull())
    .addColumn('sandbox_id', 'uuid', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('data', 'jsonb', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('change_events_position')
    .on('change_events')
    .columns(['event_xid', 'event_seq'])
    .execute();
  // The newest position pruned from change_events: a resume from before it can no longer be exact.
  await db.schema
    .createTable('change_events_horizon')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('event_xid', sql`xid8`, (c) => c.notNull())
    .addColumn('event_seq', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into change_events_horizon (id, event_xid, event_seq) values (1, '0', 0)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('change_events_horizon').execute();
  await db.schema.dropTable('change_events').execute();
  for (const table of ['messages', 'requests']) {
    await db.schema.dropIndex(`${table}_event_position`).execute();
    await db.schema.alterTable(table).dropColumn('event_seq').dropColumn('event_xid').execute();
  }
  await sql`drop sequence event_seq`.execute(db);
}
