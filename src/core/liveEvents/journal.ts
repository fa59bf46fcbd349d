// The one hook every non-arrival change goes through: the change and its journal row commit in one
// transaction, then the streams of this process (and, with PostgreSQL, of the others) are told to read on.
import type { Kysely } from 'kysely';
import type { EventBus } from '../events.ts';
import { insertChangeEvent } from '../store/repos/liveEvents.ts';
import type { Database } from '../store/schema.ts';
import type { Sandbox } from '../sandboxes.ts';
import type { JournaledChange } from './types.ts';

export type ChangeToJournal = JournaledChange & {
  /** Known for sandbox changes; otherwise read from the sandbox in the same statement. */
  workspaceId?: string;
};

/** A sandbox change as streams show it: the sandbox without its SMTP password. */
export function sandboxChange(
  type: 'sandbox.created' | 'sandbox.updated',
  workspaceId: string,
  sandbox: Sandbox,
): ChangeToJournal {
  const { smtpPassword: _secret, ...shown } = sandbox;
  return { type, workspaceId, data: { ...shown, sandboxId: sandbox.id } };
}

/**
 * Runs `work` in a transaction and journals the change it reports (none when it changed nothing). The event
 * exists exactly when the change does: both commit or neither.
 */
export async function changeWithEvent<T>(
  db: Kysely<Database>,
  bus: EventBus,
  work: (trx: Kysely<Database>) => Promise<{ value: T; change: ChangeToJournal | undefined }>,
): Promise<T> {
  let journaled: ChangeToJournal | undefined;
  const value = await db.transaction().execute(async (trx) => {
    const { value: v, change } = await work(trx);
    if (change !== undefined) {
      await insertChangeEvent(trx, {
        sandboxId: change.data.sandboxId,
        ...(change.workspaceId === undefined ? {} : { workspaceId: change.workspaceId }),
        kind: change.type,
        data: change.data,
      });
      journaled = change;
    }
    return v;
  });
  if (journaled !== undefined) {
    const { sandboxId } = journaled.data;
    bus.publish({ kind: 'changed', sandboxId, id: 'id' in journaled.data ? journaled.data.id : sandboxId });
  }
  return value;
}

/** Journal rows per statement: eight parameters each stays far below PostgreSQL's bind parameter limit. */
const JOURNAL_CHUNK = 1000;

/**
 * `changeWithEvent` for a change of many items of one sandbox (a bulk mark or delete): every event is
 * journaled in the same transaction as the change, in the order given, with one lookup of the workspace.
 */
export async function changesWithEvents<T>(
  db: Kysely<Database>,
  bus: EventBus,
  sandboxId: string,
  work: (trx: Kysely<Database>) => Promise<{ value: T; changes: JournaledChange[] }>,
): Promise<T> {
  let journaled: JournaledChange[] = [];
  const value = await db.transaction().execute(async (trx) => {
    const { value: v, changes } = await work(trx);
    if (changes.length > 0) {
      const owner = await trx
        .selectFrom('sandboxes')
        .select('workspace_id')
        .where('id', '=', sandboxId)
        .executeTakeFirst();
      if (owner !== undefined) {
        for (let i = 0; i < changes.length; i += JOURNAL_CHUNK) {
          await trx
            .insertInto('change_events')
            .values(
              changes.slice(i, i + JOURNAL_CHUNK).map((c) => ({
                workspace_id: owner.workspace_id,
                sandbox_id: sandboxId,
                kind: c.type,
                data: JSON.stringify(c.data),
              })),
            )
            .execute();
        }
        journaled = changes;
      }
    }
    return v;
  });
  const last = journaled.at(-1);
  if (last !== undefined) {
    bus.publish({ kind: 'changed', sandboxId, id: 'id' in last.data ? last.data.id : sandboxId });
  }
  return value;
}
