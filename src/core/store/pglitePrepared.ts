// PGlite with named prepared statements: a marked statement is parsed and planned once, then each run is one call.
import { parse, protocol, type PGlite, type QueryOptions, type Results } from '@electric-sql/pglite';
import { runPreparedMessages, type WireValue } from './bindMessage.ts';
import { assertInternals, runExclusive } from './pgliteInternals.ts';
import { preparedNameOf } from './preparedMarker.ts';

const { serialize } = protocol;

/**
 * PGlite's `query` makes six calls into postgres per statement (parse, describe, bind, describe, execute, sync)
 * and parses and plans the text every time. For a statement marked by `preparedName` (the capture inserts,
 * thousands a second with a few texts) this parses it once and learns its parameter types, then sends bind,
 * describe, execute and sync as one message, encoded by bindMessage.ts: about half the time of a one-row insert,
 * a third of a 12-row one.
 * Parameters go through PGlite's own serializers for those types and results through its own parser, so a
 * statement returns what `query` would. Unmarked statements, and everything in a transaction (PGlite's
 * transaction objects), go through PGlite as before.
 */
export function withPreparedStatements(pglite: PGlite): PGlite {
  assertInternals(pglite);
  /** Parameter type OIDs of each statement prepared so far, by name. */
  const prepared = new Map<string, number[]>();

  /** Parses and describes the statement once; its parameter types thereafter. */
  async function typesOf(name: string, text: string): Promise<number[]> {
    const known = prepared.get(name);
    if (known !== undefined) return known;
    const { messages } = await pglite.execProtocol(
      Buffer.concat([
        serialize.parse({ name, text, types: [] }),
        serialize.describe({ type: 'S', name }),
        serialize.sync(),
      ]),
      { syncToFs: false },
    );
    const types = parse.parseDescribeStatementResults(messages);
    prepared.set(name, types);
    return types;
  }

  async function run(
    name: string,
    text: string,
    params: unknown[],
    options?: QueryOptions,
  ): Promise<Results> {
    return runExclusive(pglite, async () => {
      const types = await typesOf(name, text);
      const values = params.map((value, i): WireValue => {
        if (value === null || value === undefined) return null;
        const type = types[i] ?? 0;
        const serializer = options?.serializers?.[type] ?? pglite.serializers[type];
        const wire: unknown = serializer === undefined ? String(value) : serializer(value);
        return typeof wire === 'string' || wire instanceof Uint8Array ? wire : String(wire);
      });
      const { messages } = await pglite.execProtocol(runPreparedMessages(name, values), {
        syncToFs: false,
      });
      await pglite.syncToFs();
      const [results] = parse.parseResults(messages, pglite.parsers, options);
      if (results === undefined) throw new Error(`prepared statement ${name} returned no result`);
      return results;
    });
  }

  const query = (text: string, params?: unknown[], options?: QueryOptions) => {
    const name = preparedNameOf(text);
    if (name === undefined || options?.blob !== undefined || options?.paramTypes !== undefined)
      return pglite.query(text, params, options);
    return run(name, text, params ?? [], options);
  };

  return new Proxy(pglite, {
    get(target, prop) {
      if (prop === 'query') return query;
      const value: unknown = Reflect.get(target, prop, target);
      // PGlite's methods use private fields: they must run on the instance itself, not on this proxy.
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
