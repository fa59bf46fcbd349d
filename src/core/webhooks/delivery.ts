// The webhook sender of one process: the fan-out turns committed events into outbox rows (read from the event
// stream after a durable cursor, cursor and rows committed together, so a crash repeats work but loses none),
// and the sender claims due rows, POSTs them signed, and records each attempt. Both run apart from ingest: a
// slow or dead target holds only its own delivery.
import type { Kysely } from 'kysely';
import { Webhook } from 'standardwebhooks';
import type { Clock } from '../clock.ts';
import type { EventBus } from '../events.ts';
import { eventIds, type EventIds } from '../liveEvents/eventIds.ts';
import { toLiveEvent } from '../liveEvents/storedEvents.ts';
import type { LiveEvent } from '../liveEvents/types.ts';
import { newId } from '../random.ts';
import { eventIdKey, readEventsAfter, type PositionText } from '../store/repos/liveEvents.ts';
import {
  claimDueOutbox,
  fanoutWebhooks,
  insertOutbox,
  lockFanoutCursor,
  nextDueAt,
  recordAttempt,
  releaseClaims,
  readFanoutCursor,
  setFanoutCursor,
  type ClaimedRow,
  type FanoutWebhook,
  type NewOutboxRow,
} from '../store/repos/webhooks.ts';
import type { Database } from '../store/schema.ts';
import { callbackHeaders } from './callbackSigning.ts';
import { postPinned, type Attempt } from './post.ts';
import { newMessageId } from './service.ts';
import { vetTarget, type TargetPolicy } from './targets.ts';

/** Events read per fan-out transaction. */
const FANOUT_BATCH = 500;
/** Deliveries in flight at once per process. */
const MAX_IN_FLIGHT = 32;
/** Retries stop this long after the event, and the row is marked failed. */
const GIVE_UP_MS = 24 * 3_600_000;
const MAX_BACKOFF_MS = 3_600_000;
/** Another process's arrivals are seen through the bus (PostgreSQL NOTIFY); this catches any missed wake. */
const POLL_MS = 1_000;
/** The least gap between two runs woken by arrivals. */
const RERUN_GAP_MS = 20;

/** The event as the event stream's clients see it (the REST adapter's wire form), for the payload. */
export type WireEvent = (event: LiveEvent) => { id: string; event: string; data: unknown };

export interface WebhookDeliveryOptions {
  policy: TargetPolicy;
  retryBaseMs: number;
  timeoutMs: number;
  /** The store has no other process (embedded): claims left by a killed process lapse at start. */
  soleProcess: boolean;
  wire: WireEvent;
  onError: (err: unknown, what: string) => void;
  /**
   * Told of every attempt (for METRICS): its outcome, and for a delivery the seconds from the event being
   * queued for this webhook to the target's 2xx.
   */
  onAttempt?: (outcome: 'delivered' | 'retrying' | 'failed', deliveredAfterSeconds: number | null) => void;
}

export interface WebhookSender {
  /** Fan out and send now rather than at the next poll (an event was committed, a ping queued). */
  wake(): void;
  /** Stops claiming and waits for deliveries in flight to be recorded. */
  stop(): Promise<void>;
}

export function backoffMs(baseMs: number, attempt: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempt - 1), MAX_BACKOFF_MS);
}

function matches(hook: FanoutWebhook, event: LiveEvent, xid: bigint): boolean {
  return (
    hook.workspace_id === event.workspaceId &&
    (hook.sandbox_id === null || hook.sandbox_id === event.sandboxId) &&
    hook.events.includes(event.type) &&
    xid >= BigInt(hook.start_xid)
  );
}

