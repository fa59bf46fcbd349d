// The tasks of the MCP Tasks extension, held in this process's memory: each bound to the workspace that created
// it, kept for a fixed time from creation, bounded per workspace and in all. A reconnecting client reaches them
// because /mcp is stateless and every request of a single-process deployment lands here; a restart loses them
// (tasks/get then says the task is unknown, and the agent waits again).
import { randomUUID } from 'node:crypto';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** What tasks/get answers: the extension's DetailedTask, as JSON. */
export interface TaskView {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

interface TaskRecord {
  id: string;
  owner: string;
  status: TaskStatus;
  statusMessage: string | undefined;
  createdAt: number;
  lastUpdatedAt: number;
  result: Record<string, unknown> | undefined;
  error: { code: number; message: string } | undefined;
  /** Aborts the work behind the task (cancellation, expiry, shutdown). */
  controller: AbortController;
}

export interface TaskStoreOptions {
  /** How long a task is kept from its creation; waits last at most 300 s, so the rest is time to collect. */
  ttlMs?: number;
  /** The polling interval suggested to clients. */
  pollIntervalMs?: number;
  /**
   * Tasks kept per workspace. At the bound the oldest finished one (most likely read already) makes room; when
   * every one is still running, calls are answered directly instead of as tasks.
   */
  maxPerOwner?: number;
  /** Tasks kept in all, made room for the same way; it bounds the memory finished results take. */
  maxTotal?: number;
  now?: () => number;
}

const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

export class TaskStore {
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  private readonly maxPerOwner: number;
  private readonly maxTotal: number;
  private readonly now: () => number;
  private readonly tasks = new Map<string, TaskRecord>();
  private readonly perOwner = new Map<string, number>();

  constructor(options: TaskStoreOptions = {}) {
    this.ttlMs = options.ttlMs ?? 15 * 60_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 2_000;
    this.maxPerOwner = options.maxPerOwner ?? 64;
    this.maxTotal = options.maxTotal ?? 512;
    this.now = options.now ?? Date.now;
  }

  /** A new working task, or undefined when the owner (or the process) has as many tasks still running as allowed. */
  create(owner: string, statusMessage: string): { view: TaskView; signal: AbortSignal } | undefined {
    this.sweep();
    if ((this.perOwner.get(owner) ?? 0) >= this.maxPerOwner) this.dropOldestFinished(owner);
    if (this.tasks.size >= this.maxTotal) this.dropOldestFinished(undefined);
    if (this.tasks.size >= this.maxTotal || (this.perOwner.get(owner) ?? 0) >= this.maxPerOwner) {
      return undefined;
    }
    const at = this.now();
    const record: TaskRecord = {
      id: randomUUID(),
      owner,
      status: 'working',
      statusMessage,
      createdAt: at,
      lastUpdatedAt: at,
      result: undefined,
      error: undefined,
      controller: new AbortController(),
    };
    this.tasks.set(record.id, record);
    this.perOwner.set(owner, (this.perOwner.get(owner) ?? 0) + 1);
    return { view: this.view(record), signal: record.controller.signal };
  }

  /** The task as its owner sees it; another owner's task, an expired or an unknown one are all undefined. */
  get(owner: string, id: string): TaskView | undefined {
    const record = this.find(owner, id);
    return record === undefined ? undefined : this.view(record);
  }

  /** Whether the owner has this task (the acknowledgement of tasks/update and tasks/cancel needs no more). */
  has(owner: string, id: string): boolean {
    return this.find(owner, id) !== undefined;
  }

  /** A working task's new status message (its progress). */
  note(id: string, statusMessage: string): void {
    const record = this.tasks.get(id);
    if (record === undefined || TERMINAL.has(record.status)) return;
    record.statusMessage = statusMessage;
    record.lastUpdatedAt = this.now();
  }

  /** The work's final result; ignored once the task ended otherwise (cancelled, expired). */
  complete(id: string, result: Record<string, unknown>, statusMessage: string): void {
    this.finish(id, 'completed', statusMessage, (r) => (r.result = result));
  }

  /** The work failed with a JSON-RPC error. */
  fail(id: string, error: { code: number; message: string }): void {
    this.finish(id, 'failed', error.message, (r) => (r.error = error));
  }

  /** Cancels the owner's task: it ends as cancelled at once and its work is aborted. False when unknown. */
  cancel(owner: string, id: string): boolean {
    const record = this.find(owner, id);
    if (record === undefined) return false;
    this.finish(id, 'cancelled', 'Cancelled by the client.', () => {});
    return true;
  }

  /** Aborts every task's work (shutdown); the tasks stay readable until the process ends. */
  close(): void {
    for (const record of this.tasks.values()) record.controller.abort();
  }

  private finish(id: string, status: TaskStatus, statusMessage: string, set: (r: TaskRecord) => void): void {
    const record = this.tasks.get(id);
    if (record === undefined || TERMINAL.has(record.status)) return;
    record.status = status;
    record.statusMessage = statusMessage;
    record.lastUpdatedAt = this.now();
    set(record);
    record.controller.abort();
  }

  private find(owner: string, id: string): TaskRecord | undefined {
    const record = this.tasks.get(id);
    if (record === undefined || record.owner !== owner) return undefined;
    if (this.expired(record)) {
      this.drop(record);
      return undefined;
    }
    return record;
  }

  private expired(record: TaskRecord): boolean {
    return this.now() - record.createdAt >= this.ttlMs;
  }

  /** Drops expired tasks; O(tasks), run on each creation, which the caps keep small. */
  private sweep(): void {
    for (const record of this.tasks.values()) if (this.expired(record)) this.drop(record);
  }

  /** The oldest finished task (of `owner`, or of anyone) goes; the map iterates in creation order. */
  private dropOldestFinished(owner: string | undefined): void {
    for (const record of this.tasks.values()) {
      if (TERMINAL.has(record.status) && (owner === undefined || record.owner === owner)) {
        this.drop(record);
        return;
      }
    }
  }

  private drop(record: TaskRecord): void {
    record.controller.abort();
    this.tasks.delete(record.id);
    const left = (this.perOwner.get(record.owner) ?? 1) - 1;
    if (left > 0) this.perOwner.set(record.owner, left);
    else this.perOwner.delete(record.owner);
  }

  private view(record: TaskRecord): TaskView {
    return {
      taskId: record.id,
      status: record.status,
      ...(record.statusMessage === undefined ? {} : { statusMessage: record.statusMessage }),
      createdAt: new Date(record.createdAt).toISOString(),
      lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
      ...(record.result === undefined ? {} : { result: record.result }),
      ...(record.error === undefined ? {} : { error: record.error }),
    };
  }
}
