// What the dashboard does to many captured items at once (mark read, delete, clear up to what was seen) and
// each sandbox's activity (counts, unread, last arrival), for both streams.
import type { Kysely } from 'kysely';
import type { Clock } from './clock.ts';
import { AppError } from './errors.ts';
import type { EventBus } from './events.ts';
import { changesWithEvents } from './liveEvents/journal.ts';
import type { JournaledChange } from './liveEvents/types.ts';
import { ownedSandboxId } from './ownedSandbox.ts';
import { activityQuery, bulkDeleteInput, bulkReadInput } from './schemas.ts';
import { lockSandboxForClear } from './store/repos/liveEvents.ts';
import { findSandbox } from './store/repos/sandboxes.ts';
import {
  deleteMany,
  itemPosition,
  setReadMany,
  streamCounts,
  streamHasItems,
  type BulkSelection,
  type StreamTable,
} from './store/repos/streamBulk.ts';
import type { Database } from './store/schema.ts';
import { parseId, parseInput } from './validation.ts';

/** Counts stop here: past it the dashboard shows "10,000+", and a huge sandbox costs no more to count. */
export const ACTIVITY_COUNT_CAP = 10_000;

export interface StreamActivity {
  total: number;
  unread: number;
  lastReceivedAt: Date | null;
}

export interface SandboxActivity {
  sandboxId: string;
  messages: StreamActivity;
  requests: StreamActivity;
}

const EVENTS = {
  messages: { updated: 'message.updated', deleted: 'message.deleted', cleared: 'messages.cleared' },
  requests: { updated: 'request.updated', deleted: 'request.deleted', cleared: 'requests.cleared' },
} as const;

const ITEM = { messages: 'message', requests: 'request' } as const;

export function createStreamActions(db: Kysely<Database>, clock: Clock, bus: EventBus) {
  /** The selection with `upTo` resolved to its position; an `upTo` not in the stream is a 404 naming it. */
  async function selection(
    trx: Kysely<Database>,
    table: StreamTable,
    sandboxId: string,
    input: { ids?: string[] | undefined; upTo?: string | undefined },
  ): Promise<BulkSelection> {
    if (input.upTo === undefined) return { ids: input.ids };
    const upTo = await itemPosition(trx, table, sandboxId, input.upTo);
    if (upTo === undefined) {
      throw new AppError(
        'not_found',
        `The ${ITEM[table]} named by upTo does not exist in this sandbox (deleted meanwhile?); nothing was changed. Read the list again and retry.`,
      );
    }
    return { ids: input.ids, upTo };
  }

  return {
    /**
     * Marks items read (or unread with `isRead: false`); returns how many changed. Each change is journaled
     * as the PATCH of one item would be, so live lists and webhooks see the same events.
     */
    async markRead(
      workspaceId: string,
      sandboxId: string,
      table: StreamTable,
      body: unknown,
    ): Promise<{ changed: number }> {
      const owned = await ownedSandboxId(db, clock, workspaceId, parseId(sandboxId, 'sandboxId'));
      const input = parseInput(bulkReadInput, body, 'request body');
      return changesWithEvents(db, bus, owned, async (trx) => {
        const ids = await setReadMany(
          trx,
          table,
          owned,
          await selection(trx, table, owned, input),
          input.isRead,
        );
        const changes = ids.map((id): JournaledChange => ({
          type: EVENTS[table].updated,
          data: { id, sandboxId: owned, isRead: input.isRead },
        }));
        return { value: { changed: ids.length }, changes };
      });
    },

    /**
     * Deletes the items named and/or those up to `upTo` (a clear of what the person saw: later arrivals stay).
     * When the stream is empty afterwards it is journaled as one clear, else one delete per item.
     */
    async deleteMany(
      workspaceId: string,
      sandboxId: string,
      table: StreamTable,
      body: unknown,
    ): Promise<{ deleted: number }> {
      const owned = await ownedSandboxId(db, clock, workspaceId, parseId(sandboxId, 'sandboxId'));
      const input = parseInput(bulkDeleteInput, body, 'request body');
      return changesWithEvents(db, bus, owned, async (trx) => {
        // As a clear does: captures of this sandbox still committing land first, and are judged by upTo.
        await lockSandboxForClear(trx, owned);
        const ids = await deleteMany(trx, table, owned, await selection(trx, table, owned, input));
        if (ids.length === 0) return { value: { deleted: 0 }, changes: [] };
        const emptied = input.ids === undefined && !(await streamHasItems(trx, table, owned));
        const changes: JournaledChange[] = emptied
          ? [{ type: EVENTS[table].cleared, data: { sandboxId: owned } }]
          : ids.map((id) => ({ type: EVENTS[table].deleted, data: { id, sandboxId: owned } }));
        return { value: { deleted: ids.length }, changes };
      });
    },

    /** Activity of the workspace's live sandboxes among `ids`; others (unknown, expired, not ours) are left out. */
    async activity(workspaceId: string, query: unknown): Promise<SandboxActivity[]> {
      const { ids } = parseInput(activityQuery, query, 'query string');
      const now = clock.now();
      const out: SandboxActivity[] = [];
      for (const id of new Set(ids)) {
        if ((await findSandbox(db, workspaceId, id, now)) === undefined) continue;
        const counts = await streamCounts(db, id, ACTIVITY_COUNT_CAP);
        out.push({ sandboxId: id, ...counts });
      }
      return out;
    },
  };
}
