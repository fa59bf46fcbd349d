// The one access rule for a sandbox's streams: it exists, is live, and belongs to the caller's workspace;
// anything else is the same 404 (one that says "expired" while the expired row is still there).
import type { Kysely } from 'kysely';
import type { Clock } from './clock.ts';
import { notFound } from './errors.ts';
import { sandboxExpired } from './sandboxExpiry.ts';
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
  const expiredAt = await findExpiredSandbox(db, workspaceId, sandboxId, now);
  throw expiredAt === undefined ? notFound('The sandbox') : sandboxExpired(expiredAt);
}

export async function ownedSandboxId(
  db: Kysely<Database>,
  clock: Clock,
  workspaceId: string,
  sandboxId: string,
): Promise<string> {
  return (await ownedSandbox(db, clock, workspaceId, sandboxId)).id;
}
