// Autovacuum's job on the embedded store, where PGlite runs postgres in single-user mode and autovacuum never
// runs; and, on both stores, statistics for a table a burst of captures has outgrown. Without ANALYZE the planner
// has no statistics (a search for a word in every message took 0.4-0.8 s at 100,000 messages instead of 10 ms);
// without VACUUM the space of swept captures is never reused, and the search indexes' pending entries pile up to
// 4 MB an index before an insert merges them (searches read them all).
//
// PGlite runs each statement synchronously on the main thread: while one runs, nothing else in the process does
// (no /healthz, no capture). So the work is cut into statements that each stay short, and the event loop gets a
// turn between any two of them (step). At 200,000 rows a run of the old kind (VACUUM (ANALYZE) of each table
// that changed) held the process for 1.3-3.15 s.
// Why it exists and when it goes: the store map, src/core/store/README.md.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

/** The tables that grow and shrink with captures; the others stay small. */
const TABLES = ['messages', 'requests', 'sandboxes'] as const;

/**
 * autovacuum's defaults: act once this many rows plus this share of the table changed. The share is of the live
 * rows now, where autovacuum takes the count at the last vacuum or analyze: a little later on a growing table.
 */
const ANALYZE_BASE = 50;
const ANALYZE_SHARE = 0.1;
const VACUUM_BASE = 50;
const VACUUM_SHARE = 0.2;
/**
 * autovacuum_vacuum_insert_*: captures only arrive, so a vacuum by dead rows alone never comes. Its share is
 * capped (VACUUM_INSERT_MAX): a vacuum of rows that only arrived reads every page they filled, about 16 µs a
 * message on a 2-core machine, so 20% of 200,000 messages would hold the store 0.6 s at once. The runs every 2 s
 * (cli/sweeps.ts) keep each batch near what arrived since the last one.
 */
const VACUUM_INSERT_BASE = 1000;
const VACUUM_INSERT_SHARE = 0.2;
const VACUUM_INSERT_MAX = 5000;

/**
 * Statistics this far off mislead the planner, so analyzeGrownTables runs often (cli/sweeps.ts) and analyzes a table
 * once these rows plus this share of it changed (arrived, or were removed) since its statistics: a table that at
 * least doubled, from 10,000 rows up, which a burst of captures does within seconds while the regular check
 * waits for the sweep interval. Without statistics the planner took a sandbox for 85 rows, and at 20,000
 * messages a search for a word in none of them read all 20,000 (75 ms) instead of the trigram index (4 ms).
 * On PostgreSQL ANALYZE samples 30,000 rows (default_statistics_target 100); the embedded store samples 3,000
 * (pgliteStart.ts), about 80 ms for messages at 200,000 rows on a 2-core machine, where 30,000 took 1-3.4 s.
 */
const GROWN_BASE = 5000;
const GROWN_SHARE = 0.5;

export interface MaintenanceResult {
  analyzed: string[];
  vacuumed: string[];
}

/** One statement of a run, reported when it ended: the event loop had no turn for its `ms`. */
export interface MaintenanceStep {
  /** `vacuum` (heap and indexes: rows were deleted), `vacuum heap` (rows only arrived), `clean pending` (a GIN
   * index's pending entries merged), `analyze`, or `statistics` (reading the tables' counts). */
  action: 'statistics' | 'vacuum' | 'vacuum heap' | 'clean pending' | 'analyze';
  table?: string;
  index?: string;
  ms: number;
  /** The process's CPU time over the step: its own cost, where `ms` also counts waiting for a busy machine's cores. */
  cpuMs: number;
}

export interface MaintenanceOptions {
  /** Called after each step; cli/sweeps.ts logs the longest. */
  onStep?: (step: MaintenanceStep) => void;
}

/** Runs one statement as a step of a run: reports it, then lets the event loop run before the next one. */
async function step<T>(
  options: MaintenanceOptions,
  what: Omit<MaintenanceStep, 'ms' | 'cpuMs'>,
  run: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(cpu);
  options.onStep?.({ ...what, ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 });
  // A resolved query continues in a microtask; without a macrotask between statements, a whole run would be
  // one turn of the event loop (I/O, timers and /healthz wait for its end).
  await nextTurn();
  return result;
}

interface TableActivity {
  table: string;
  live: number;
  dead: number;
  insertedSinceVacuum: number;
  modifiedSinceAnalyze: number;
  /** The table's GIN indexes (search), whose pending entries a vacuum of the heap alone leaves in place. */
  ginIndexes: Array<{ name: string; oid: number }>;
}

/**
 * VACUUM and ANALYZE of the tables that changed enough since they last had them (rows dead, rows inserted, rows
 * changed), by autovacuum's default thresholds, one statement at a time with the event loop running between
 * them. Every statement is bounded by what changed, except a vacuum after deletions, which scans every index of
 * the table once (that is what frees them): a table with rows only arriving gets a vacuum of its heap alone (the
 * pages filled since the last one) and, for each search index, a merge of its pending entries; ANALYZE reads a
 * sample of fixed size. On PostgreSQL autovacuum does all this in the background.
 */
