// What a sandbox's mock rules remember and queue (issue 40): scenario states per key, read and reset, and the
// callbacks its rules queued with their delivery attempts, for tests and agents that wait on them.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { EventBus } from '../events.ts';
import { createCallbackWaits, type CallbackWaitOptions } from './callbackWait.ts';
import { z } from 'zod';
import { decodeCursor, DEFAULT_PAGE_SIZE, toPage, type Page } from '../pagination.ts';
import type { SandboxService } from '../sandboxes.ts';
import { pageQuery, textMax, uuid } from '../schemas.ts';
import { deleteScenarioStates, listScenarioStates } from '../store/repos/mockState.ts';
import { callbackAttempts, listCallbacks } from '../store/repos/webhooks.ts';
import type { Database, WebhookDeliveryRow, WebhookOutboxRow } from '../store/schema.ts';
import { parseInput } from '../validation.ts';
import { toDelivery, type WebhookDelivery } from '../webhooks/service.ts';

export interface ScenarioState {
  scenario: string;
  key: string;
  state: string;
  updatedAt: Date;
}

export interface QueuedCallback {
  id: string;
  ruleId: string;
  requestId: string;
  method: string;
  url: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: Date;
  createdAt: Date;
  deliveries: WebhookDelivery[];
}

const scenarioQuery = z.object({ scenario: textMax(120).optional() });
const callbackQuery = pageQuery.extend({ ruleId: textMax(64).optional(), requestId: uuid.optional() });

function toQueuedCallback(r: WebhookOutboxRow, attempts: WebhookDeliveryRow[]): QueuedCallback {
  return {
    id: r.id,
    ruleId: r.rule_id ?? '',
    requestId: r.request_id ?? '',
    method: r.target_method ?? 'POST',
    url: r.target_url ?? '',
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    createdAt: r.created_at,
    deliveries: attempts.filter((a) => a.message_id === r.id).map(toDelivery),
  };
}

export function createMockStateService(
  db: Kysely<Database>,
  sandboxes: SandboxService,
  bus: EventBus,
  clock: Clock,
  /** The waits' per-key cap (WaitService.acquireSlot), which callback waits count against too. */
  acquireWaitSlot: (keyId: string | undefined) => () => void,
) {
  /** The sandbox's id once it is known to be the caller's (else not found, as every sandbox route says). */
  const owned = async (workspaceId: string, id: string) => (await sandboxes.get(workspaceId, id)).id;
  const callbackWaits = createCallbackWaits(
    db,
    bus,
    clock,
    sandboxes,
    async (row) => toQueuedCallback(row, await callbackAttempts(db, [row.id])),
    acquireWaitSlot,
  );
  return {
    async scenarios(workspaceId: string, id: string, query: unknown): Promise<ScenarioState[]> {
      const { scenario } = parseInput(scenarioQuery, query, 'query');
      const rows = await listScenarioStates(db, await owned(workspaceId, id), scenario);
      return rows.map((r) => ({
        scenario: r.scenario,
        key: r.state_key,
        state: r.state,
        updatedAt: r.updated_at,
      }));
    },

    /** Every key (of one scenario, or of all) back to the initial state; how many keys were reset. */
    async resetScenarios(workspaceId: string, id: string, query: unknown): Promise<number> {
      const { scenario } = parseInput(scenarioQuery, query, 'query');
      return deleteScenarioStates(db, await owned(workspaceId, id), scenario);
    },

    async callbacks(workspaceId: string, id: string, query: unknown): Promise<Page<QueuedCallback>> {
      const q = parseInput(callbackQuery, query, 'query');
      const sandboxId = await owned(workspaceId, id);
      const limit = q.limit ?? DEFAULT_PAGE_SIZE;
      const cursor = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
      const rows = await listCallbacks(db, sandboxId, q, limit + 1, cursor);
      const attempts = await callbackAttempts(
        db,
        rows.map((r) => r.id),
      );
      return toPage(
        rows,
        limit,
        (r) => ({ at: r.created_at, id: r.id }),
        (r) => toQueuedCallback(r, attempts),
      );
    },

    /**
     * The newest callback matching the query (`ruleId`, `requestId`) once it has the `outcome` asked for
     * (`delivered` by default, `failed`, or `attempted`), waiting up to `timeoutSeconds`; undefined at the timeout.
     */
    waitForCallback(
      workspaceId: string,
      id: string,
      query: unknown,
      options?: CallbackWaitOptions,
    ): Promise<QueuedCallback | undefined> {
      return callbackWaits.wait(workspaceId, id, query, options);
    },
  };
}
