// The private members of PGlite sandtrap calls: its two query locks and its readiness wait, so a statement sent
// below `query` (pglitePrepared.ts) queues like `query` does. The package is pinned exactly, and
// test/store/pgliteInternals.test.ts fails, naming the version, when an upgrade changes them.
import type { PGlite } from '@electric-sql/pglite';

type Internals = Pick<PGlite, '_checkReady' | '_runExclusiveQuery' | '_runExclusiveTransaction'>;

const NAMES = ['_checkReady', '_runExclusiveQuery', '_runExclusiveTransaction'] as const;

/** The names PGlite no longer has as methods (none while the pinned version is installed). */
export function missingInternals(pglite: PGlite): string[] {
  return NAMES.filter((name) => typeof (pglite as Internals)[name] !== 'function');
}

/** Refuses, at start, a PGlite without them rather than failing on the first prepared statement. */
export function assertInternals(pglite: PGlite): void {
  const missing = missingInternals(pglite);
  if (missing.length > 0) {
    throw new Error(
      `@electric-sql/pglite no longer has ${missing.join(', ')} (see the exact pin in package.json)`,
    );
  }
}

/**
 * Runs `fn` once the instance is ready, holding the same locks as `query`: never inside another caller's open
 * transaction, never beside another query.
 */
export async function runExclusive<T>(pglite: PGlite, fn: () => Promise<T>): Promise<T> {
  await pglite._checkReady();
  return pglite._runExclusiveTransaction(() => pglite._runExclusiveQuery(fn));
}
