// Autovacuum's job on the embedded store, where PGlite runs postgres in single-user mode and autovacuum never
// runs; and, on both stores, statistics for a table a burst of captures has outgrown. Without ANALYZE the planner
// has no statistics (a search for a word in every message took 0.4-0.8 s at 100,000 messages instead of 10 ms);
// without VACUUM the space of swept captures is never reused, and the search indexes' pending entries pile up to
// 4 MB an index before an insert merges them (searches read them all).
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
 * autovacuum_vacuum_insert_*: captures only arrive, so a vacuum by dead rows alone never comes. Inserts into a GIN
 * index (the search indexes) go to its pending list, which every search through the index reads whole; only
 * a vacuum merges it before it reaches gin_pending_list_limit (4 MB), and then the insert that fills it waits
 * for the merge. At 100,000 messages a search for one message took 4.9 ms before a vacuum, 1.2-1.6 ms after.
 */
const VACUUM_INSERT_BASE = 1000;
const VACUUM_INSERT_SHARE = 0.2;

/**
 * Statistics this far off mislead the planner, so analyzeGrownTables runs often (cli/sweeps.ts) and analyzes a table
 * once these rows plus this share of it changed (arrived, or were removed) since its statistics: a table that at
 * least doubled, from 10,000 rows up, which a burst of captures does within seconds while the regular check
 * waits for the sweep interval. Without statistics the planner took a sandbox for 85 rows, and at 20,000
 * messages a search for a word in none of them read all 20,000 (75 ms) instead of the trigram index (4 ms).
 * ANALYZE costs about 22 µs a row up to its sample of 30,000 rows (the bench's messages on a 2-core machine:
 * 10,000 rows 0.2 s, 100,000 rows 0.9 s) and blocks the embedded store; growing, it runs 6 more times on a
 * table's way to 1,000,000 rows (at 10,000, 30,000, 70,000, ... 630,000), fewer where the regular runs analyzed
 * it in between. Below 10,000 rows a plan misled costs less than those early runs would.
 */
const GROWN_BASE = 5000;
const GROWN_SHARE = 0.5;

export interface MaintenanceResult {
  analyzed: string[];
  vacuumed: string[];
}

interface TableActivity {
  table: string;
  live: number;
  dead: number;
  insertedSinceVacuum: number;
  modifiedSinceAnalyze: number;
}

/**
 * Runs VACUUM and ANALYZE on the tables that changed enough since they last had them (rows dead, rows
 * inserted, rows changed), by autovacuum's default thresholds. Each blocks the embedded store while it runs
 * (ANALYZE of 100,000 messages: 1-4 s on this machine; VACUUM of 100,000 new ones: about 0.3 s), which is why
 * it waits for a share of the table to change rather than running on a clock.
 */
export async function maintainTables(db: Kysely<Database>): Promise<MaintenanceResult> {
  // Counts of this process's recent changes reach the statistics at most once a second otherwise.
  await sql`select pg_stat_force_next_flush()`.execute(db);
  const activity = await sql<TableActivity>`
    select relname as "table", n_live_tup::float8 as live, n_dead_tup::float8 as dead,
      n_ins_since_vacuum::float8 as "insertedSinceVacuum", n_mod_since_analyze::float8 as "modifiedSinceAnalyze"
    from pg_stat_user_tables
    where schemaname = current_schema() and relname in (${sql.join([...TABLES])})`.execute(db);
  const result: MaintenanceResult = { analyzed: [], vacuumed: [] };
  for (const t of activity.rows) {
    const vacuum =
      t.dead > VACUUM_BASE + VACUUM_SHARE * t.live ||
      t.insertedSinceVacuum > VACUUM_INSERT_BASE + VACUUM_INSERT_SHARE * t.live;
    const analyze = t.modifiedSinceAnalyze > ANALYZE_BASE + ANALYZE_SHARE * t.live;
    if (vacuum) await sql`vacuum ${analyze ? sql`(analyze) ` : sql``}${sql.table(t.table)}`.execute(db);
    else if (analyze) await sql`analyze ${sql.table(t.table)}`.execute(db);
    if (vacuum) result.vacuumed.push(t.table);
    if (analyze) result.analyzed.push(t.table);
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
 * skip_locked covers the race). Returns only the tables whose statistics were renewed.
 */
export async function analyzeGrownTables(
  db: Kysely<Database>,
  embedded: boolean,
): Promise<MaintenanceResult> {
  if (embedded) await sql`select pg_stat_force_next_flush()`.execute(db);
  const activity = await sql<Pick<TableActivity, 'table' | 'live' | 'modifiedSinceAnalyze'>>`
    select s.relname as "table", s.n_live_tup::float8 as live,
      s.n_mod_since_analyze::float8 as "modifiedSinceAnalyze"
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid
    where s.schemaname = current_schema() and s.relname in (${sql.join([...TABLES])})
      and pg_has_role(c.relowner, 'USAGE')
      and not exists (select 1 from pg_locks l where l.relation = s.relid and l.granted
        and l.mode in ('ShareUpdateExclusiveLock', 'ShareRowExclusiveLock', 'ExclusiveLock',
          'AccessExclusiveLock'))`.execute(db);
  const result: MaintenanceResult = { analyzed: [], vacuumed: [] };
  for (const t of activity.rows) {
    if (t.modifiedSinceAnalyze <= GROWN_BASE + GROWN_SHARE * t.live) continue;
    await sql`analyze (skip_locked) ${sql.table(t.table)}`.execute(db);
    // Skipped after all (the lock was taken meanwhile): the counts are still there.
    const after = await sql<{ modified: number }>`select n_mod_since_analyze::float8 as modified
      from pg_stat_user_tables where schemaname = current_schema() and relname = ${t.table}`.execute(db);
    if ((after.rows[0]?.modified ?? 0) < t.modifiedSinceAnalyze) result.analyzed.push(t.table);
  }
  return result;
}
