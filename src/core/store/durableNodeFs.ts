// PGlite's Node file system with a working fsync (without it, postgres' flush of each commit never reaches the
// disk), which also reports the disk's write failures and postgres aborting, for the store to act on.
import fs from 'node:fs';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import { DISK_FAULT_CODES, type DiskFaultCode } from './unavailable.ts';

/** The parts of Emscripten's NODEFS and FS this module touches. */
interface EmscriptenStream {
  nfd: number;
  node: { mode: number };
}
interface NodeFsModule {
  NODEFS?: {
    stream_ops: { fsync?: (stream: EmscriptenStream) => number };
    tryFSOperation<T>(operation: () => T): T;
  };
  FS: { isDir(mode: number): boolean };
}

/** A system call of postgres' that the disk refused with one of the faults that refuse every write. */
export interface DiskFault {
  code: DiskFaultCode;
  /** Node's message: the call and, for opens, the path ("ENOSPC: no space left on device, write"). */
  message: string;
}

export interface NodeFsWatch {
  /** The disk refused a call (postgres then fails the statement, or PANICs inside a critical section). */
  onDiskFault?(fault: DiskFault): void;
  /**
   * The WebAssembly module aborted: postgres PANICked (it calls abort()). PGlite swallows the abort and carries
   * on with postgres' shared state as the PANIC left it (a lock held, a critical section open), so the next
   * commit spins for ever in XLogFlush, this thread with it: such an instance must never be entered again.
   */
  onAbort?(what: unknown): void;
}

/**
 * Emscripten's NODEFS has no `fsync` stream operation and its `fdatasync` system call does nothing, so postgres'
 * WAL flush at every commit only reaches the OS page cache: committed data survived kill -9 but not a power cut or
 * a kernel crash. Postgres' `fsync()` reaches a stream's `fsync` operation (WASI `fd_sync`), so this adds one that
 * syncs the real file; the store starts postgres with `wal_sync_method=fsync` so that the WAL goes through it.
 * Every Node call NODEFS makes goes through `tryFSOperation`, which turns a thrown system error into the errno
 * postgres sees; wrapped, it also tells `watch` about the disk faults among them.
 */
export function addFsyncToNodeFs(mod: NodeFsModule, watch: NodeFsWatch = {}): void {
  const nodefs = mod.NODEFS;
  if (nodefs?.stream_ops === undefined) {
    throw new Error('PGlite no longer exposes NODEFS: the embedded store cannot make its commits durable');
  }
  nodefs.stream_ops.fsync = (stream) => {
    // Errors become the errno postgres sees (it then stops, as it does on any failed fsync: data_sync_retry).
    nodefs.tryFSOperation(() =>
      mod.FS.isDir(stream.node.mode) ? fs.fsyncSync(stream.nfd) : fs.fdatasyncSync(stream.nfd),
    );
    return 0;
  };
  const onDiskFault = watch.onDiskFault;
  if (onDiskFault === undefined) return;
  const tryFSOperation = nodefs.tryFSOperation.bind(nodefs);
  nodefs.tryFSOperation = <T>(operation: () => T): T =>
    tryFSOperation(() => {
      try {
        return operation();
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== undefined && DISK_FAULT_CODES.has(code)) {
          onDiskFault({ code: code as DiskFaultCode, message: (err as Error).message });
        }
        throw err;
      }
    });
}

/** PGlite's NodeFS whose files are synced when postgres asks (see `addFsyncToNodeFs`), watched by `watch`. */
export class DurableNodeFS extends NodeFS {
  private readonly watch: NodeFsWatch;

  constructor(dataDir: string, watch: NodeFsWatch = {}) {
    super(dataDir);
    this.watch = watch;
  }

  override async init(...args: Parameters<NodeFS['init']>): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(...args);
    const preRun = [...(emscriptenOpts.preRun ?? [])];
    // After NodeFS' own step, which mounts the data directory; before postgres starts and recovers.
    preRun.push((mod: unknown) => addFsyncToNodeFs(mod as NodeFsModule, this.watch));
    const onAbort = this.watch.onAbort;
    // Emscripten calls Module.onAbort from abort() before it throws.
    return { emscriptenOpts: { ...emscriptenOpts, preRun, ...(onAbort === undefined ? {} : { onAbort }) } };
  }
}
