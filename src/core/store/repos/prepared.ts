// Runs a statement whose best plan does not depend on its values (a lookup by key, the newest page of a
// sandbox's stream) as a named prepared statement, on both stores.
import { createHash } from 'node:crypto';
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { preparedName } from '../preparedMarker.ts';
import type { Database } from '../schema.ts';

/** The last text run under each name, and that text marked: one shape per call site. */
const marked = new Map<string, { text: string; sql: string }>();

/**
 * Nearly every API call authenticates and looks up its sandbox. Parsed and planned each time, one of these
 * lookups cost 320-415 µs on the embedded store; prepared, 74-84 µs. Only statements whose best plan is the same
 * for any values belong here: postgres keeps a generic plan once it finds it no worse than planning anew, which
 * is right for an index lookup by key or a sandbox's newest rows, and could be wrong for a search whose best
 * plan depends on its pattern.
 * The name carries a hash of the text, so a changed query can never run under an old statement's name.
 */
export async function preparedRows<O>(
  db: Pick<Kysely<Database>, 'executeQuery'>,
  name: string,
  query: Compilable<O>,
): Promise<O[]> {
  const compiled = query.compile();
  let known = marked.get(name);
  // Comparing with the last text is cheaper than hashing a new string of a few hundred characters each call.
  if (known?.text !== compiled.sql) {
    const hash = createHash('sha1').update(compiled.sql).digest('hex').slice(0, 12);
    known = { text: compiled.sql, sql: preparedName(`${name}_${hash}`) + compiled.sql };
    marked.set(name, known);
  }
  const result = await db.executeQuery<O>({ ...compiled, sql: known.sql } as CompiledQuery<O>);
  return result.rows;
}

/** The first row of `preparedRows`: for a lookup by key. */
export async function preparedLookup<O>(
  db: Pick<Kysely<Database>, 'executeQuery'>,
  name: string,
  query: Compilable<O>,
): Promise<O | undefined> {
  return (await preparedRows(db, name, query))[0];
}
