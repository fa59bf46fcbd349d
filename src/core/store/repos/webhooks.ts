// SQL for outgoing webhooks: subscriptions, the fan-out cursor, the outbox the senders claim from, and the log.
import { sql, type Insertable, type Kysely } from 'kysely';
import type { RenderedCallback } from '../../mocks/callbacks.ts';
import type { Cursor } from '../../pagination.ts';
import type {
  Database,
  WebhookDeliveriesTable,
  WebhookDeliveryRow,
  WebhookOutboxRow,
  WebhookOutboxTable,
  WebhookRow,
} from '../schema.ts';
import type { PositionText } from './liveEvents.ts';

export async function insertWebhook(
  db: Kysely<Database>,
  row: Omit<WebhookRow, 'start_xid'>,
): Promise<WebhookRow> {
  return db.insertInto('webhooks').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function listWebhooks(
  db: Kysely<Database>,
  workspaceId: string,
  limit: number,
  cursor: Cursor | undefined,
): Promise<WebhookRow[]> {
  let q = db.selectFrom('webhooks').selectAll().where('workspace_id', '=', workspaceId);
  if (cursor !== undefined) {
    q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(cursor.at, cursor.id)));
  }
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function findWebhook(
  db: Kysely<Database>,
  workspaceId: string,
  id: string,
): Promise<WebhookRow | undefined> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Its outbox rows and log go with it (foreign keys), so nothing more is sent. */
export async function deleteWebhook(db: Kysely<Database>, workspaceId: string, id: string): Promise<boolean> {
  const res = await db
    .deleteFrom('webhooks')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return res.numDeletedRows > 0n;
}

/**
 * The fan-out's position, locked for this transaction; undefined when another process holds it (that process
 * is fanning out now, and one at a time is enough).
 */
export async function lockFanoutCursor(trx: Kysely<Database>): Promise<PositionText | undefined> {
  const result = await sql<PositionText>`
    select event_xid::text as xid, event_seq::text as seq from webhook_fanout where id = 1 for update skip locked
  `.execute(trx);
  return result.rows[0];
}

export async function setFanoutCursor(trx: Kysely<Database>, to: PositionText): Promise<void> {
  await sql`update webhook_fanout set event_xid = cast(${to.xid} as xid8), event_seq = cast(${to.seq} as bigint)
    where id = 1`.execute(trx);
}

/** The fan-out's position, read without a lock (to see whether there is anything to do). */
export async function readFanoutCursor(db: Kysely<Database>): Promise<PositionText> {
  const result = await sql<PositionText>`
    select event_xid::text as xid, event_seq::text as seq from webhook_fanout where id = 1
  `.execute(db);
  const row = result.rows[0];
  if (row === undefined) throw new Error('webhook_fanout has no row (migration 023 not applied?)');
  return row;
}

export type FanoutWebhook = Pick<WebhookRow, 'id' | 'workspace_id' | 'sandbox_id' | 'events' | 'start_xid'>;

export async function fanoutWebhooks(trx: Kysely<Database>): Promise<FanoutWebhook[]> {
  return trx
    .selectFrom('webhooks')
    .select(['id', 'workspace_id', 'sandbox_id', 'events', sql<string>`start_xid::text`.as('start_xid')])
    .execute();
}

export type NewOutboxRow = Omit<Insertable<WebhookOutboxTable>, 'attempts' | 'claimed_until'>;

/** Each (webhook, event) at most once, however often the fan-out reads the same event. */
export async function insertOutbox(trx: Kysely<Database>, rows: NewOutboxRow[]): Promise<void> {
  if (rows.length === 0) return;
  await trx
    .insertInto('webhook_outbox')
    .values(rows)
    .onConflict((oc) => oc.columns(['webhook_id', 'event_key']).doNothing())
    .execute();
}

/** A due row with where it goes: its webhook's URL and secret, or a callback's own target (secret null). */
export type ClaimedRow = WebhookOutboxRow & { url: string; secret: string | null };

/**
 * Claims up to `limit` due rows until `claimUntil`: SKIP LOCKED lets each process take different rows, and the
 * claim (a committed `claimed_until`) keeps the others off them while the POST runs outside any transaction.
 */
export async function claimDueOutbox(
  db: Kysely<Database>,
  now: Date,
  claimUntil: Date,
  limit: number,
): Promise<ClaimedRow[]> {
  const result = await sql<ClaimedRow>`
    with due as (
      select id from webhook_outbox
      where status = 'pending' and next_attempt_at <= ${now} and (claimed_until is null or claimed_until <= ${now})
      order by next_attempt_at limit ${limit}
      for update skip locked
    ), claimed as (
      update webhook_outbox o set claimed_until = ${claimUntil}, attempts = o.attempts + 1
      from due where o.id = due.id
      returning o.*
    )
    select c.*, coalesce(c.target_url, w.url) as url, w.secret
    from claimed c left join webhooks w on w.id = c.webhook_id
    order by c.next_attempt_at
  `.execute(db);
  return result.rows;
}

/** The earliest moment a pending row falls due (or its claim lapses); undefined when none is pending. */
export async function nextDueAt(db: Kysely<Database>): Promise<Date | undefined> {
  const row = await sql<{ at: Date | null }>`
    select min(greatest(next_attempt_at, coalesce(claimed_until, next_attempt_at))) as at
    from webhook_outbox where status = 'pending'
  `.execute(db);
  const at = row.rows[0]?.at;
  return at === null || at === undefined ? undefined : new Date(at);
}

