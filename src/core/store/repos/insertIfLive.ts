// One INSERT for a batch of captured items (messages or requests) that stores only the rows whose sandbox
// is still live when the statement runs: admission came from memory, so the commit is where it is settled.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../schema.ts';

/** A column of the target table with its PostgreSQL type (the VALUES list is typed by casts). */
export type TypedColumn<R> = readonly [keyof R & string, string];

export interface LiveRow {
  id: string;
  sandbox_id: string;
  received_at: Date;
}

/**
 * Inserts `rows` into `table` where the sandbox exists, has not expired at the row's `received_at`, and,
 * when `versions` is given, is still at `versions[i]` for row i. Returns the ids stored.
 * A sandbox deleted by a transaction that commits while this statement runs fails it with 23503.
 */
export async function insertIfSandboxLive<R extends LiveRow>(
  db: Kysely<Database>,
  table: 'messages' | 'requests',
  columns: ReadonlyArray<TypedColumn<R>>,
  rows: R[],
  versions?: number[],
): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const names = columns.map(([name]) => name);
  const values = rows.map((row, i) => {
    const cells: RawBuilder<unknown>[] = columns.map(
      ([name, type]) => sql`${row[name] ?? null}::${sql.raw(type)}`,
    );
    if (versions !== undefined) cells.push(sql`${versions[i]}::integer`);
    return sql`(${sql.join(cells)})`;
  });
  const valueNames = versions === undefined ? names : [...names, 'version'];
  const sameVersion = versions === undefined ? sql`` : sql`and s.version = v.version`;
  const res = await sql<{ id: string }>`
    insert into ${sql.table(table)} (${sql.join(names.map((n) => sql.ref(n)))})
    select ${sql.join(names.map((n) => sql.ref(`v.${n}`)))}
    from (values ${sql.join(values)}) as v(${sql.join(valueNames.map((n) => sql.ref(n)))})
    where exists (
      select 1 from sandboxes s
      where s.id = v.sandbox_id ${sameVersion}
        and (s.expires_at is null or s.expires_at > v.received_at))
    returning id`.execute(db);
  return new Set(res.rows.map((r) => r.id));
}

export function isSandboxDeletedMeanwhile(err: unknown): boolean {
  return (err as { code?: string }).code === '23503';
}
