// The pg pool kysely's PostgreSQL dialect uses, with two changes: a statement whose text starts with a
// `preparedName` marker runs as a named prepared statement, so each connection parses and plans it once (the
// capture inserts run thousands of times a second with a few texts); and a lost or refused connection
// becomes core's `unavailable` error, and never an unhandled 'error' event that would end the process.
import type pg from 'pg';
import type { PostgresClientConstructor, PostgresPool, PostgresPoolClient } from 'kysely';
import { preparedNameOf } from './preparedMarker.ts';
import { asStoreUnavailable } from './unavailable.ts';

const rethrow = (err: unknown): never => {
  throw asStoreUnavailable(err);
};

export function preparingPool(pool: pg.Pool, onConnectionError: (err: Error) => void): PostgresPool {
  // An idle client whose server went away (restart, failover, killed backend) is reported here, then dropped.
  pool.on('error', onConnectionError);
  return {
    // kysely cancels queries through a client of this class, as it would with the pool itself; @types/pg does
    // not declare the pool's Client property.
    Client: (pool as unknown as { Client: PostgresClientConstructor }).Client,
    options: pool.options,
    end: () => pool.end(),
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect().catch(rethrow);
      // While checked out, the pool does not listen: the running query fails with the error, and the
      // pool drops the broken client when it is released.
      let broken: Error | undefined;
      const onError = (err: Error) => (broken ??= err);
      client.on('error', onError);
      const query = (textOrCursor: unknown, values?: unknown[]) => {
        // A cursor (kysely's streaming) is not a promise; its reads fail on their own.
        if (typeof textOrCursor !== 'string') return client.query(textOrCursor as pg.QueryConfig);
        const name = preparedNameOf(textOrCursor);
        const running =
          name === undefined
            ? client.query(textOrCursor, values)
            : client.query({ name, text: textOrCursor, values: values ?? [] });
        return running.catch(rethrow);
      };
      return {
        // kysely: PostgresPoolClient['query'] is an overload set one wrapper function cannot be declared as.
        query: query as unknown as PostgresPoolClient['query'],
        release: () => {
          client.off('error', onError);
          client.release(broken);
        },
      };
    },
  };
}
