// The one access rule for a sandbox's streams: it exists, is live, and belongs to the caller's workspace;
// anything else is the same 404 (one that says "expired" or "deleted" while the row or its tombstone is there).
import type { Kysely } from 'kysely';
import type { Clock } from './clock.ts';
import { notFound } from './errors.ts';
import { sandboxDeleted, sandboxExpired } from './sandboxExpiry.ts';
import { findTombstone } from './store/repos/tombstones.ts';
import { findExpiredSandbox, findSandbox } from './store/repos/sandboxes.ts';
import type { Database } from './store/schema.ts';

export interface OwnedSandbox {
  id: string;
  /** null: permanent. */
  expiresAt: Date | null;
}

export async function ownedSandbox(
  db: Kysely<Database>,
  clock: Clock,
  workspaceId: string,
  sandboxId: string,
): Promise<OwnedSandbox> {
  const now = clock.now();
  const sandbox = await findSandbox(db, workspaceId, sandboxId, now);
  if (sandbox !== undefined) return { id: sandbox.id, expiresAt: sandbox.expires_at };
  throw await goneSandbox(db, workspaceId, sandboxId, now);
}

/**
 * The 404 for a sandbox that is not live: "expired at" while its row or its tombstone (kept a day, migration
 * 021) says so, "deleted at" for a deletion within the day, else plain not found.
 */
export async function goneSandbox(
  db: Kysely<Database>,
  workspaceId: string,
  sandboxId: string,
  now: Date,
): Promise<Error> {
  const expiredAt = await findExpiredSandbox(db, workspaceId, sandboxId, now);
  if (expiredAt !== undefined) return sandboxExpired(expiredAt);
  const tombstone = await findTombstone(db, workspaceId, sandboxId);
  if (tombstone === undefined) return notFound('The sandbox');
  return tombstone.reason === 'expired'
    ? sandboxExpired(tombstone.endedAt)
    : sandboxDeleted(tombstone.endedAt);
}

export async function ownedSandboxId(
  db: Kysely<Database>,
  clock: Clock,
  workspaceId: string,
  sandboxId: string,
): Promise<string> {
  return (await ownedSandbox(db, clock, workspaceId, sandboxId)).id;
}
