// Live sandboxes by id, kept in memory so the ingest paths need no store read per message or request.
// Safe because every write re-checks liveness in the statement that commits it; a stale entry can only let
// a sender get as far as the commit. Deletions announced on the bus (this process, or others through
// LISTEN/NOTIFY) drop their entry at once; an entry past its expiry is dropped when read.
import type { EventBus } from './events.ts';

export interface LiveEntry {
  id: string;
  expiresAt: Date | null;
}

const MAX_ENTRIES = 10_000;

export class LiveSandboxCache<T extends LiveEntry> {
  private readonly entries = new Map<string, T>();

  constructor(bus: EventBus) {
    bus.subscribeAll((event) => {
      if (event.kind === 'sandbox_deleted') this.entries.delete(event.sandboxId);
    });
  }

  get(id: string, now: Date): T | undefined {
    const hit = this.entries.get(id);
    if (hit !== undefined && hit.expiresAt !== null && hit.expiresAt <= now) {
      this.entries.delete(id);
      return undefined;
    }
    return hit;
  }

  set(entry: T): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(entry.id, entry);
  }

  delete(id: string): void {
    this.entries.delete(id);
  }
}
