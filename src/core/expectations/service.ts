// Expectations: counts of mail and requests matching the wait filters, checked together in one long poll. It
// listens before it reads the store (no arrival falls in between), fails the moment a condition can no longer
// hold, passes once every count is met and nothing more matched for the quiet period, and never marks an item
// read unless asked to (`consume`, on a pass).
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import { isAppError } from '../errors.ts';
import type { EventBus } from '../events.ts';
import { markMessageRead } from '../messages.ts';
import { ownedSandbox } from '../ownedSandbox.ts';
import { markRequestRead } from '../requests.ts';
import { sandboxDeleted, sandboxExpired, type ExpiryWatch } from '../sandboxExpiry.ts';
import type { ExpectationInput } from '../schemas.ts';
import { findSandbox } from '../store/repos/sandboxes.ts';
import type { Database } from '../store/schema.ts';
import { openWaitInbox, type InboxEntry } from '../waitInbox.ts';
import { messageMisses, requestMisses, type MessageMiss, type RequestMiss } from '../waitMisses.ts';
import type { WaitService } from '../waits.ts';
import {
  failedFilters,
  itemOf,
  matchesOf,
  newestOf,
  type Condition,
  type ExpectedItem,
  type Stream,
} from './items.ts';
import { boundsOf, byArrival, judge, type Bounds, type Verdict } from './judge.ts';
import { summarize, type Failure } from './words.ts';

/** Items kept per condition: one past the largest count a condition may name, so "one too many" is seen. */
const KEEP = 1001;
/** Matched items shown per condition in the result (the count is always whole). */
export const MATCHED_SHOWN = 50;
/** The newest items of a stream among which the closest misses are looked for. */
const CLOSEST_POOL = 50;
/** While the database is unreachable, an open expectation looks again this often (as waits do). */
const STORE_RETRY_MS = 1_000;

export interface ConditionResult {
  stream: Stream;
  count: number;
  /** The count is within the condition's bounds. */
  met: boolean;
  matched: ExpectedItem[];
  closest: Array<MessageMiss | RequestMiss>;
}

export interface ExpectationResult {
  result: 'pass' | 'fail';
  /** Items counted were received at or after this instant. */
  since: Date;
  summary: string;
  failure: Failure | undefined;
  conditions: ConditionResult[];
}

export interface ExpectationOptions {
  keyId?: string | undefined;
  /** Aborted when the client goes away. */
  signal?: AbortSignal | undefined;
}

/** One condition's matches so far: the first KEEP in arrival order, and how many there are in all. */
interface Tally {
  items: ExpectedItem[];
  ids: Set<string>;
  count: number;
}

function add(t: Tally, item: ExpectedItem): boolean {
  if (t.ids.has(item.id)) return false;
  t.ids.add(item.id);
  t.count++;
  if (t.items.length < KEEP || byArrival(item, t.items[t.items.length - 1] as ExpectedItem) < 0) {
    t.items.push(item);
    t.items.sort(byArrival);
    if (t.items.length > KEEP) t.items.pop();
  }
  return true;
}

