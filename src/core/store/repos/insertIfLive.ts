// One INSERT for a batch of captured items (messages or requests) that stores only the rows whose sandbox
// is still live when the statement runs: admission came from memory, so the commit is where it is settled.
import { CompiledQuery, type Kysely } from 'kysely';
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
  // Written as text with numbered parameters: kysely's builder took 7% of the capture path's CPU building and
  // compiling this one statement, 16 typed cells a row. Table, column and type names are our constants.
  const params: unknown[] = [];
  const cell = (value: unknown, type: string) => {
    params.push(value);
    return `$${params.length}::${type}`;
  };
  const tuples = rows.map((row, i) => {
    const cells = columns.map(([name, type]) => cell(row[name] ?? null, type));
    if (versions !== undefined) cells.push(cell(versions[i], 'integer'));
    return `(${cells.join(', ')})`;
  });
  const names = columns.map(([name]) => `"${name}"`);
  const valueNames = versions === undefined ? names : [...names, '"version"'];
  const sameVersion = versions === undefined ? '' : 'and s.version = v.version';
  const text = `insert into "${table}" (${names.join(', ')})
    select ${names.map((n) => `v.${n}`).join(', ')}
    from (values ${tuples.join(', ')}) as v(${valueNames.join(', ')})
    where exists (
      select 1 from sandboxes s
      where s.id = v.sandbox_id ${sameVersion}
        and (s.expires_at is null or s.expires_at > v.received_at))
    returning id`;
  const res = await db.executeQuery<{ id: string }>(CompiledQuery.raw(text, params));
  return new Set(res.rows.map((r) => r.id));
}

export function isSandboxDeletedMeanwhile(err: unknown): boolean {
  return (err as { code?: string }).code === '23503';
}
