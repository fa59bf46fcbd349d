// The embedded store's database as kysely sees it: one PGlite instance at a time. When the disk refuses a write
// (full, over quota, failing, read-only) the store refuses every write at once, naming why, and keeps answering
// reads; when postgres PANICked on it, the lost instance is let go and a new one recovers on the same files.
// Writes resume on their own once the disk has room again.
import type { PGlite, QueryOptions, Results } from '@electric-sql/pglite';
import type { PGlite as KyselyPGlite, PGliteTransaction } from 'kysely';
import { statfsSync } from 'node:fs';
import { join } from 'node:path';
import { isAppError, type AppError } from '../errors.ts';
import { DiskReserve } from './diskReserve.ts';
import type { DiskFault } from './durableNodeFs.ts';
import { LostInstanceError } from './pgliteGuard.ts';
import { withPreparedStatements } from './pglitePrepared.ts';
import { restartPgliteStore, startPgliteStore, type PgliteHandle, type PgliteWatch } from './pgliteStart.ts';
import {
  dataDirReason,
  DISK_RETRY_AFTER_SECONDS,
  diskFaultOf,
  EMBEDDED_PANIC_REASON,
  STORE_RETRY_AFTER_SECONDS,
  storeRefusal,
  type DiskFaultCode,
} from './unavailable.ts';

const MB = 1024 * 1024;
/**
 * Set aside in DATA_DIR for recovering after a PANIC on a full disk. The end of recovery writes a checkpoint,
 * into a new 16 MB WAL segment when the PANIC came from the one that could not be created: 17 MB measured.
 */
export const RESERVE_BYTES = 32 * MB;
/** Writes resume once DATA_DIR has this much room besides the reserve: the next WAL segment fits. */
export const RESUME_FREE_BYTES = 16 * MB;
/** While writes are refused, the store looks at the disk this often. */
const CHECK_EVERY_MS = 1_000;
/** A fault free space does not show (quota, I/O error, read-only) is probed by letting writes through again. */
const PROBE_AFTER_MS = 10_000;
/** A failed restart is tried again after this, or as soon as the disk shows room for it. */
const RESTART_RETRY_MS = 10_000;

/** A line for the log: the store has no logger of its own (the CLI passes one in, see openStore). */
export interface StoreEvent {
  level: 'error' | 'warn' | 'info';
  message: string;
  fields: Record<string, unknown>;
}

export interface EmbeddedStoreOptions {
  /** DATA_DIR; undefined: in memory (tests), where nothing can be recovered after a PANIC. */
  dataDir: string | undefined;
  templateFile?: string;
  onEvent?(event: StoreEvent): void;
}

export interface EmbeddedDatabase {
  /** What kysely's PGlite dialect is given. */
  pglite: KyselyPGlite;
}

interface Fault {
  /** The disk's refusal when known; undefined for a PANIC with no disk fault seen. */
  code: DiskFaultCode | undefined;
  reason: string;
  since: number;
  /** When writes are let through again to see whether the disk takes them (faults free space does not show). */
  probeAt: number;
}

/** Statements that only read: everything else (and every transaction) is a write, refused while faulted. */
const READ = /^(?:\/\*[^*]*\*\/\s*)?select\b/i;

function freeBytes(dir: string): number | undefined {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}

class Embedded implements EmbeddedDatabase {
  private handle: PgliteHandle | undefined;
  private current: PGlite | undefined;
  private fault: Fault | undefined;
  /** Disk faults seen so far, and the latest: a query that failed while the count moved failed on the disk. */
  private diskFaults = 0;
  private lastDiskFault: DiskFault | undefined;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private nextRestartAt = 0;
  private closed = false;
  private readonly pgdata: string | undefined;
  private readonly reserve: DiskReserve | undefined;
  private readonly watch: PgliteWatch;
  private readonly options: EmbeddedStoreOptions;

  constructor(options: EmbeddedStoreOptions) {
    this.options = options;
    this.pgdata = options.dataDir === undefined ? undefined : join(options.dataDir, 'pgdata');
    this.reserve =
      options.dataDir === undefined
        ? undefined
        : new DiskReserve(join(options.dataDir, 'sandtrap.reserve'), RESERVE_BYTES);
    this.watch = {
      onDiskFault: (fault) => {
        this.diskFaults++;
        this.lastDiskFault = fault;
      },
      // Inside the aborting call, on postgres' stack: only note it (the instance refuses every call already), after
      // the failed statement has reported its error, which says what postgres could not do.
      onLost: () => setImmediate(() => this.instanceLost()),
    };
  }

