// Change events: "an item was committed in sandbox S", "sandbox S is gone", "a change of sandbox S was
// journaled" (read flags, deletions, clears: the live streams read on), "a callback of sandbox S was
// attempted" (callback waits look again) and "dashboard session X was signed out" (its event streams end, on
// every process). In one process an in-memory
// bus; with PostgreSQL also LISTEN/NOTIFY on one dedicated connection per process, carrying only ids, so a
// wait in one process wakes when another process commits.
import { randomUUID } from 'node:crypto';

export type ChangeEvent =
  | { kind: 'message' | 'request'; sandboxId: string; id: string }
  /** `id`: the message, request or sandbox changed. */
  | { kind: 'changed'; sandboxId: string; id: string }
  | { kind: 'sandbox_deleted'; sandboxId: string }
  /** The sandbox's SMTP fault script was replaced: processes drop their copy (smtpFaults/service.ts). */
  | { kind: 'smtp_faults'; sandboxId: string }
  /** A delivery attempt of callback `id` (an outbox row) was recorded: waits on its delivery look again. */
  | { kind: 'callback'; sandboxId: string; id: string }
  | { kind: 'session_ended'; sessionId: string };

/** The events of one sandbox (what `subscribe` hands out). */
export type SandboxEvent = Exclude<ChangeEvent, { kind: 'session_ended' | 'smtp_faults' | 'callback' }>;

export type Listener = (event: ChangeEvent) => void;

export interface EventTransport {
  /** Sends an event to other processes. */
  send(payload: string): Promise<void>;
  /** Starts receiving other processes' payloads; `onResync` when notifications may have been lost. */
  start(onPayload: (payload: string) => void, onResync: () => void): Promise<void>;
  close(): Promise<void>;
}

// A process of an older version drops kinds it does not know (decodeEvent), so a kind can be added.
const KINDS = new Set([
  'message',
  'request',
  'sandbox_deleted',
  'changed',
  'session_ended',
  'smtp_faults',
  'callback',
]);

export function encodeEvent(origin: string, e: ChangeEvent): string {
  if (e.kind === 'session_ended') return [origin, e.kind, e.sessionId, ''].join(':');
  return [origin, e.kind, e.sandboxId, 'id' in e ? e.id : ''].join(':');
}

export function decodeEvent(payload: string): { origin: string; event: ChangeEvent } | undefined {
  const [origin, kind, sandboxId, id] = payload.split(':');
  if (origin === undefined || kind === undefined || sandboxId === undefined || !KINDS.has(kind))
    return undefined;
  if (kind === 'session_ended') return { origin, event: { kind, sessionId: sandboxId } };
  if (kind === 'sandbox_deleted' || kind === 'smtp_faults') return { origin, event: { kind, sandboxId } };
  if (id === undefined || id === '') return undefined;
  return { origin, event: { kind: kind as 'message' | 'request' | 'changed' | 'callback', sandboxId, id } };
}

export class EventBus {
  private readonly listeners = new Map<string, Set<(event: SandboxEvent) => void>>();
  private readonly everything = new Set<Listener>();
  private readonly resyncs = new Set<() => void>();
  private readonly origin = randomUUID();
  private readonly transport: EventTransport | undefined;
  private onSendError: (err: unknown) => void = () => {};

  constructor(transport?: EventTransport) {
    this.transport = transport;
  }

  async start(onSendError: (err: unknown) => void): Promise<void> {
    this.onSendError = onSendError;
    await this.transport?.start(
      (payload) => {
        const decoded = decodeEvent(payload);
        // Our own notifications come back too; they were delivered locally already.
        if (decoded !== undefined && decoded.origin !== this.origin) this.deliver(decoded.event);
      },
      () => {
        for (const listener of [...this.resyncs]) listener();
      },
    );
  }

  /** Call after the change is committed. Local listeners run synchronously; other processes get it async. */
  publish(event: ChangeEvent): void {
    this.deliver(event);
    this.transport?.send(encodeEvent(this.origin, event)).catch(this.onSendError);
  }

  subscribe(sandboxId: string, listener: (event: SandboxEvent) => void): () => void {
    let set = this.listeners.get(sandboxId);
    if (set === undefined) this.listeners.set(sandboxId, (set = new Set()));
    set.add(listener);
    return () => {
      const current = this.listeners.get(sandboxId);
      if (current === undefined) return;
      current.delete(listener);
      if (current.size === 0) this.listeners.delete(sandboxId);
    };
  }

  /** Every event of every sandbox (caches that must forget a deleted sandbox). */
  subscribeAll(listener: Listener): () => void {
    this.everything.add(listener);
    return () => void this.everything.delete(listener);
  }

  /** Called when changes of other processes may have gone unannounced (the listening connection was lost). */
  subscribeResync(listener: () => void): () => void {
    this.resyncs.add(listener);
    return () => void this.resyncs.delete(listener);
  }

  /** Listeners currently registered, across sandboxes. */
  listenerCount(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  private deliver(event: ChangeEvent): void {
    for (const listener of this.everything) listener(event);
    // Only caches and callback waits listen for these (subscribeAll); a sandbox's item waits and streams have
    // nothing to read.
    if (event.kind === 'session_ended' || event.kind === 'smtp_faults' || event.kind === 'callback') return;
    const set = this.listeners.get(event.sandboxId);
    if (set === undefined) return;
    for (const listener of [...set]) listener(event);
  }

  close(): Promise<void> {
    return this.transport?.close() ?? Promise.resolve();
  }
}