/**
 * Records one attempt and its consequence for the row, in one transaction; nothing when the row was claimed
 * again since (this sender's claim had lapsed) or is gone (webhook deleted).
 */
export async function recordAttempt(
  db: Kysely<Database>,
  outboxId: string,
  attempt: number,
  next: { status: 'pending' | 'delivered' | 'failed'; nextAttemptAt: Date },
  log: Omit<Insertable<WebhookDeliveriesTable>, 'next_attempt_at'>,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const res = await trx
      .updateTable('webhook_outbox')
      .set({ status: next.status, next_attempt_at: next.nextAttemptAt, claimed_until: null })
      .where('id', '=', outboxId)
      .where('attempts', '=', attempt)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (res.numUpdatedRows === 0n) return false;
    await trx
      .insertInto('webhook_deliveries')
      .values({ ...log, next_attempt_at: next.status === 'pending' ? next.nextAttemptAt : null })
      .execute();
    return true;
  });
}

/** At start of a process that owns its store alone (embedded): claims of a killed process lapse at once. */
export async function releaseClaims(db: Kysely<Database>): Promise<void> {
  await db
    .updateTable('webhook_outbox')
    .set({ claimed_until: null })
    .where('status', '=', 'pending')
    .where('claimed_until', 'is not', null)
    .execute();
}

export async function listDeliveries(
  db: Kysely<Database>,
  webhookId: string,
  limit: number,
  cursor: Cursor | undefined,
): Promise<WebhookDeliveryRow[]> {
  let q = db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId);
  if (cursor !== undefined) {
    q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(cursor.at, cursor.id)));
  }
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/**
 * A rule's rendered callbacks for one answered request, due after their delays; each (request, callback) is
 * queued at most once (its event key), so recording the same request again cannot send twice.
 */
export async function insertCallbacks(
  db: Kysely<Database>,
  sandboxId: string,
  requestId: string,
  callbacks: RenderedCallback[],
  now: Date,
): Promise<void> {
  if (callbacks.length === 0) return;
  await db
    .insertInto('webhook_outbox')
    .values(
      callbacks.map((c) => ({
        id: `msg_${requestId.replaceAll('-', '')}_${c.index}`,
        webhook_id: null,
        event_key: `callback:${requestId}:${c.index}`,
        event_type: 'mock.callback',
        payload: c.body,
        status: 'pending' as const,
        next_attempt_at: new Date(now.getTime() + c.delayMs),
        created_at: now,
        sandbox_id: sandboxId,
        rule_id: c.ruleId,
        request_id: requestId,
        target_url: c.url,
        target_method: c.method,
        target_headers: JSON.stringify(c.headers),
        signing: c.signing === null ? null : JSON.stringify(c.signing),
      })),
    )
    .onConflict((oc) => oc.column('event_key').where('webhook_id', 'is', null).doNothing())
    .execute();
}

/** A sandbox's callbacks (outbox rows without a webhook), of one rule or one request when given. */
function callbacksOf(
  db: Kysely<Database>,
  sandboxId: string,
  filter: { ruleId?: string | undefined; requestId?: string | undefined },
) {
  let q = db
    .selectFrom('webhook_outbox')
    .selectAll()
    .where('sandbox_id', '=', sandboxId)
    .where('webhook_id', 'is', null);
  if (filter.ruleId !== undefined) q = q.where('rule_id', '=', filter.ruleId);
  if (filter.requestId !== undefined) q = q.where('request_id', '=', filter.requestId);
  return q;
}

/** Callbacks of a sandbox (optionally one rule's, or one request's) with their state, newest first. */
export async function listCallbacks(
  db: Kysely<Database>,
  sandboxId: string,
  filter: { ruleId?: string | undefined; requestId?: string | undefined },
  limit: number,
  cursor: Cursor | undefined,
): Promise<WebhookOutboxRow[]> {
  let q = callbacksOf(db, sandboxId, filter);
  if (cursor !== undefined) {
    q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(cursor.at, cursor.id)));
  }
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** What a callback wait waits for: delivered, failed for good, or any attempt recorded (retries included). */
export type CallbackOutcome = 'delivered' | 'failed' | 'attempted';

/** The newest callback of the sandbox matching `filter` that has reached `outcome`, if any. */
export async function findCallbackWithOutcome(
  db: Kysely<Database>,
  sandboxId: string,
  filter: { ruleId?: string | undefined; requestId?: string | undefined },
  outcome: CallbackOutcome,
): Promise<WebhookOutboxRow | undefined> {
  let q = callbacksOf(db, sandboxId, filter);
  // (`attempts` counts claims, which precede the attempt's record: an attempt is there once its log row is.)
  q =
    outcome === 'attempted'
      ? q.where(({ exists, selectFrom }) =>
          exists(
            selectFrom('webhook_deliveries')
              .select('webhook_deliveries.id')
              .whereRef('webhook_deliveries.message_id', '=', 'webhook_outbox.id'),
          ),
        )
      : q.where('status', '=', outcome);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
}

/** The attempts of some callbacks, oldest first. */
export async function callbackAttempts(
  db: Kysely<Database>,
  messageIds: string[],
): Promise<WebhookDeliveryRow[]> {
  if (messageIds.length === 0) return [];
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('message_id', 'in', messageIds)
    .where('webhook_id', 'is', null)
    .orderBy('created_at')
    .orderBy('attempt')
    .execute();
}
