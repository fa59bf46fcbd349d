// Space set aside in DATA_DIR for the one moment the embedded store needs it: recovering after postgres stopped
// on a full disk. A file of real blocks, given back to the disk when the store needs them, made again once the
// disk has room.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rm, stat } from 'node:fs/promises';

const CHUNK_BYTES = 1024 * 1024;

export class DiskReserve {
  readonly path: string;
  readonly bytes: number;

  constructor(path: string, bytes: number) {
    this.path = path;
    this.bytes = bytes;
  }

  /** Whether the whole reserve is on the disk now. */
  async held(): Promise<boolean> {
    try {
      return (await stat(this.path)).size >= this.bytes;
    } catch {
      return false;
    }
  }

  /**
   * Makes the reserve unless it is there; false, leaving no part of it behind, when the disk refuses (full).
   * Random bytes rather than zeros: a file system that compresses (btrfs, ZFS) would store zeros in no space.
   */
  async ensure(): Promise<boolean> {
    if (await this.held()) return true;
    let file;
    try {
      file = await open(this.path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o600);
      const chunk = randomBytes(CHUNK_BYTES);
      for (let written = 0; written < this.bytes; written += CHUNK_BYTES) {
        await file.write(chunk, 0, Math.min(CHUNK_BYTES, this.bytes - written));
      }
      await file.sync();
      await file.close();
      return true;
    } catch {
      await file?.close().catch(() => undefined);
      await rm(this.path, { force: true }).catch(() => undefined);
      return false;
    }
  }

  /** Gives the space back to the disk; true when there was a reserve to give. */
  async release(): Promise<boolean> {
    const had = await this.held();
    await rm(this.path, { force: true }).catch(() => undefined);
    return had;
  }
}
