// The one access rule for a sandbox's streams: it exists, is live, and belongs to the caller's workspace;
// anything else is the same 404.
import type { Kysely } from 'kysely';
import type { Clock } from './clock.ts';
import { notFound } from './errors.ts';
import { findSandbox } from './store/repos/sandboxes.ts';
import type { Database } from './store/schema.ts';

export async function ownedSandboxId(
  db: Kysely<Database>,
  clock: Clock,
  workspaceId: string,
  sandboxId: string,
): Promise<string> {
  const sandbox = await findSandbox(db, workspaceId, sandboxId, clock.now());
  if (sandbox === undefined) throw notFound('The sandbox');
  return sandbox.id;
}
