// Provider-API capture (issue 37): an HTTP send presents only the sandbox's smtpPassword as its API key, so a
// sandbox is looked up by password. The index is on a digest of it, so the lookup's timing depends on the digest
// of the presented key, never on how much of a real password it shares (repos/providerKeys.ts).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // decode(…, 'escape') is the immutable text-to-bytes step an index needs; passwords are base62 (no backslash).
  await sql`create index sandboxes_password_digest on sandboxes (sha256(decode(smtp_password, 'escape')))`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('sandboxes_password_digest').execute();
}
