// Outgoing webhooks as the API sees them: create (the target vetted, the secret shown once), list, read,
// delete, the delivery log, and a test ping that goes through the same outbox as events.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import { AppError, invalidInput, notFound } from '../errors.ts';
import { decodeCursor, DEFAULT_PAGE_SIZE, toPage, type Page } from '../pagination.ts';
import { newId } from '../random.ts';
import type { CreateWebhookInput } from '../schemas.ts';
import { findSandbox } from '../store/repos/sandboxes.ts';
import {
  deleteWebhook,
  findWebhook,
  insertOutbox,
  insertWebhook,
  listDeliveries,
  listWebhooks,
} from '../store/repos/webhooks.ts';
import type { Database, WebhookDeliveryRow, WebhookRow } from '../store/schema.ts';
import { vetTarget, type TargetPolicy } from './targets.ts';

export interface Webhook {
  id: string;
  url: string;
  sandboxId: string | null;
  events: string[];
  description: string | null;
  createdAt: Date;
}

export type CreatedWebhook = Webhook & { secret: string };

export interface WebhookDelivery {
  id: string;
  messageId: string;
  eventType: string;
  attempt: number;
  outcome: 'delivered' | 'retrying' | 'failed';
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
  nextAttemptAt: Date | null;
  at: Date;
}

const toWebhook = (r: WebhookRow): Webhook => ({
  id: r.id,
  url: r.url,
  sandboxId: r.sandbox_id,
  events: r.events,
  description: r.description,
  createdAt: r.created_at,
});

export const toDelivery = (r: WebhookDeliveryRow): WebhookDelivery => ({
  id: r.id,
  messageId: r.message_id,
  eventType: r.event_type,
  attempt: r.attempt,
  outcome: r.outcome,
  statusCode: r.status_code,
  durationMs: r.duration_ms,
  responseExcerpt: r.response_excerpt,
  error: r.error,
  nextAttemptAt: r.next_attempt_at,
  at: r.created_at,
});

/** The Standard Webhooks message id: one per (webhook, event), the same on every attempt. */
export const newMessageId = (): string => `msg_${newId().replaceAll('-', '')}`;

export function createWebhookService(
  db: Kysely<Database>,
  clock: Clock,
  policy: TargetPolicy,
  onQueued: () => void,
) {
  const owned = async (workspaceId: string, id: string): Promise<WebhookRow> => {
    const row = await findWebhook(db, workspaceId, id);
    if (row === undefined) throw notFound('Webhook');
    return row;
  };
  return {
    async create(workspaceId: string, input: CreateWebhookInput): Promise<CreatedWebhook> {
      const vetted = await vetTarget(input.url, policy);
      if (!vetted.ok) {
        throw invalidInput(`The webhook URL is not allowed: ${vetted.reason}.`, [
          { path: 'url', message: vetted.reason },
        ]);
      }
      const sandboxId = input.sandboxId ?? null;
      if (sandboxId !== null && (await findSandbox(db, workspaceId, sandboxId, clock.now())) === undefined) {
        throw new AppError('not_found', 'Sandbox does not exist in this workspace.');
      }
      const secret = `whsec_${randomBytes(32).toString('base64')}`;
      const row = await insertWebhook(db, {
        id: newId(),
        workspace_id: workspaceId,
        sandbox_id: sandboxId,
        url: input.url,
        events: input.events,
        description: input.description ?? null,
        secret,
        created_at: clock.now(),
      });
      // The sender may have stopped listening to arrivals while there was no webhook.
      onQueued();
      return { ...toWebhook(row), secret };
    },

    async list(workspaceId: string, page: { limit?: number; cursor?: string }): Promise<Page<Webhook>> {
      const limit = page.limit ?? DEFAULT_PAGE_SIZE;
      const cursor = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
      const rows = await listWebhooks(db, workspaceId, limit + 1, cursor);
      return toPage(rows, limit, (r) => ({ at: r.created_at, id: r.id }), toWebhook);
    },

    async get(workspaceId: string, id: string): Promise<Webhook> {
      return toWebhook(await owned(workspaceId, id));
    },

    async delete(workspaceId: string, id: string): Promise<void> {
      if (!(await deleteWebhook(db, workspaceId, id))) throw notFound('Webhook');
    },

    async deliveries(
      workspaceId: string,
      id: string,
      page: { limit?: number; cursor?: string },
    ): Promise<Page<WebhookDelivery>> {
      await owned(workspaceId, id);
      const limit = page.limit ?? DEFAULT_PAGE_SIZE;
      const cursor = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
      const rows = await listDeliveries(db, id, limit + 1, cursor);
      return toPage(rows, limit, (r) => ({ at: r.created_at, id: r.id }), toDelivery);
    },

    /** Queues a `webhook.ping` for the sender; its attempts show in the delivery log like any event's. */
    async ping(workspaceId: string, id: string): Promise<{ messageId: string }> {
      const hook = await owned(workspaceId, id);
      const now = clock.now();
      const messageId = newMessageId();
      const payload = JSON.stringify({
        type: 'webhook.ping',
        timestamp: now.toISOString(),
        data: { webhookId: hook.id },
      });
      await insertOutbox(db, [
        {
          id: messageId,
          webhook_id: hook.id,
          event_key: `ping:${messageId}`,
          event_type: 'webhook.ping',
          payload,
          status: 'pending',
          next_attempt_at: now,
          created_at: now,
        },
      ]);
      onQueued();
      return { messageId };
    },
  };
}
