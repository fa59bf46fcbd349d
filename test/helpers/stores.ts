// Runs a suite on every store: a fresh in-memory PGlite always, and PostgreSQL (a fresh schema per suite)
// when TEST_DATABASE_URL is set, as .ci/run does.
import { randomBytes } from 'node:crypto';
import { after, before, describe } from 'node:test';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/core/store/openStore.ts';

export interface StoreBackend {
  name: 'pglite' | 'postgres';
  open(): Promise<Store>;
}

const pgUrl = process.env.TEST_DATABASE_URL;

export function storeBackends(): StoreBackend[] {
  const backends: StoreBackend[] = [
    { name: 'pglite', open: () => openStore({ kind: 'pglite', dataDir: undefined }) },
  ];
  if (pgUrl !== undefined && pgUrl !== '') {
    backends.push({
      name: 'postgres',
      async open() {
        const schema = `test_${randomBytes(6).toString('hex')}`;
        const store = await openStore({ kind: 'postgres', url: pgUrl, schema, poolSize: 4 });
        let closing: Promise<void> | undefined;
        return {
          ...store,
          close: () =>
            (closing ??= (async () => {
              await sql`drop schema ${sql.id(schema)} cascade`.execute(store.db);
              await store.close();
            })()),
        };
      },
    });
  }
  return backends;
}

/** `describe` once per store; `getStore()` is valid inside tests (opened in `before`, closed in `after`). */
export function describeEachStore(
  title: string,
  fn: (getStore: () => Store, backend: StoreBackend) => void,
): void {
  for (const backend of storeBackends()) {
    describe(`${title} [${backend.name}]`, () => {
      let store: Store | undefined;
      before(async () => {
        store = await backend.open();
      });
      after(async () => {
        await store?.close();
      });
      fn(() => {
        if (store === undefined) throw new Error('store not open yet');
        return store;
      }, backend);
    });
  }
}
