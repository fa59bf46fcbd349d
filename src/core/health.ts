// What /readyz asks of core: whether the store answers a query now (a probe must never hang: 2 s at most).
import { sql, type Kysely } from 'kysely';
import type { Database } from './store/schema.ts';

const STORE_PROBE_MS = 2_000;

export type StoreProbe = { ok: true } | { ok: false; reason: string };

export async function probeStore(db: Kysely<Database>): Promise<StoreProbe> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<StoreProbe>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, reason: `the store did not answer within ${STORE_PROBE_MS / 1000} s` }),
      STORE_PROBE_MS,
    );
  });
  const query = sql`select 1`
    .execute(db)
    .then((): StoreProbe => ({ ok: true }))
    .catch((err: unknown): StoreProbe => {
      const reason = (err as { reason?: string }).reason ?? (err as Error).message;
      return { ok: false, reason: `the store is unreachable: ${reason}` };
    });
  try {
    return await Promise.race([query, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