  async start(): Promise<void> {
    const reserving = this.reserve?.ensure();
    const faultsBefore = this.diskFaults;
    let started: PgliteHandle;
    try {
      started = await startPgliteStore(this.pgdata, this.options.templateFile, this.watch);
    } catch (err) {
      await reserving;
      // A start after a crash recovers first, and that writes: on a full disk, the reserve is what it needs.
      if (this.diskFaults === faultsBefore || !(await this.reserve?.release())) throw err;
      this.emit('warn', 'the embedded store could not start on the full disk; it uses the space set aside', {
        err: err instanceof Error ? err.message : String(err),
      });
      started = await startPgliteStore(this.pgdata, this.options.templateFile, this.watch);
      this.use(started);
      this.enterFault(this.lastDiskFault?.code, err);
      return;
    }
    this.use(started);
    if (reserving !== undefined && !(await reserving)) {
      this.emit('warn', 'could not set aside space in DATA_DIR for recovering from a full disk', {
        reserveBytes: RESERVE_BYTES,
        freeBytes: this.free(),
      });
    }
  }

  private use(handle: PgliteHandle): void {
    this.handle = handle;
    this.current = withPreparedStatements(handle.pglite);
  }

  private emit(level: StoreEvent['level'], message: string, fields: Record<string, unknown> = {}): void {
    this.options.onEvent?.({ level, message, fields: { dataDir: this.options.dataDir, ...fields } });
  }

  private free(): number | undefined {
    return this.options.dataDir === undefined ? undefined : freeBytes(this.options.dataDir);
  }

  // ---- refusals ------------------------------------------------------------------------------------------

  private refusal(cause?: unknown): AppError {
    const fault = this.fault as Fault;
    const restarting = this.current === undefined;
    // Recovery takes seconds; a disk takes someone to free space (or fix it).
    return restarting
      ? storeRefusal(
          fault.reason,
          'the store is recovering and answers nothing until it has; nothing was changed.',
          STORE_RETRY_AFTER_SECONDS,
          cause,
        )
      : storeRefusal(
          fault.reason,
          'the store refuses changes until it can write again; nothing was changed.',
          DISK_RETRY_AFTER_SECONDS,
          cause,
        );
  }

  /** Throws the refusal when `text` may not run now (any statement while recovering; writes while faulted). */
  private admit(text: string | undefined): PGlite {
    if (this.closed) throw new Error('The store is closed.');
    if (
      this.fault !== undefined &&
      (this.current === undefined || text === undefined || !READ.test(text.trimStart()))
    )
      throw this.refusal();
    return this.current as PGlite;
  }

  /**
   * A failed statement's error as callers should see it: a disk fault (postgres' SQLSTATE, or a refusal the disk
   * made while the statement ran) or a lost instance puts the store in the faulted state and becomes its
   * refusal; every other error is the statement's own.
   */
  private failed(err: unknown, faultsBefore: number): unknown {
    if (isAppError(err)) return err;
    const lost = err instanceof LostInstanceError || this.handle?.pglite.lost === true;
    const seen = this.diskFaults !== faultsBefore ? this.lastDiskFault : undefined;
    const code = seen?.code ?? diskFaultOf(err) ?? (lost ? this.lastDiskFault?.code : undefined);
    if (code === undefined && !lost) return err;
    this.enterFault(code, err);
    if (lost) this.instanceLost();
    return this.refusal(err);
  }

  private enterFault(code: DiskFaultCode | undefined, err: unknown): void {
    const now = Date.now();
    if (this.fault !== undefined) {
      this.fault.probeAt = now + PROBE_AFTER_MS;
      return;
    }
    const reason = code === undefined ? EMBEDDED_PANIC_REASON : dataDirReason(code);
    this.fault = { code, reason, since: now, probeAt: now + PROBE_AFTER_MS };
    this.emit('error', `the embedded store cannot write: ${reason}; writes are refused until it can again`, {
      code,
      detail: err instanceof Error ? err.message : String(err),
      diskError: this.lastDiskFault?.message,
      freeBytes: this.free(),
    });
    this.schedule();
  }

  // ---- recovery ------------------------------------------------------------------------------------------

  private instanceLost(): void {
    if (this.fault === undefined) this.enterFault(this.lastDiskFault?.code, new Error('postgres PANICked'));
    this.schedule(0);
  }