export async function maintainTables(
  db: Kysely<Database>,
  options: MaintenanceOptions = {},
): Promise<MaintenanceResult> {
  const activity = await step(options, { action: 'statistics' }, async () => {
    // Counts of this process's recent changes reach the statistics at most once a second otherwise.
    await sql`select pg_stat_force_next_flush()`.execute(db);
    return sql<TableActivity>`
      select s.relname as "table", s.n_live_tup::float8 as live, s.n_dead_tup::float8 as dead,
        s.n_ins_since_vacuum::float8 as "insertedSinceVacuum",
        s.n_mod_since_analyze::float8 as "modifiedSinceAnalyze",
        coalesce((select jsonb_agg(jsonb_build_object('name', c.relname, 'oid', c.oid::int8) order by c.relname)
          from pg_index i join pg_class c on c.oid = i.indexrelid join pg_am a on a.oid = c.relam
          where i.indrelid = s.relid and a.amname = 'gin'), '[]'::jsonb) as "ginIndexes"
      from pg_stat_user_tables s
      where s.schemaname = current_schema() and s.relname in (${sql.join([...TABLES])})
      order by s.relname`.execute(db);
  });
  const result: MaintenanceResult = { analyzed: [], vacuumed: [] };
  for (const t of activity.rows) {
    const deleted = t.dead > VACUUM_BASE + VACUUM_SHARE * t.live;
    const arrived =
      t.insertedSinceVacuum > Math.min(VACUUM_INSERT_MAX, VACUUM_INSERT_BASE + VACUUM_INSERT_SHARE * t.live);
    const analyze = t.modifiedSinceAnalyze > ANALYZE_BASE + ANALYZE_SHARE * t.live;
    const table = t.table;
    if (deleted) {
      // Dead rows leave index entries that only a scan of each whole index removes: the one step whose time
      // grows with the table (its indexes' size) rather than with what changed. The GIN indexes' pending
      // entries are merged on the way.
      await step(options, { action: 'vacuum', table }, () => sql`vacuum ${sql.table(table)}`.execute(db));
    } else if (arrived) {
      // The heap's new pages only: INDEX_CLEANUP off skips the scan of every GIN index (0.2-0.5 s at 200,000
      // rows, with nothing to remove) that a plain vacuum ends with.
      await step(options, { action: 'vacuum heap', table }, () =>
        sql`vacuum (index_cleanup off) ${sql.table(table)}`.execute(db),
      );
    }
    if (deleted || arrived) result.vacuumed.push(table);
    // Pending entries of the search indexes, merged while there are few: every search reads them all, and the
    // insert that fills the list (gin_pending_list_limit, 4 MB) merges it while the process waits, 1.6 s at once
    // for a list the old once-a-minute vacuum had left to grow. Cheap when empty.
    if (!deleted && t.insertedSinceVacuum > 0) {
      for (const index of t.ginIndexes) {
        await step(options, { action: 'clean pending', table, index: index.name }, () =>
          sql`select gin_clean_pending_list(${index.oid}::oid::regclass)`.execute(db),
        );
      }
    }
    if (analyze) {
      await step(options, { action: 'analyze', table }, () => sql`analyze ${sql.table(table)}`.execute(db));
      result.analyzed.push(table);
    }
  }
  return result;
}

/**
 * ANALYZE of the tables whose statistics are far off (GROWN_SHARE), on either store: PostgreSQL's autovacuum
 * looks at a table once a minute at most (autovacuum_naptime), and a burst outgrows its statistics sooner.
 * `embedded` flushes this process's counts first; on PostgreSQL each connection's counts reach the statistics
 * when it goes idle, or up to 10 s later right after an earlier flush (and pg_stat_force_next_flush is new in
 * 15). Left alone, so that no check runs ANALYZE in vain every few seconds: a table this role does not own
 * (ANALYZE would warn and skip it), and one that a vacuum, an analyze or DDL holds (autovacuum, another process;
 * skip_locked covers the race). Returns only the tables whose statistics were renewed. One table per step, as
 * maintainTables does.
 */
export async function analyzeGrownTables(
  db: Kysely<Database>,
  embedded: boolean,
  options: MaintenanceOptions = {},
): Promise<MaintenanceResult> {
  const activity = await step(options, { action: 'statistics' }, async () => {
    if (embedded) await sql`select pg_stat_force_next_flush()`.execute(db);
    return sql<Pick<TableActivity, 'table' | 'live' | 'modifiedSinceAnalyze'>>`
      select s.relname as "table", s.n_live_tup::float8 as live,
        s.n_mod_since_analyze::float8 as "modifiedSinceAnalyze"
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.schemaname = current_schema() and s.relname in (${sql.join([...TABLES])})
        and pg_has_role(c.relowner, 'USAGE')
        and not exists (select 1 from pg_locks l where l.relation = s.relid and l.granted
          and l.mode in ('ShareUpdateExclusiveLock', 'ShareRowExclusiveLock', 'ExclusiveLock',
            'AccessExclusiveLock'))`.execute(db);
  });
  const result: MaintenanceResult = { analyzed: [], vacuumed: [] };
  for (const t of activity.rows) {
    if (t.modifiedSinceAnalyze <= GROWN_BASE + GROWN_SHARE * t.live) continue;
    await step(options, { action: 'analyze', table: t.table }, () =>
      sql`analyze (skip_locked) ${sql.table(t.table)}`.execute(db),
    );
    // Skipped after all (the lock was taken meanwhile): the counts are still there.
    const after = await sql<{ modified: number }>`select n_mod_since_analyze::float8 as modified
      from pg_stat_user_tables where schemaname = current_schema() and relname = ${t.table}`.execute(db);
    if ((after.rows[0]?.modified ?? 0) < t.modifiedSinceAnalyze) result.analyzed.push(t.table);
  }
  return result;
}
