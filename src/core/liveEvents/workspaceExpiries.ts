// Which sandboxes of a workspace will expire, for its workspace streams: read once when the first such stream
// opens, then kept by the sandbox.created/deleted events routed to it. Each is watched with the shared expiry
// timer (one per sandbox, however many waits and streams watch it); `onExpired` tells the streams.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { ExpiryWatch } from '../sandboxExpiry.ts';
import { expiringSandboxes } from '../store/repos/liveEvents.ts';
import type { Database } from '../store/schema.ts';
import type { LiveEvent } from './types.ts';

interface Watched {
  loaded: Promise<void>;
  /** By sandbox: stops its watch. */
  unwatch: Map<string, () => void>;
}

export class WorkspaceExpiries {
  private readonly workspaces = new Map<string, Watched>();
  private readonly db: Kysely<Database>;
  private readonly clock: Clock;
  private readonly expiry: ExpiryWatch;
  private readonly onExpired: (workspaceId: string, sandboxId: string) => void;

  constructor(
    db: Kysely<Database>,
    clock: Clock,
    expiry: ExpiryWatch,
    onExpired: (workspaceId: string, sandboxId: string) => void,
  ) {
    this.db = db;
    this.clock = clock;
    this.expiry = expiry;
    this.onExpired = onExpired;
  }

  /**
   * Called once a workspace stream is registered: a sandbox created after the read below reaches `routed` as
   * sandbox.created, one created before is in the read (both is harmless: a sandbox is watched once).
   */
  watch(workspaceId: string): Promise<void> {
    let watched = this.workspaces.get(workspaceId);
    if (watched === undefined) {
      const entry: Watched = { loaded: Promise.resolve(), unwatch: new Map() };
      entry.loaded = expiringSandboxes(this.db, workspaceId, this.clock.now()).then(
        (rows) => {
          for (const row of rows) this.watchSandbox(workspaceId, row.id, row.expiresAt);
        },
        (err: unknown) => {
          // The next stream of the workspace reads again.
          if (this.workspaces.get(workspaceId) === entry) this.workspaces.delete(workspaceId);
          throw err;
        },
      );
      this.workspaces.set(workspaceId, (watched = entry));
    }
    return watched.loaded;
  }

  /** The workspace's last workspace stream closed. */
  unwatch(workspaceId: string): void {
    const watched = this.workspaces.get(workspaceId);
    if (watched === undefined) return;
    this.workspaces.delete(workspaceId);
    for (const stop of watched.unwatch.values()) stop();
  }

  /** Every event the tail hands out: sandboxes created and deleted in watched workspaces. */
  routed(event: LiveEvent): void {
    const watched = this.workspaces.get(event.workspaceId);
    if (watched === undefined) return;
    if (event.type === 'sandbox.created' && event.data.expiresAt !== null) {
      this.watchSandbox(event.workspaceId, event.sandboxId, event.data.expiresAt);
    } else if (event.type === 'sandbox.deleted') {
      watched.unwatch.get(event.sandboxId)?.();
      watched.unwatch.delete(event.sandboxId);
    }
  }

  private watchSandbox(workspaceId: string, sandboxId: string, expiresAt: Date): void {
    const watched = this.workspaces.get(workspaceId);
    if (watched === undefined || watched.unwatch.has(sandboxId)) return;
    const stop = this.expiry.watch(sandboxId, expiresAt, () => {
      watched.unwatch.delete(sandboxId);
      this.onExpired(workspaceId, sandboxId);
    });
    watched.unwatch.set(sandboxId, stop);
  }
}