  private schedule(delayMs = CHECK_EVERY_MS): void {
    if (this.closed || this.fault === undefined) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.checking ??= this.check().finally(() => {
        this.checking = undefined;
        this.schedule();
      });
    }, delayMs);
    this.timer.unref();
  }

  /** One look while faulted: let a lost instance go, start another when the disk allows, resume writes. */
  private async check(): Promise<void> {
    if (this.closed || this.fault === undefined) return;
    const handle = this.handle;
    if (handle?.pglite.lost === true) {
      this.handle = undefined;
      this.current = undefined;
      await handle.abandon();
      this.emit(
        'error',
        `postgres stopped (PANIC) on ${this.fault.reason}; the store recovers from its WAL`,
        {},
      );
    }
    if (this.current === undefined && !(await this.restart())) return;
    await this.resumeIfRoom();
  }

  private async restart(): Promise<boolean> {
    const fault = this.fault as Fault;
    if (this.pgdata === undefined) return false; // in memory: there is nothing to recover from
    const released = (await this.reserve?.release()) === true;
    if (released)
      this.emit('warn', 'gave the space set aside in DATA_DIR back for recovery', { bytes: RESERVE_BYTES });
    const free = this.free();
    const room = free === undefined || free >= RESERVE_BYTES;
    if (!released && !room && Date.now() < this.nextRestartAt) return false;
    const started = Date.now();
    try {
      this.use(await restartPgliteStore(this.pgdata, this.watch));
    } catch (err) {
      this.nextRestartAt = Date.now() + RESTART_RETRY_MS;
      this.emit('warn', `the embedded store could not recover yet (${fault.reason}); it tries again`, {
        err: err instanceof Error ? err.message : String(err),
        freeBytes: this.free(),
      });
      return false;
    }
    this.emit('warn', 'the embedded store recovered from its WAL: reads are answered again', {
      ms: Date.now() - started,
    });
    return true;
  }

  private async resumeIfRoom(): Promise<void> {
    const fault = this.fault as Fault;
    const free = this.free();
    const reserveHeld = this.reserve === undefined || (await this.reserve.held());
    if (fault.code === 'ENOSPC' && free !== undefined) {
      if (free < RESUME_FREE_BYTES + (reserveHeld ? 0 : RESERVE_BYTES)) return;
    } else if (Date.now() < fault.probeAt) return;
    if (!reserveHeld && !(await (this.reserve as DiskReserve).ensure()) && fault.code === 'ENOSPC') return;
    this.fault = undefined;
    clearTimeout(this.timer);
    this.emit('info', `writes resumed: ${fault.reason} no longer refuses them`, {
      refusedForMs: Date.now() - fault.since,
      freeBytes: this.free(),
    });
  }

  // ---- what kysely calls ---------------------------------------------------------------------------------

  async query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    const pglite = this.admit(text);
    const faultsBefore = this.diskFaults;
    try {
      return await pglite.query<T>(text, params, options);
    } catch (err) {
      throw this.failed(err, faultsBefore);
    }
  }

  async transaction<T>(callback: (tx: PGliteTransaction) => Promise<T>): Promise<T> {
    const pglite = this.admit(undefined);
    const faultsBefore = this.diskFaults;
    try {
      return await pglite.transaction((tx) =>
        callback({
          query: async (text, params, options) => {
            const before = this.diskFaults;
            try {
              return await tx.query(text, params, options);
            } catch (err) {
              throw this.failed(err, before);
            }
          },
          rollback: () => tx.rollback(),
        }),
      );
    } catch (err) {
      throw this.failed(err, faultsBefore);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.checking;
    const handle = this.handle;
    this.handle = undefined;
    this.current = undefined;
    if (handle === undefined) return;
    // A lost instance is only let go: closing it would run postgres' shutdown checkpoint, which spins.
    if (handle.pglite.lost) await handle.abandon();
    else await handle.pglite.close();
  }

  readonly pglite: KyselyPGlite = ((self: Embedded): KyselyPGlite => ({
    query: (text, params, options) => self.query(text, params, options),
    transaction: (callback) => self.transaction(callback),
    close: () => self.close(),
    get closed() {
      return self.closed;
    },
    ready: true,
    waitReady: Promise.resolve(),
  }))(this);
}

/** Starts the embedded database in DATA_DIR (or in memory) with its recovery from disk faults. */
export async function openEmbeddedDatabase(options: EmbeddedStoreOptions): Promise<EmbeddedDatabase> {
  const embedded = new Embedded(options);
  await embedded.start();
  return embedded;
}
