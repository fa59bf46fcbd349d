// A PostgreSQL cluster of the test's own (initdb in a temp dir, a free port), so fault tests can stop and
// start the database under load without touching the machine's shared server. initdb refuses root, so as
// root the cluster is made and run as the `postgres` user.
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './process.ts';

const run = promisify(execFile);

function binDir(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  if (versions[0] === undefined) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

export interface PrivatePostgres {
  url: string;
  port: number;
  /** Stops the server: `immediate` is a crash (every connection cut), `fast` a clean shutdown. */
  stop(mode?: 'immediate' | 'fast'): Promise<void>;
  start(): Promise<void>;
  /** Stops it for good and removes its files. */
  destroy(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const root = mkdtempSync(join(tmpdir(), 'sandtrap-pg-'));
  const dataDir = join(root, 'data');
  const asRoot = userInfo().uid === 0;
  const pgUser = asRoot ? 'postgres' : userInfo().username;
  if (asRoot) {
    chmodSync(root, 0o755);
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(root, Number(stdout.trim()), Number(gid.trim()));
  }
  const as = (cmd: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', cmd, ...args]) : run(cmd, args);
  const port = await freePort();
  await as(`${bin}/initdb`, ['-D', dataDir, '-A', 'trust', '-U', pgUser, '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  const start = async () => {
    await as(`${bin}/pg_ctl`, [
      '-D',
      dataDir,
      '-l',
      join(root, 'log'),
      '-o',
      options,
      '-w',
      '-t',
      '30',
      'start',
    ]);
  };
  const stop = async (mode: 'immediate' | 'fast' = 'immediate') => {
    await as(`${bin}/pg_ctl`, ['-D', dataDir, '-m', mode, '-w', '-t', '30', 'stop']);
  };
  await start();
  let destroyed = false;
  return {
    url: `postgres://${pgUser}@127.0.0.1:${port}/postgres`,
    port,
    stop,
    start,
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      await stop('immediate').catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
