// The pg pool kysely's PostgreSQL dialect uses, with one change: a statement whose text starts with a
// `preparedName` marker runs as a named prepared statement, so each connection parses and plans it once.
// The capture inserts are run thousands of times a second with a few texts.
import type pg from 'pg';
import type { PostgresClientConstructor, PostgresPool, PostgresPoolClient } from 'kysely';

const MARKER = /^\/\* prepared ([a-z0-9_]+) \*\/ /;

/**
 * The marker to put at the start of a statement's text. Each name must always go with the same text (the
 * pg client refuses a name it prepared for another text on that connection). PGlite ignores it as a comment.
 */
export function preparedName(name: string): string {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`invalid prepared statement name: ${name}`);
  return `/* prepared sandtrap_${name} */ `;
}

export function preparingPool(pool: pg.Pool): PostgresPool {
  return {
    // kysely cancels queries through a client of this class, as it would with the pool itself.
    Client: (pool as unknown as { Client: PostgresClientConstructor }).Client,
    options: pool.options,
    end: () => pool.end(),
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      const query = (textOrCursor: unknown, values?: unknown[]) => {
        const name = typeof textOrCursor === 'string' ? MARKER.exec(textOrCursor)?.[1] : undefined;
        if (name === undefined) return client.query(textOrCursor as string, values);
        return client.query({ name, text: textOrCursor as string, values: values ?? [] });
      };
      return { query: query as unknown as PostgresPoolClient['query'], release: () => client.release() };
    },
  };
}
