// kill -9 under load, on both stores, then a restart at once on the same data: every acknowledged capture and
// mail is there. On the embedded store the killed server is left an unreaped zombie (its parent, a python3
// that never waits, keeps it) and its lock is replaced by an old-style lock file naming a live, unrelated
// process: neither may block the restart. The PostgreSQL run uses a private cluster this test makes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { allIds, startLoad, stopLoads } from '../helpers/faultLoad.ts';
import { eventually } from '../helpers/poll.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/privatePostgres.ts';
import {
  cleanupProcesses,
  NODE_BIN,
  REPO_ROOT,
  runCli,
  serverEnv,
  startServerProcess,
  tempDir,
} from '../helpers/process.ts';

/** Starts `serve` under a python3 parent that never reaps it; resolves with the server's pid once healthy. */
async function startUnreaped(env: Record<string, string>, apiPort: number) {
  const inherited: Record<string, string | undefined> = { ...process.env };
  delete inherited.DATABASE_URL;
  const parent = spawn(
    'python3',
    [
      '-c',
      'import subprocess,sys,time; p=subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL); print(p.pid, flush=True); time.sleep(300)',
      NODE_BIN,
      join(REPO_ROOT, 'bin', 'sandtrap.js'),
      'serve',
    ],
    { env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const pid = await new Promise<number>((resolve, reject) => {
    parent.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    parent.once('exit', () => reject(new Error('the python3 parent exited')));
  });
  await eventually(
    'the server under python3 to become healthy',
    () =>
      fetch(`http://127.0.0.1:${apiPort}/healthz`)
        .then((r) => r.status === 200)
        .catch(() => false),
    60_000,
    100,
  );
  return { pid, parent };
}

function processState(pid: number): string | undefined {
  try {
    return /\) (\w) /.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

async function killUnderLoadAndRestart(storeEnv: Record<string, string>, embedded: boolean): Promise<void> {
  const key = (await runCli(['keys', 'generate'])).stdout.trim();
  const dataDir = tempDir();
  const { env, ports } = await serverEnv(dataDir);
  const fullEnv = { ...env, ...storeEnv, BOOTSTRAP_API_KEY: key, RATE_LIMITS: 'off', LOG_LEVEL: 'warn' };
  const { pid, parent } = await startUnreaped(fullEnv, ports.api);
  try {
    const created = await fetch(`http://127.0.0.1:${ports.api}/api/v1/sandboxes`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'kill -9' }),
    });
    assert.equal(created.status, 201);
    const sandboxId = ((await created.json()) as { id: string }).id;

    const load = startLoad({ capturePort: ports.capture, smtpInboundPort: ports.smtpInbound, sandboxId });
    // Killed mid-load once enough was acknowledged, however long that takes on a busy machine.
    const acked = () => ({
      captures: load.captures.filter((c) => c.status === 200).length,
      mails: load.mails.filter((m) => m.ok).length,
    });
    await eventually(
      () => `11 captures and 3 mails acknowledged (${JSON.stringify(acked())})`,
      () => acked().captures > 10 && acked().mails > 2,
      60_000,
      20,
    );
    process.kill(pid, 'SIGKILL');
    await load.stop();
    await eventually(
      'the killed server to be an unreaped zombie',
      () => processState(pid) === 'Z',
      20_000,
      20,
    );

    if (embedded) {
      // What a pid lock file left by an older sandtrap looks like, naming a live process that is not sandtrap.
      rmSync(join(dataDir, 'sandtrap.lock'), { force: true });
      writeFileSync(join(dataDir, 'sandtrap.lock'), String(process.pid));
    }
    const restarted = await startServerProcess({ dataDir, env: { ...storeEnv, BOOTSTRAP_API_KEY: key } });
    await restarted.waitHealthy(20_000);

    const ackedCaptures = load.captures.filter((c) => c.status === 200).map((c) => c.id as string);
    const ackedMails = load.mails.filter((m) => m.ok).map((m) => m.id as string);
    assert.ok(ackedCaptures.length > 10, `only ${ackedCaptures.length} captures acknowledged`);
    assert.ok(ackedMails.length > 2, `only ${ackedMails.length} mails acknowledged`);
    const requests = await allIds(restarted.apiUrl, key, `/sandboxes/${sandboxId}/requests`);
    const messages = await allIds(restarted.apiUrl, key, `/sandboxes/${sandboxId}/messages`);
    assert.deepEqual(
      ackedCaptures.filter((id) => !requests.has(id)),
      [],
      'acknowledged captures lost',
    );
    assert.deepEqual(
      ackedMails.filter((id) => !messages.has(id)),
      [],
      'acknowledged mails lost',
    );
    assert.equal(await restarted.stop('SIGTERM', 10_000), 0);
  } finally {
    parent.kill('SIGKILL');
  }
}

describe('kill -9 under load, restart at once on the same data', () => {
  let pgc: PrivatePostgres | undefined;
  after(async () => {
    await stopLoads();
    await cleanupProcesses();
    await pgc?.destroy();
  });

  test('embedded store: a zombie owner and a foreign live pid in the lock file do not block the restart', async () => {
    await killUnderLoadAndRestart({}, true);
  });

  test('PostgreSQL (a private cluster): nothing acknowledged is lost', async () => {
    pgc = await startPrivatePostgres();
    await killUnderLoadAndRestart({ DATABASE_URL: pgc.url }, false);
  });
});