export function startWebhookDelivery(
  db: Kysely<Database>,
  clock: Clock,
  bus: EventBus,
  options: WebhookDeliveryOptions,
): WebhookSender {
  let stopped = false;
  let ids: EventIds | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  const inFlight = new Set<Promise<void>>();
  const leaseMs = options.timeoutMs * 2 + 1_000;

  /** Whether the last look found any webhook: while there is none, arrivals do not wake the fan-out. */
  let anyHooks = true;

  /**
   * Where reading starts: the cursor, or the oldest webhook's start when that is later (nothing before it can
   * match), so a store that had no webhook for a long time does not read its history.
   */
  const startOf = (cursor: PositionText, hooks: FanoutWebhook[]): PositionText => {
    const oldest = hooks.reduce(
      (min, h) => (BigInt(h.start_xid) < min ? BigInt(h.start_xid) : min),
      2n ** 64n,
    );
    return oldest > BigInt(cursor.xid) ? { xid: String(oldest), seq: '0' } : cursor;
  };

  /** One fan-out transaction; true when more events may be waiting right behind it. */
  const fanOutOnce = async (): Promise<boolean> => {
    // A look without a lock or a write first: an idle store (or one without webhooks) is only read.
    const seenHooks = await fanoutWebhooks(db);
    anyHooks = seenHooks.length > 0;
    if (!anyHooks) return false;
    const probe = await readEventsAfter(db, startOf(await readFanoutCursor(db), seenHooks), { limit: 1 });
    if (probe.rows[0]?.stable !== true) return false;
    ids ??= eventIds(await eventIdKey(db));
    const format = ids;
    return db.transaction().execute(async (trx) => {
      const cursor = await lockFanoutCursor(trx);
      if (cursor === undefined) return false;
      const hooks = await fanoutWebhooks(trx);
      if (hooks.length === 0) return false;
      const batch = await readEventsAfter(trx, startOf(cursor, hooks), { limit: FANOUT_BATCH });
      // Only events nothing can commit behind: the cursor never passes a position still filling in.
      const settled = batch.rows.filter((r) => r.stable);
      const last = settled.at(-1);
      if (last === undefined) return false;
      const now = clock.now();
      const rows: NewOutboxRow[] = [];
      for (const row of settled) {
        const event = toLiveEvent(row, format);
        if (event === undefined) continue;
        const xid = BigInt(row.xid);
        let payload: string | undefined;
        for (const hook of hooks) {
          if (!matches(hook, event, xid)) continue;
          if (payload === undefined) {
            const w = options.wire(event);
            payload = JSON.stringify({
              type: w.event,
              timestamp: now.toISOString(),
              eventId: w.id,
              data: w.data,
            });
          }
          rows.push({
            id: newMessageId(),
            webhook_id: hook.id,
            event_key: `${row.xid}.${row.seq}`,
            event_type: event.type,
            payload,
            status: 'pending',
            next_attempt_at: now,
            created_at: now,
          });
        }
      }
      for (let i = 0; i < rows.length; i += 500) await insertOutbox(trx, rows.slice(i, i + 500));
      await setFanoutCursor(trx, { xid: last.xid, seq: last.seq });
      return settled.length === FANOUT_BATCH;
    });
  };

  const attemptOf = async (row: ClaimedRow): Promise<Attempt> => {
    const vetted = await vetTarget(row.url, options.policy);
    if (!vetted.ok) return { statusCode: null, excerpt: null, error: vetted.reason, durationMs: 0 };
    const at = clock.now();
    if (row.secret === null) {
      // A mock rule's callback: its own method, headers and signing (mocks/callbackSigning.ts).
      const headers = {
        ...callbackHeaders(row, at),
        ...(JSON.parse(row.target_headers ?? '{}') as Record<string, string>),
      };
      return postPinned(row.url, vetted.addresses, headers, row.payload, options.timeoutMs, {
        method: row.target_method ?? 'POST',
        userAgent: 'sandtrap-callbacks',
      });
    }
    const signature = new Webhook(row.secret).sign(row.id, at, row.payload);
    const headers = {
      'webhook-id': row.id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    };
    return postPinned(row.url, vetted.addresses, headers, row.payload, options.timeoutMs);
  };

  const deliver = async (row: ClaimedRow): Promise<void> => {
    let attempt: Attempt;
    try {
      attempt = await attemptOf(row);
    } catch (err) {
      attempt = { statusCode: null, excerpt: null, error: (err as Error).message, durationMs: 0 };
    }
    const ok = attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;
    const now = clock.now();
    const nextAttemptAt = new Date(now.getTime() + backoffMs(options.retryBaseMs, row.attempts));
    const outcome = ok
      ? 'delivered'
      : nextAttemptAt.getTime() - row.created_at.getTime() >= GIVE_UP_MS
        ? 'failed'
        : 'retrying';
    const status = outcome === 'retrying' ? 'pending' : outcome;
    const statusError =
      attempt.error ??
      (ok ? null : `the target answered HTTP ${attempt.statusCode}; any 2xx counts as delivered`);
    const recorded = await recordAttempt(
      db,
      row.id,
      row.attempts,
      { status, nextAttemptAt: outcome === 'retrying' ? nextAttemptAt : now },
      {
        id: newId(),
        webhook_id: row.webhook_id,
        sandbox_id: row.sandbox_id,
        rule_id: row.rule_id,
        request_id: row.request_id,
        url: row.webhook_id === null ? row.url : null,
        message_id: row.id,
        event_type: row.event_type,
        attempt: row.attempts,
        outcome,
        status_code: attempt.statusCode,
        duration_ms: attempt.durationMs,
        response_excerpt: attempt.excerpt,
        error: statusError,
        created_at: now,
      },
    );
    // A rule's callback: whoever waits on its delivery (GET .../callbacks/wait, wait_for_callback) looks again.
    if (recorded && row.webhook_id === null && row.sandbox_id !== null) {
      bus.publish({ kind: 'callback', sandboxId: row.sandbox_id, id: row.id });
    }
    options.onAttempt?.(outcome, ok ? (now.getTime() - row.created_at.getTime()) / 1000 : null);
  };

  const sendDue = async (): Promise<void> => {
    while (!stopped && inFlight.size < MAX_IN_FLIGHT) {
      const now = clock.now();
      const claimed = await claimDueOutbox(
        db,
        now,
        new Date(now.getTime() + leaseMs),
        MAX_IN_FLIGHT - inFlight.size,
      );
      if (claimed.length === 0) return;
      for (const row of claimed) {
        const p: Promise<void> = deliver(row)
          .catch((err: unknown) => options.onError(err, 'recording a webhook delivery failed'))
          .finally(() => {
            inFlight.delete(p);
            wake();
          });
        inFlight.add(p);
      }
    }
  };

  const schedule = async (checkDue = true): Promise<void> => {
    if (stopped) return;
    // The next poll, or sooner when a retry falls due before it.
    let delay = POLL_MS;
    try {
      const due = checkDue ? await nextDueAt(db) : undefined;
      if (due !== undefined) delay = Math.min(delay, Math.max(0, due.getTime() - clock.now().getTime()));
    } catch (err) {
      options.onError(err, 'reading the next webhook retry time failed');
    }
    if (!stopped) {
      clearTimeout(timer);
      timer = setTimeout(wake, Math.max(delay, 10));
      timer.unref();
    }
  };

  const runOnce = async (): Promise<void> => {
    try {
      while (!stopped && (await fanOutOnce()));
    } catch (err) {
      options.onError(err, 'webhook fan-out failed; it runs again shortly');
    }
    // Without a webhook only mock rules' callbacks can be pending: an idle store is read once or twice a poll.
    if (!anyHooks && (await nextDueAt(db).catch(() => undefined)) === undefined) return schedule(false);
    try {
      await sendDue();
    } catch (err) {
      options.onError(err, 'claiming webhook deliveries failed; it runs again shortly');
    }
    await schedule();
  };

  function wake(): void {
    if (stopped) return;
    if (running !== undefined) {
      again = true;
      return;
    }
    const run: Promise<void> = runOnce().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        // Under an ingest burst every commit wakes the sender: runs follow each other a little apart, so the
        // store (one connection, embedded) keeps serving capture between them.
        setTimeout(wake, RERUN_GAP_MS).unref();
      }
    });
    running = run;
  }

  const unsubscribe = bus.subscribeAll((event) => {
    // (A callback's attempt is this sender's own news: nothing new to fan out.)
    if (anyHooks && event.kind !== 'session_ended' && event.kind !== 'callback') wake();
  });
  const start = options.soleProcess
    ? releaseClaims(db).catch((err: unknown) => options.onError(err, 'releasing webhook claims failed'))
    : Promise.resolve();
  void start.then(wake);

  return {
    wake,
    stop: async () => {
      stopped = true;
      unsubscribe();
      clearTimeout(timer);
      await start;
      await running;
      await Promise.allSettled([...inFlight]);
    },
  };
}
