// A captured message or request keeps the W3C `traceparent` it arrived with (issue 38), so a wait that returns
// it can link the sender's trace. Validated before it is stored; null when absent or invalid, and on older rows.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // 55 characters at most: a short text column is stored inline, and adding a nullable column rewrites nothing.
  for (const table of ['messages', 'requests']) {
    await db.schema.alterTable(table).addColumn('traceparent', 'text').execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['messages', 'requests']) {
    await db.schema.alterTable(table).dropColumn('traceparent').execute();
  }
}
