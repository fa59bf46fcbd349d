// SQL for the live event stream: arrivals and journaled changes read in position order, the journal itself,
// the checks a stream makes on its key, the sandboxes whose expiry a stream waits for, and the key of its ids.
// Positions are (event_xid, event_seq), migration 010.
import { randomBytes } from 'node:crypto';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../schema.ts';
import { SUMMARY_COLUMNS } from './messages.ts';
import { REQUEST_SUMMARY_COLUMNS } from './requests.ts';

export interface PositionText {
  xid: string;
  seq: string;
}

export interface StoredEventRow {
  source: 'message' | 'request' | 'change';
  xid: string;
  seq: string;
  sandbox_id: string;
  workspace_id: string;
  /** For changes, the journaled kind (event name). */
  kind: string | null;
  /** The summary row (snake_case, as the list queries read it) or the journaled data. */
  data: Record<string, unknown>;
  /** Its transaction ended before every transaction still running began: nothing can commit behind it. */
  stable: boolean;
}

export interface EventBatch {
  rows: StoredEventRow[];
  /** Every transaction below this had ended when the batch was read (same snapshot as the rows). */
  xmin: string;
}

export interface EventScope {
  workspaceId?: string | undefined;
  sandboxId?: string | undefined;
}

const summaryObject = (alias: string, columns: readonly string[]): RawBuilder<unknown> =>
  sql.raw(`jsonb_build_object(${columns.map((c) => `'${c}', ${alias}.${c}`).join(', ')})`);

function positionWhere(
  alias: string,
  after: PositionText,
  upTo: PositionText | undefined,
): RawBuilder<unknown> {
  const ref = sql.raw(`(${alias}.event_xid, ${alias}.event_seq)`);
  const lower = sql`${ref} > (cast(${after.xid} as xid8), cast(${after.seq} as bigint))`;
  if (upTo === undefined) return lower;
  return sql`${lower} and ${ref} <= (cast(${upTo.xid} as xid8), cast(${upTo.seq} as bigint))`;
}

function scopeWhere(sandboxRef: string, workspaceRef: string, scope: EventScope): RawBuilder<unknown> {
  const parts: Array<RawBuilder<unknown>> = [sql`true`];
  if (scope.sandboxId !== undefined) parts.push(sql`${sql.raw(sandboxRef)} = ${scope.sandboxId}`);
  if (scope.workspaceId !== undefined) parts.push(sql`${sql.raw(workspaceRef)} = ${scope.workspaceId}`);
  return sql.join(parts, sql` and `);
}

/**
 * Arrivals and changes after `after` (and at most `upTo`), oldest first, at most `limit`, read in one
 * statement so that `xmin` and `stable` describe the very snapshot the rows came from.
 */
export async function readEventsAfter(
  db: Kysely<Database>,
  after: PositionText,
  options: { limit: number; upTo?: PositionText | undefined; scope?: EventScope },
): Promise<EventBatch> {
  const { limit, upTo, scope = {} } = options;
  const result = await sql<Omit<StoredEventRow, 'stable'> & { xmin: string; stable: boolean | null }>`
    select h.xmin::text as xmin, e.source, e.xid::text as xid, e.seq::text as seq, e.sandbox_id,
      e.workspace_id, e.kind, e.data, e.xid < h.xmin as stable
    from (select pg_snapshot_xmin(pg_current_snapshot()) as xmin) h
    left join lateral (
      select * from (
        (select 'message' as source, m.event_xid as xid, m.event_seq as seq, m.sandbox_id, s.workspace_id,
            null::text as kind, ${summaryObject('m', SUMMARY_COLUMNS)} as data
          from messages m join sandboxes s on s.id = m.sandbox_id
          where ${positionWhere('m', after, upTo)} and ${scopeWhere('m.sandbox_id', 's.workspace_id', scope)}
          order by m.event_xid, m.event_seq limit ${limit})
        union all
        (select 'request', r.event_xid, r.event_seq, r.sandbox_id, s.workspace_id, null,
            ${summaryObject('r', REQUEST_SUMMARY_COLUMNS)}
          from requests r join sandboxes s on s.id = r.sandbox_id
          where ${positionWhere('r', after, upTo)} and ${scopeWhere('r.sandbox_id', 's.workspace_id', scope)}
          order by r.event_xid, r.event_seq limit ${limit})
        union all
        (select 'change', c.event_xid, c.event_seq, c.sandbox_id, c.workspace_id, c.kind, c.data
          from change_events c
          where ${positionWhere('c', after, upTo)} and ${scopeWhere('c.sandbox_id', 'c.workspace_id', scope)}
          order by c.event_xid, c.event_seq limit ${limit})
      ) u order by u.xid, u.seq limit ${limit}
    ) e on true
  `.execute(db);
  const first = result.rows[0];
  if (first === undefined) throw new Error('the event query returned no row');
  const rows = first.source === null ? [] : result.rows.map(({ xmin: _x, ...row }) => row as StoredEventRow);
  return { rows, xmin: first.xmin };
}

