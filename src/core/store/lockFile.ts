// An exclusive pid lock on DATA_DIR: PGlite must have one owner, and a second process gets a clear error.
// A pid file (not an mtime lease) so a restart right after a crash takes the lock at once.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

export class StoreLockedError extends Error {
  override name = 'StoreLockedError';
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Locks this process holds: a pid file with our own pid is only ours if we took it (pids are reused). */
const held = new Set<string>();

export interface DirLock {
  release(): void;
}

export function lockDataDir(dataDir: string): DirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'sandtrap.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      held.add(path);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          held.delete(path);
          rmSync(path, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number.parseInt(readFileSync(path, 'utf8'), 10);
      const ours = owner === process.pid && held.has(path);
      if (ours || (Number.isInteger(owner) && owner !== process.pid && isAlive(owner))) {
        throw new StoreLockedError(
          `The embedded database in ${resolve(dataDir)} is in use by another sandtrap process (pid ${owner}). ` +
            'Stop that process, point DATA_DIR elsewhere, or set DATABASE_URL to share a PostgreSQL database between processes.',
        );
      }
      rmSync(path, { force: true }); // stale: its owner is gone
    }
  }
  throw new StoreLockedError(
    `Could not take the lock file ${path}; remove it if no sandtrap process is running.`,
  );
}