export function createExpectationService(
  db: Kysely<Database>,
  clock: Clock,
  bus: EventBus,
  expiry: ExpiryWatch,
  waits: WaitService,
  options: { recheckMs: number | undefined },
) {
  /** The closest misses of a condition: fewest filters failed first, then newest; at most five. */
  function closestOf(
    c: Condition,
    pool: readonly ExpectedItem[],
    since: Date,
  ): Array<MessageMiss | RequestMiss> {
    const ranked = pool
      .map((item) => ({ item, failed: failedFilters(c, item, since) }))
      .filter((x) => x.failed !== undefined && x.failed.length > 0)
      .sort((a, b) => (a.failed?.length ?? 0) - (b.failed?.length ?? 0) || byArrival(b.item, a.item))
      .map((x) => x.item);
    // The misses keep this order (arrivals none, "unread" the ranked pool) and cut long texts as waits do.
    const criteria = { ...c.filter, since };
    return c.stream === 'messages'
      ? messageMisses(criteria, [], ranked as Array<Extract<ExpectedItem, { stream: 'messages' }>>)
      : requestMisses(criteria, [], ranked as Array<Extract<ExpectedItem, { stream: 'requests' }>>);
  }

  async function evaluate(
    workspaceId: string,
    sandboxId: string,
    input: ExpectationInput,
    opts: ExpectationOptions,
  ): Promise<ExpectationResult> {
    const { conditions } = input;
    const bounds: Bounds[] = conditions.map(boundsOf);
    const tallies: Tally[] = conditions.map(() => ({ items: [], ids: new Set(), count: 0 }));
    const hold = await waits.hold(opts.keyId, opts.signal);
    // Not let in: the sandbox is not known to be the caller's, so nothing is read.
    if (hold === undefined)
      return finish(undefined, input, input.since ?? clock.now(), tallies, interrupted());
    // The moment of the call, read as soon as it is let in: an item received from here on counts (the store is
    // read once the arrivals are subscribed to, so nothing in between is missed).
    const since = input.since ?? clock.now();
    try {
      const owned = await ownedSandbox(db, clock, workspaceId, sandboxId);
      const inbox = openWaitInbox({
        bus,
        expiry,
        sandboxId: owned.id,
        expiresAt: owned.expiresAt,
        kind: 'both',
        recheckMs: options.recheckMs,
        retryMs: STORE_RETRY_MS,
      });
      const timers = new Set<NodeJS.Timeout>();
      const also = [hold.shutdown, ...(opts.signal === undefined ? [] : [opts.signal])];
      /** A signal aborted after `seconds` (or with `alsoEnd`), or when the client goes away or shutdown begins. */
      const until = (seconds: number, alsoEnd?: AbortSignal) => {
        const end = new AbortController();
        const timer = setTimeout(() => end.abort(), seconds * 1000);
        timers.add(timer);
        const endsWith = alsoEnd === undefined ? [end.signal] : [end.signal, alsoEnd];
        return {
          timedOut: end.signal,
          signal: AbortSignal.any([...endsWith, ...also]),
          cancel: () => {
            clearTimeout(timer);
            timers.delete(timer);
          },
        };
      };
      try {
        const within = until(input.withinSeconds);
        const hardEnd = until(input.withinSeconds + input.quietForSeconds);
        const gone = () =>
          owned.expiresAt !== null && clock.now() >= owned.expiresAt
            ? sandboxExpired(owned.expiresAt)
            : sandboxDeleted(clock.now());

        /** Every condition's matches in the store; returns the ones not counted before. */
        const reload = async (): Promise<Array<[number, ExpectedItem]>> => {
          const added: Array<[number, ExpectedItem]> = [];
          for (const [i, c] of conditions.entries()) {
            for (const item of await matchesOf(db, owned.id, c, since, KEEP)) {
              if (add(tallies[i] as Tally, item)) added.push([i, item]);
            }
          }
          return added;
        };

        /** What one inbox entry adds to the counts; a sandbox that went away is the waits' 404. */
        const take = async (entry: InboxEntry): Promise<Array<[number, ExpectedItem]>> => {
          if (entry === 'expired') throw sandboxExpired(owned.expiresAt as Date);
          if (entry !== 'recheck' && entry.kind === 'sandbox_deleted') throw gone();
          try {
            if (entry === 'recheck') {
              if ((await findSandbox(db, workspaceId, owned.id, clock.now())) === undefined) throw gone();
              return await reload();
            }
            if (entry.kind !== 'message' && entry.kind !== 'request') return [];
            const item = await itemOf(
              db,
              owned.id,
              entry.kind === 'message' ? 'messages' : 'requests',
              entry.id,
            );
            if (item === undefined) return [];
            const added: Array<[number, ExpectedItem]> = [];
            for (const [i, c] of conditions.entries()) {
              if (failedFilters(c, item, since)?.length === 0 && add(tallies[i] as Tally, item))
                added.push([i, item]);
            }
            return added;
          } catch (err) {
            if (!isAppError(err) || err.code !== 'unavailable') throw err;
            // The database went away: the expectation stays open and looks again once it may be back.
            inbox.retryLater();
            return [];
          }
        };

        const verdict = (): Verdict<ExpectedItem> =>
          judge(
            bounds,
            tallies.map((t) => t.items),
            tallies.map((t) => t.count),
            input.inOrder,
          );
        const broken = (v: Verdict<ExpectedItem>): Failure | undefined =>
          v.state === 'broken'
            ? { condition: v.condition, problem: v.problem, item: v.item, after: v.after }
            : undefined;

        await reload().finally(() => hold.firstReadsDone());
        let v = verdict();
        while (v.state === 'pending') {
          const entry = await inbox.next(within.signal);
          if (entry === undefined) break;
          await take(entry);
          v = verdict();
        }
        if (v.state === 'broken') return await finish(owned.id, input, since, tallies, broken(v));
        if (v.state === 'pending') {
          if (!within.timedOut.aborted) return await finish(owned.id, input, since, tallies, interrupted());
          const short = bounds.findIndex((b, i) => (tallies[i] as Tally).count < b.min);
          return await finish(owned.id, input, since, tallies, {
            condition: short,
            problem: 'too_few',
            item: undefined,
          });
        }
        if (input.quietForSeconds > 0) {
          // Each match restarts the quiet period (a count past its maximum fails at once); the last period must
          // have ended by withinSeconds + quietForSeconds from the call, the longest the call may last.
          let last: [number, ExpectedItem] | undefined;
          for (;;) {
            const quiet = until(input.quietForSeconds, hardEnd.timedOut);
            let restarted = false;
            for (let entry = await inbox.next(quiet.signal); entry !== undefined;) {
              const added = (await take(entry)).sort((a, b) => byArrival(a[1], b[1]));
              if (added.length > 0) {
                const failure = broken(verdict());
                if (failure !== undefined) return await finish(owned.id, input, since, tallies, failure);
                last = added[added.length - 1];
                restarted = true;
                break;
              }
              entry = await inbox.next(quiet.signal);
            }
            quiet.cancel();
            if (restarted) continue;
            if (quiet.timedOut.aborted) break;
            if (!hardEnd.timedOut.aborted || last === undefined) {
              return await finish(owned.id, input, since, tallies, interrupted());
            }
            return await finish(owned.id, input, since, tallies, {
              condition: last[0],
              problem: 'not_quiet',
              item: last[1],
            });
          }
        }
        if (input.consume) await consume(owned.id, tallies);
        return await finish(owned.id, input, since, tallies, undefined);
      } finally {
        for (const timer of timers) clearTimeout(timer);
        inbox.close();
      }
    } finally {
      hold.release();
    }
  }

  function interrupted(): Failure {
    return { condition: 0, problem: 'interrupted', item: undefined };
  }

  /** Marks every item counted read, as a claiming wait marks what it returns. */
  async function consume(sandboxId: string, tallies: readonly Tally[]): Promise<void> {
    const done = new Set<string>();
    for (const t of tallies) {
      for (const item of t.items) {
        if (done.has(item.id)) continue;
        done.add(item.id);
        const mark = item.stream === 'messages' ? markMessageRead : markRequestRead;
        await mark(db, bus, sandboxId, item.id, true);
      }
    }
  }

  /** The result: each condition's count and matches, and the closest misses read from the store now. */
  async function finish(
    sandboxId: string | undefined,
    input: ExpectationInput,
    since: Date,
    tallies: readonly Tally[],
    failure: Failure | undefined,
  ): Promise<ExpectationResult> {
    const { conditions } = input;
    const pools = new Map<Stream, ExpectedItem[]>();
    for (const c of conditions) {
      if (pools.has(c.stream) || sandboxId === undefined) continue;
      try {
        pools.set(c.stream, await newestOf(db, sandboxId, c.stream, CLOSEST_POOL));
      } catch (err) {
        // The database went away: the counts are still the answer.
        if (!isAppError(err) || err.code !== 'unavailable') throw err;
        pools.set(c.stream, []);
      }
    }
    const counts = tallies.map((t) => t.count);
    return {
      result: failure === undefined ? 'pass' : 'fail',
      since,
      summary: summarize(conditions, counts, failure, input),
      failure,
      conditions: conditions.map((c, i) => {
        const t = tallies[i] as Tally;
        const b = boundsOf(c);
        return {
          stream: c.stream,
          count: t.count,
          met: t.count >= b.min && (b.max === undefined || t.count <= b.max),
          matched: t.items.slice(0, MATCHED_SHOWN),
          closest: closestOf(c, pools.get(c.stream) ?? [], since),
        };
      }),
    };
  }

  return { wait: evaluate };
}
