// SQL for mock rules with memory (issue 40): `times` counts and scenario states, each changed by one
// compare-and-set statement so that concurrent requests, on one process or several, never both win.
import { sql, type Kysely } from 'kysely';
import type { Database, MockScenarioStatesTable } from '../schema.ts';

/** The state a scenario is in for a key that has no row yet (WireMock's name for it). */
export const INITIAL_STATE = 'Started';

/** One more use of a `times` rule, unless it has had them all: true when this request took one. */
export async function claimRuleUse(
  db: Kysely<Database>,
  sandboxId: string,
  version: number,
  ruleId: string,
  times: number,
): Promise<boolean> {
  const result = await sql<{ used: number }>`
    insert into mock_rule_uses as u (sandbox_id, version, rule_id, used)
    values (${sandboxId}, ${version}, ${ruleId}, 1)
    on conflict (sandbox_id, rule_id, version) do update set used = u.used + 1 where u.used < ${times}
    returning u.used
  `.execute(db);
  return result.rows.length > 0 && (result.rows[0]?.used ?? Infinity) <= times;
}

export async function readScenarioState(
  db: Kysely<Database>,
  sandboxId: string,
  scenario: string,
  key: string,
): Promise<string> {
  const row = await db
    .selectFrom('mock_scenario_states')
    .select('state')
    .where('sandbox_id', '=', sandboxId)
    .where('scenario', '=', scenario)
    .where('state_key', '=', key)
    .executeTakeFirst();
  return row?.state ?? INITIAL_STATE;
}

/**
 * Moves (sandbox, scenario, key) to `next` if it is in `expected` (undefined: whatever it is); false when it
 * is not, because another request moved it first. A key without a row is in INITIAL_STATE.
 */
export async function compareAndSetState(
  db: Kysely<Database>,
  sandboxId: string,
  scenario: string,
  key: string,
  expected: string | undefined,
  next: string,
  now: Date,
): Promise<boolean> {
  if (expected !== undefined && expected !== INITIAL_STATE) {
    const res = await db
      .updateTable('mock_scenario_states')
      .set({ state: next, updated_at: now })
      .where('sandbox_id', '=', sandboxId)
      .where('scenario', '=', scenario)
      .where('state_key', '=', key)
      .where('state', '=', expected)
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  }
  // From the initial state a row may not exist yet: insert, or update one still in that state.
  const guard = expected === undefined ? sql`true` : sql`s.state = ${INITIAL_STATE}`;
  const result = await sql<{ state: string }>`
    insert into mock_scenario_states as s (sandbox_id, scenario, state_key, state, updated_at)
    values (${sandboxId}, ${scenario}, ${key}, ${next}, ${now})
    on conflict (sandbox_id, scenario, state_key)
    do update set state = excluded.state, updated_at = excluded.updated_at where ${guard}
    returning s.state
  `.execute(db);
  return result.rows.length > 0;
}

export type ScenarioStateRow = Omit<MockScenarioStatesTable, 'sandbox_id'>;

export async function listScenarioStates(
  db: Kysely<Database>,
  sandboxId: string,
  scenario: string | undefined,
): Promise<ScenarioStateRow[]> {
  let q = db
    .selectFrom('mock_scenario_states')
    .select(['scenario', 'state_key', 'state', 'updated_at'])
    .where('sandbox_id', '=', sandboxId);
  if (scenario !== undefined) q = q.where('scenario', '=', scenario);
  return q.orderBy('scenario').orderBy('state_key').limit(10_000).execute();
}

/** Every key of the sandbox's scenarios (or of one) back to the initial state; how many were reset. */
export async function deleteScenarioStates(
  db: Kysely<Database>,
  sandboxId: string,
  scenario: string | undefined,
): Promise<number> {
  let q = db.deleteFrom('mock_scenario_states').where('sandbox_id', '=', sandboxId);
  if (scenario !== undefined) q = q.where('scenario', '=', scenario);
  const res = await q.executeTakeFirst();
  return Number(res.numDeletedRows);
}
