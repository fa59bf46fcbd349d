// SMTP fault scripts per sandbox and the log of sessions they shaped (issue 40). A script is an ordered list of
// steps; a step with `times` keeps its count here so every process of one PostgreSQL spends the same count.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('smtp_fault_steps')
    .addColumn('sandbox_id', 'uuid', (c) => c.notNull().references('sandboxes.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    // One id per saved list: a process still holding the previous list cannot spend the new list's counts.
    .addColumn('generation', 'uuid', (c) => c.notNull())
    .addColumn('step', 'jsonb', (c) => c.notNull())
    // Matches left for a step with `times`; null for a step that applies every time.
    .addColumn('remaining', 'integer')
    .addPrimaryKeyConstraint('smtp_fault_steps_pkey', ['sandbox_id', 'position'])
    .execute();

  await db.schema
    .createTable('smtp_sessions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('sandbox_id', 'uuid', (c) => c.notNull().references('sandboxes.id').onDelete('cascade'))
    .addColumn('listener', 'text', (c) => c.notNull())
    .addColumn('remote_address', 'text')
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('ended_at', 'timestamptz')
    .addColumn('events', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute();
  await db.schema
    .createIndex('smtp_sessions_sandbox')
    .on('smtp_sessions')
    .columns(['sandbox_id', 'started_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('smtp_sessions').execute();
  await db.schema.dropTable('smtp_fault_steps').execute();
}
