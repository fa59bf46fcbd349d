// An exclusive lock on DATA_DIR that the kernel releases when its owner dies: a listening Unix socket.
// PGlite must have one owner. A pid file could not tell a dead owner (a zombie not yet reaped, a pid reused
// after a reboot) from a live one; a socket that accepts a connection can only belong to a live process.
import { mkdirSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join, resolve } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { ConfigError } from '../config.ts';

export class StoreLockedError extends Error {
  override name = 'StoreLockedError';
}

export interface DirLock {
  release(): void;
}

/** Linux's sun_path holds 108 bytes with the terminating NUL; macOS 104. */
const MAX_SOCKET_PATH = 100;
const PROBE_TIMEOUT_MS = 2_000;

/** Where the lock listens: the socket file in DATA_DIR, or (a DATA_DIR path too long for a socket) an
 * abstract socket named after the directory, which Linux also frees when its owner dies. */
function lockAddress(dataDir: string): { address: string; file: string | undefined } {
  const file = join(resolve(dataDir), 'sandtrap.lock');
  if (Buffer.byteLength(file) <= MAX_SOCKET_PATH) return { address: file, file };
  if (process.platform !== 'linux') {
    throw new StoreLockedError(
      `DATA_DIR ${resolve(dataDir)} is too long a path for the lock socket; use a shorter DATA_DIR.`,
    );
  }
  const digest = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 32);
  return { address: `\0sandtrap-lock-${digest}`, file: undefined };
}

type Probe = { owner: string } | 'no-owner' | 'unclear';

/** Connects to the lock: a live owner answers with `<pid> <nonce>`; a socket nobody listens on refuses. */
function probe(address: string): Promise<Probe> {
  return new Promise((resolveProbe, reject) => {
    const socket = connect(address);
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      // Accepted but silent: something live holds it, even if it does not say who.
      resolveProbe({ owner: answer.trim() || 'unknown' });
    }, PROBE_TIMEOUT_MS);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => {
      clearTimeout(timer);
      resolveProbe({ owner: answer.trim() || 'unknown' });
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // ECONNREFUSED: a socket file left by a dead owner, or an old-style pid file. ENOENT: gone meanwhile.
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT' || err.code === 'ENOTSOCK') {
        resolveProbe('no-owner');
      } else if (err.code === 'ECONNRESET' || err.code === 'EPIPE') {
        resolveProbe('unclear'); // an owner dying at this very moment: look again
      } else reject(err);
    });
  });
}

function listen(server: Server, address: string): Promise<'ok' | 'in-use'> {
  return new Promise((resolveListen, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      if (err.code === 'EADDRINUSE') resolveListen('in-use');
      else reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolveListen('ok');
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(address);
  });
}

function lockedError(dataDir: string, owner: string): StoreLockedError {
  const pid = owner.split(' ')[0] ?? 'unknown';
  return new StoreLockedError(
    `The embedded database in ${resolve(dataDir)} is in use by another sandtrap process (pid ${pid}). ` +
      'Stop that process, point DATA_DIR elsewhere, or set DATABASE_URL to share a PostgreSQL database between processes.',
  );
}

export async function lockDataDir(dataDir: string): Promise<DirLock> {
  try {
    return await takeLock(dataDir);
  } catch (err) {
    throw unwritable(dataDir, err) ?? err;
  }
}

/**
 * A DATA_DIR this process may not write (a container's volume owned by root, a read-only mount) is a setting
 * to fix, said in one line, not a stack trace from the first file the store touched.
 */
function unwritable(dataDir: string, err: unknown): ConfigError | undefined {
  const code = (err as NodeJS.ErrnoException).code;
  if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS') return undefined;
  const who = typeof process.getuid === 'function' ? ` by uid ${process.getuid()}` : '';
  return new ConfigError(
    `DATA_DIR ${resolve(dataDir)} is not writable${who} (${code}): make it writable (a container runs as ` +
      'uid 1000: chown 1000:1000 the volume or bind mount), or set DATA_DIR to a folder that is.',
  );
}

async function takeLock(dataDir: string): Promise<DirLock> {
  mkdirSync(dataDir, { recursive: true });
  const { address, file } = lockAddress(dataDir);
  const identity = `${process.pid} ${randomBytes(8).toString('hex')}`;
  const held = (server: Server, takenOver: boolean): DirLock => {
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        // A socket listened on at its own path unlinks it on close; one renamed into place must be removed.
        server.close();
        if (takenOver && file !== undefined) rmSync(file, { force: true });
      },
    };
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    const server = createServer((socket) => socket.end(identity));
    server.on('error', () => {}); // after listening, a failed accept must not crash the process
    server.unref(); // the lock must not keep a finished CLI command alive
    if ((await listen(server, address)) === 'ok') return held(server, false);
    const found = await probe(address);
    if (found === 'unclear') {
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    if (found !== 'no-owner') throw lockedError(dataDir, found.owner);
    // Nobody listens: its owner died (or it is an old-style pid file); the kernel already let go of it.
    if (file === undefined) continue; // an abstract name is free again once its owner is gone
    // Listen on a private path, then rename it over the dead one: one atomic step, so two starts that both
    // found the dead socket never unlink each other's; the one whose socket the path reaches afterwards wins.
    const spare = `${file}.${randomBytes(4).toString('hex')}`;
    if ((await listen(server, spare)) !== 'ok') continue;
    renameSync(spare, file);
    const reached = await probe(file);
    if (typeof reached === 'object' && reached.owner === identity) return held(server, true);
    server.close();
  }
  throw new StoreLockedError(
    `Could not take the lock ${file ?? address}; another sandtrap process may be starting on the same DATA_DIR.`,
  );
}
