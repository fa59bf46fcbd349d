// SQL for provider-API keys: the live sandbox whose smtpPassword digest matches the presented key's
// (index of migration 022). The caller still compares the passwords themselves in constant time.
import { sql, type Kysely } from 'kysely';
import type { Database, SandboxRow } from '../schema.ts';

export async function findLiveSandboxByPasswordDigest(
  db: Kysely<Database>,
  digest: Uint8Array,
  now: Date,
): Promise<Pick<SandboxRow, 'id' | 'workspace_id' | 'smtp_password'> | undefined> {
  return db
    .selectFrom('sandboxes')
    .select(['id', 'workspace_id', 'smtp_password'])
    .where(sql<Uint8Array>`sha256(decode(smtp_password, 'escape'))`, '=', digest)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .limit(1)
    .executeTakeFirst();
}
