// One INSERT for a batch of captured items (messages or requests) that stores only the rows whose sandbox
// is still live when the statement runs: admission came from memory, so the commit is where it is settled.
// Why it exists and when it goes: the store map, src/core/store/README.md.
import { CompiledQuery, type Kysely } from 'kysely';
import { preparedName } from '../preparedMarker.ts';
import type { Database } from '../schema.ts';

/** A column of the target table with its PostgreSQL type (the VALUES list is typed by casts). */
export type TypedColumn<R> = readonly [keyof R & string, string];

export interface LiveRow {
  id: string;
  sandbox_id: string;
  received_at: Date;
}

/**
 * Rows per statement are padded up to the next power of two, so that each table has a handful of statement
 * texts, each prepared once per connection (parsing and planning a new text for every batch was a fifth of
 * PostgreSQL's CPU per capture, and most of PGlite's fixed cost per statement). Padding rows are all nulls; a
 * null sandbox id matches no sandbox, so they are never stored.
 */
function statementSize(n: number): number {
  return 2 ** Math.ceil(Math.log2(n));
}

/** Prepared texts by table, padded size and whether rows carry the sandbox version: at most a few dozen. */
const preparedTexts = new Map<string, string>();

function statementText(
  table: 'messages' | 'requests',
  columns: ReadonlyArray<readonly [string, string]>,
  size: number,
  withVersion: boolean,
): string {
  // Each table is only ever written with its one column list (a module constant), so the key names the text.
  const key = `${table}_${size}${withVersion ? '_v' : ''}`;
  const cached = preparedTexts.get(key);
  if (cached !== undefined) return cached;
  const types = withVersion
    ? [...columns.map(([, type]) => type), 'integer']
    : columns.map(([, type]) => type);
  let n = 0;
  const tuples = Array.from(
    { length: size },
    () => `(${types.map((type) => `$${++n}::${type}`).join(', ')})`,
  );
  const names = columns.map(([name]) => `"${name}"`);
  const valueNames = withVersion ? [...names, '"version"'] : names;
  const sameVersion = withVersion ? 'and s.version = v.version' : '';
  const text = `${preparedName(`insert_${key}`)}insert into "${table}" (${names.join(', ')})
    select ${names.map((name) => `v.${name}`).join(', ')}
    from (values ${tuples.join(', ')}) as v(${valueNames.join(', ')})
    where exists (
      select 1 from sandboxes s
      where s.id = v.sandbox_id ${sameVersion}
        and (s.expires_at is null or s.expires_at > v.received_at))
    returning id`;
  preparedTexts.set(key, text);
  return text;
}

export interface InsertOptions {
  /** The sandbox version each row was admitted at; a row whose sandbox changed since is not stored. */
  versions?: number[];
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
  { versions }: InsertOptions = {},
): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  // Written as text with numbered parameters: kysely's builder took 7% of the capture path's CPU building and
  // compiling this one statement, 16 typed cells a row. Table, column and type names are our constants.
  const size = statementSize(rows.length);
  const text = statementText(table, columns, size, versions !== undefined);
  const params: unknown[] = [];
  rows.forEach((row, i) => {
    for (const [name] of columns) params.push(row[name] ?? null);
    if (versions !== undefined) params.push(versions[i]);
  });
  const perRow = columns.length + (versions === undefined ? 0 : 1);
  for (let i = params.length; i < size * perRow; i++) params.push(null);
  const res = await db.executeQuery<{ id: string }>(CompiledQuery.raw(text, params));
  return new Set(res.rows.map((r) => r.id));
}

export function isSandboxDeletedMeanwhile(err: unknown): boolean {
  return (err as { code?: string }).code === '23503';
}
