// PGlite's Node file system with a working fsync: without it, postgres' flush of each commit never reaches the disk.
import fs from 'node:fs';
import { NodeFS } from '@electric-sql/pglite/nodefs';

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

/**
 * Emscripten's NODEFS has no `fsync` stream operation and its `fdatasync` system call does nothing, so postgres'
 * WAL flush at every commit only reaches the OS page cache: committed data survived kill -9 but not a power cut or
 * a kernel crash. Postgres' `fsync()` reaches a stream's `fsync` operation (WASI `fd_sync`), so this adds one that
 * syncs the real file; the store starts postgres with `wal_sync_method=fsync` so that the WAL goes through it.
 */
export function addFsyncToNodeFs(mod: NodeFsModule): void {
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
}

/** PGlite's NodeFS whose files are synced when postgres asks (see `addFsyncToNodeFs`). */
export class DurableNodeFS extends NodeFS {
  override async init(...args: Parameters<NodeFS['init']>): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(...args);
    const preRun = [...(emscriptenOpts.preRun ?? [])];
    // After NodeFS' own step, which mounts the data directory; before postgres starts and recovers.
    preRun.push((mod: unknown) => addFsyncToNodeFs(mod as NodeFsModule));
    return { emscriptenOpts: { ...emscriptenOpts, preRun } };
  }
}