export interface StreamHead {
  /** Every transaction below this had ended: the position (xmin, 0) has nothing unseen behind it. */
  xmin: string;
  /** The next transaction id to be handed out: no position can have a larger one yet. */
  xmax: string;
  /** The newest position pruned from the journal. */
  horizon: PositionText;
}

export async function readStreamHead(db: Kysely<Database>): Promise<StreamHead> {
  const result = await sql<{ xmin: string; xmax: string; hxid: string; hseq: string }>`
    select pg_snapshot_xmin(s)::text as xmin, pg_snapshot_xmax(s)::text as xmax,
      h.event_xid::text as hxid, h.event_seq::text as hseq
    from pg_current_snapshot() s, change_events_horizon h where h.id = 1
  `.execute(db);
  const row = result.rows[0];
  if (row === undefined) throw new Error('change_events_horizon has no row (migration 010 not applied?)');
  return { xmin: row.xmin, xmax: row.xmax, horizon: { xid: row.hxid, seq: row.hseq } };
}

/** Journals one change in the caller's transaction; the workspace is read from the sandbox unless given. */
export async function insertChangeEvent(
  trx: Kysely<Database>,
  change: { sandboxId: string; workspaceId?: string; kind: string; data: unknown },
): Promise<void> {
  const data = JSON.stringify(change.data);
  if (change.workspaceId !== undefined) {
    await trx
      .insertInto('change_events')
      .values({
        workspace_id: change.workspaceId,
        sandbox_id: change.sandboxId,
        kind: change.kind,
        data,
      })
      .execute();
    return;
  }
  await sql`
    insert into change_events (workspace_id, sandbox_id, kind, data)
    select workspace_id, id, ${change.kind}, cast(${data} as jsonb) from sandboxes where id = ${change.sandboxId}
  `.execute(trx);
}

/**
 * Makes a clear of one sandbox's captures wait for captures of it still being committed (their inserts hold
 * a key-share lock on the sandbox row), so the clear removes them too and is positioned after them.
 */
export async function lockSandboxForClear(trx: Kysely<Database>, sandboxId: string): Promise<void> {
  await sql`select 1 from sandboxes where id = ${sandboxId} for update`.execute(trx);
}

/** Drops journaled changes older than `before` and moves the horizon to the newest one dropped. */
export async function pruneChangeEvents(db: Kysely<Database>, before: Date): Promise<number> {
  const result = await sql<{ n: string }>`
    with gone as (delete from change_events where at < ${before} returning event_xid, event_seq),
    newest as (select event_xid, event_seq from gone order by event_xid desc, event_seq desc limit 1),
    moved as (
      update change_events_horizon h set event_xid = n.event_xid, event_seq = n.event_seq from newest n
      where h.id = 1 and (n.event_xid, n.event_seq) > (h.event_xid, h.event_seq) returning 1
    )
    select count(*)::text as n from gone
  `.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}

/** Of `keyIds`, those that still authenticate (exist, not revoked, not expired at `now`). */
export async function usableKeyIds(db: Kysely<Database>, keyIds: string[], now: Date): Promise<Set<string>> {
  if (keyIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('api_keys')
    .select('id')
    .where('id', 'in', keyIds)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** A workspace's sandboxes that will expire (and have not yet): the moments its stream waits for. */
export async function expiringSandboxes(
  db: Kysely<Database>,
  workspaceId: string,
  now: Date,
): Promise<Array<{ id: string; expiresAt: Date }>> {
  const rows = await db
    .selectFrom('sandboxes')
    .select(['id', 'expires_at'])
    .where('workspace_id', '=', workspaceId)
    .where('expires_at', '>', now)
    .execute();
  return rows.map((r) => ({ id: r.id, expiresAt: r.expires_at as Date }));
}

/**
 * The store's key for event ids (32 bytes), made on first use: every process reads the same one, so an id
 * handed out by one process resumes on another.
 */
export async function eventIdKey(db: Kysely<Database>): Promise<Buffer> {
  const made = randomBytes(32).toString('base64');
  await db
    .insertInto('server_secrets')
    .values({ name: 'event_ids', value: made })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db
    .selectFrom('server_secrets')
    .select('value')
    .where('name', '=', 'event_ids')
    .executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'base64');
}
