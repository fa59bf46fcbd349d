// SQL for SMTP fault scripts (their steps and shared counters) and the session log of sandboxes that have one.
import { sql, type Kysely } from 'kysely';
import type { Cursor } from '../../pagination.ts';
import type { SmtpFaultStep, SmtpSessionEvent } from '../../smtpFaults/types.ts';
import type { Database, SmtpFaultStepRow, SmtpSessionRow } from '../schema.ts';

/** Replaces the whole script in one transaction: counters start again with the new list. */
export async function replaceFaultSteps(
  db: Kysely<Database>,
  sandboxId: string,
  generation: string,
  steps: SmtpFaultStep[],
): Promise<SmtpFaultStepRow[]> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('smtp_fault_steps').where('sandbox_id', '=', sandboxId).execute();
    if (steps.length === 0) return [];
    return trx
      .insertInto('smtp_fault_steps')
      .values(
        steps.map((step, position) => ({
          sandbox_id: sandboxId,
          position,
          generation,
          step: JSON.stringify(step),
          remaining: step.times ?? null,
        })),
      )
      .returningAll()
      .execute();
  });
}

export async function listFaultSteps(db: Kysely<Database>, sandboxId: string): Promise<SmtpFaultStepRow[]> {
  return db
    .selectFrom('smtp_fault_steps')
    .selectAll()
    .where('sandbox_id', '=', sandboxId)
    .orderBy('position')
    .execute();
}

/**
 * Spends one of a counted step's matches: one statement, so two processes (or sessions) racing for the last
 * match cannot both get it. False when none is left, or the list was replaced since `generation` was read.
 */
export async function claimFaultStep(
  db: Kysely<Database>,
  sandboxId: string,
  position: number,
  generation: string,
): Promise<boolean> {
  const row = await db
    .updateTable('smtp_fault_steps')
    .set((eb) => ({ remaining: eb('remaining', '-', 1) }))
    .where('sandbox_id', '=', sandboxId)
    .where('position', '=', position)
    .where('generation', '=', generation)
    .where('remaining', '>', 0)
    .returning('remaining')
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertSmtpSession(
  db: Kysely<Database>,
  row: Omit<SmtpSessionRow, 'events' | 'ended_at'>,
): Promise<void> {
  await db.insertInto('smtp_sessions').values(row).execute();
}

/** Adds one stage to a session's log (and marks it ended when `endedAt` is given). */
export async function appendSmtpSessionEvents(
  db: Kysely<Database>,
  id: string,
  events: SmtpSessionEvent[],
  endedAt?: Date,
): Promise<void> {
  await db
    .updateTable('smtp_sessions')
    .set((eb) => ({
      events: sql`${eb.ref('events')} || cast(${JSON.stringify(events)} as jsonb)`,
      ...(endedAt === undefined ? {} : { ended_at: endedAt }),
    }))
    .where('id', '=', id)
    .execute();
}

/** Keeps the newest `keep` sessions of a sandbox: the log is bounded however long a script runs. */
export async function trimSmtpSessions(db: Kysely<Database>, sandboxId: string, keep: number): Promise<void> {
  await sql`delete from smtp_sessions where sandbox_id = ${sandboxId} and id in (
    select id from smtp_sessions where sandbox_id = ${sandboxId}
    order by started_at desc, id desc offset ${keep})`.execute(db);
}

export async function listSmtpSessions(
  db: Kysely<Database>,
  sandboxId: string,
  limit: number,
  cursor: Cursor | undefined,
): Promise<SmtpSessionRow[]> {
  let q = db.selectFrom('smtp_sessions').selectAll().where('sandbox_id', '=', sandboxId);
  if (cursor !== undefined) {
    q = q.where((eb) => eb(eb.refTuple('started_at', 'id'), '<', eb.tuple(cursor.at, cursor.id)));
  }
  return q.orderBy('started_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}
