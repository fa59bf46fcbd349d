// Mock rules with memory (issue 40): how often a `times` rule has answered (per save of the rules, the sandbox
// version), and each scenario's state per correlation key. Both change only through compare-and-set
// statements, so concurrent requests and several processes agree.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mock_rule_uses')
    .addColumn('sandbox_id', 'uuid', (c) => c.notNull().references('sandboxes.id').onDelete('cascade'))
    // Saving the rules bumps the version: counts start again for the new list.
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('rule_id', 'text', (c) => c.notNull())
    .addColumn('used', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('mock_rule_uses_pk', ['sandbox_id', 'rule_id', 'version'])
    .execute();

  await db.schema
    .createTable('mock_scenario_states')
    .addColumn('sandbox_id', 'uuid', (c) => c.notNull().references('sandboxes.id').onDelete('cascade'))
    .addColumn('scenario', 'text', (c) => c.notNull())
    // The correlation key's value; '' when the scenario is kept for the whole sandbox.
    .addColumn('state_key', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('mock_scenario_states_pk', ['sandbox_id', 'scenario', 'state_key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mock_scenario_states').execute();
  await db.schema.dropTable('mock_rule_uses').execute();
}
