// A disk that fills under load, on both stores: the test mounts a small tmpfs, starts a real `sandtrap serve`,
// sends captures over HTTP and mail over SMTP, and fills what is left of the tmpfs with a filler file. The server
// refuses writes naming the cause (capture 503 problem+json, SMTP 451 4.3.0, "disk full in DATA_DIR"), keeps
// answering /healthz and reads, and takes writes again on its own once the filler is deleted. Everything
// acknowledged is readable afterwards, and after a restart. On PostgreSQL the capture tables live in a
// tablespace on the tmpfs of a private cluster, so the server answers SQLSTATE 53100 (disk_full).
// Mounting needs root (`mount -t tmpfs`); elsewhere the tests skip and say so.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test, type TestContext } from 'node:test';
import pg from 'pg';
import {
  allIds,
  inboundMailer,
  sendOneCapture,
  sendOneMail,
  startLoad,
  stopLoads,
  type Load,
} from '../helpers/faultLoad.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/privatePostgres.ts';
import { cleanupProcesses, runCli, startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { openStoreInWorker, type StatementResult } from '../helpers/storeInWorker.ts';
import { eventually } from '../helpers/poll.ts';

const mounts: string[] = [];

/** A fresh tmpfs of `sizeMb`, or why none could be mounted (not root, no mount(8), a container without it). */
function mountTmpfs(sizeMb: number): { dir: string } | { skip: string } {
  if (process.getuid?.() !== 0)
    return { skip: 'mounting a tmpfs needs root; run the disk-full test as root' };
  const dir = mkdtempSync(join(tmpdir(), 'sandtrap-diskfull-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0755`, 'tmpfs', dir], {
      stdio: 'pipe',
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    return { skip: `this machine cannot mount a tmpfs (${stderr || (err as Error).message})` };
  }
  mounts.push(dir);
  return { dir };
}

function unmountAll(): void {
  for (const dir of mounts.splice(0)) {
    try {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

const freeBytes = (dir: string) => {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
};

/**
 * Fills the file system of `dir` with `file` while the load runs, 1 MB at a time, until the disk refuses or the
 * server has started refusing (`refused()`). It also stops when space appears: the embedded store gives its
 * reserve back when it needs it to recover, and the filler must not take that.
 */
async function fill(dir: string, file: string, refused: () => boolean): Promise<number> {
  const handle = await open(file, 'w');
  const chunk = Buffer.alloc(1024 * 1024, 0x5a);
  let written = 0;
  let free = freeBytes(dir);
  try {
    for (;;) {
      if (refused()) break;
      const now = freeBytes(dir);
      if (now > free + 8 * 1024 * 1024) break;
      free = now;
      try {
        written += (await handle.write(chunk, 0, Math.min(chunk.length, Math.max(free, 4096)))).bytesWritten;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
        throw err;
      }
    }
  } finally {
    await handle.close();
  }
  return written;
}

/** Polls `attempt` until it gives a value (test/helpers/poll.ts: the one place a test polls with a deadline). */
function until<T>(what: string, timeoutMs: number, attempt: () => Promise<T | undefined>): Promise<T> {
  return eventually(what, attempt, timeoutMs, 200);
}

async function api(server: ServerProcess, key: string, path: string, init: RequestInit = {}) {
  return fetch(`${server.apiUrl}/api/v1${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    signal: AbortSignal.timeout(30_000),
  });
}

/** Starts come slowly on a busy 2-core machine (14 s seen): longer than the helper's own 20 s cap allows for. */
async function startHealthy(options: Parameters<typeof startServerProcess>[0]): Promise<ServerProcess> {
  const server = await startServerProcess(options);
  await until('the server to answer /healthz', 120_000, async () => {
    if (server.exitCode !== null) assert.fail(`the server exited:\n${server.stderr.slice(-2000)}`);
    return (await healthz(server)) === 200 ? true : undefined;
  });
  return server;
}

async function healthz(server: ServerProcess): Promise<number | 'no answer'> {
  try {
    const res = await fetch(`${server.apiUrl}/healthz`, { signal: AbortSignal.timeout(30_000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 'no answer';
  }
}

interface Scenario {
  server: ServerProcess;
  key: string;
  sandboxId: string;
  /** The directory on the small disk whose filling the server must survive. */
  disk: string;
  /** The words every refusal must use. */
  cause: RegExp;
}

/**
 * Load, fill, refusals naming `cause`, /healthz and reads while full, recovery without a restart once the filler
 * is deleted; returns the load with every outcome.
 */
async function fillUnderLoad({ server, key, sandboxId, disk, cause }: Scenario): Promise<Load> {
  const load = startLoad({
    capturePort: server.ports.capture,
    smtpInboundPort: server.ports.smtpInbound,
    sandboxId,
  });
  await until('captures and mail acknowledged before the disk fills', 60_000, async () =>
    load.captures.some((c) => c.status === 200) && load.mails.some((m) => m.ok) ? true : undefined,
  );
  const filler = join(disk, 'filler');
  const refusedSince = (from: number) => () =>
    load.captures.slice(from).some((c) => c.status === 503) ||
    load.mails.slice(from).some((m) => m.responseCode === 451);
  const filled = await fill(disk, filler, refusedSince(load.captures.length));
  assert.ok(filled > 0, 'the filler took no space: the disk was full before the test filled it');

  // Refusals that name the cause, on both doors.
  const capture = await until('a capture refused for the full disk', 90_000, async () => {
    const got = await sendOneCapture(server.ports.capture, sandboxId, '/while-full');
    return got.status === 503 ? got : undefined;
  });
  assert.match(capture.contentType ?? '', /application\/problem\+json/);
  assert.match(capture.retryAfter ?? '', /^\d+$/);
  const problem = JSON.parse(capture.body ?? '{}') as { type: string; detail: string };
  assert.equal(problem.type, 'urn:sandtrap:problem:unavailable');
  assert.match(problem.detail, cause);
  const mailer = inboundMailer(server.ports.smtpInbound);
  const mail = await until('a mail refused for the full disk', 90_000, async () => {
    const got = await sendOneMail(mailer, sandboxId, 'while full');
    return got.responseCode === 451 ? got : undefined;
  });
  assert.match(mail.response ?? '', /4\.3\.0/);
  assert.match(mail.response ?? '', cause);

  // The process answers while full: /healthz, and reads (after a recovery from the WAL, on the embedded store).
  assert.equal(await healthz(server), 200);
  const read = await until('a read answered while the disk is full', 90_000, async () => {
    const res = await api(server, key, `/sandboxes/${sandboxId}/requests?limit=1`);
    await res.arrayBuffer();
    return res.status === 200 ? res.status : undefined;
  });
  assert.equal(read, 200);
  const stillRefused = await sendOneCapture(server.ports.capture, sandboxId, '/still-full');
  assert.equal(stillRefused.status, 503, 'a write was taken while the filler still fills the disk');
  assert.equal(await healthz(server), 200);
  const logged = server.logs().map((l) => String(l.msg));
  assert.ok(
    logged.some((m) => cause.test(m)),
    `no log line names the cause:\n${logged.slice(-20).join('\n')}`,
  );
  assert.deepEqual(
    logged.filter((m) => /unreachable/i.test(m)),
    [],
    'a full disk was logged as the database being unreachable',
  );

  // Space returns: writes are taken again by the same process.
  await rm(filler);
  await until('a capture acknowledged once the filler is deleted', 90_000, async () => {
    const got = await sendOneCapture(server.ports.capture, sandboxId, '/after-full');
    return got.status === 200 ? true : undefined;
  });
  await until('a mail acknowledged once the filler is deleted', 90_000, async () => {
    const got = await sendOneMail(mailer, sandboxId, 'after full');
    return got.ok ? true : undefined;
  });
  mailer.close();
  await sleep(500); // the load's own sends succeed again too
  await load.stop();
  assert.equal(server.exitCode, null, `the server exited:\n${server.stderr.slice(-2000)}`);
  assert.equal(server.child.signalCode, null);

  // Every answer was an acknowledgement or a clean refusal: never a reset, a timeout or a 500.
  assert.deepEqual(
    load.captures.filter((c) => c.status !== 200 && c.status !== 503).map((c) => c.status),
    [],
  );
  assert.deepEqual(
    load.mails.filter((m) => !m.ok && m.responseCode !== 451).map((m) => m.response),
    [],
  );
  assert.ok(
    load.captures.some((c) => c.status === 503 && cause.test(c.body ?? '')),
    'the load saw no refusal naming the cause',
  );
  return load;
}

/** What happened, for the test's output: counts of each outcome and the store's own account. */
function summary(server: ServerProcess, load: Load): string {
  const count = <T>(items: T[], pick: (item: T) => string) => {
    const counts = new Map<string, number>();
    for (const item of items) counts.set(pick(item), (counts.get(pick(item)) ?? 0) + 1);
    return JSON.stringify(Object.fromEntries(counts));
  };
  const store = server
    .logs()
    .filter(
      (l) => l.level !== undefined && Number(l.level) >= 30 && /store|writes resumed/.test(String(l.msg)),
    )
    .map((l) => `  ${String(l.msg)}`);
  return [
    `captures ${count(load.captures, (c) => String(c.status))}`,
    `mails ${count(load.mails, (m) => (m.ok ? '250' : String(m.responseCode)))}`,
    ...new Set(store),
  ].join('\n');
}

/** Every capture and mail the load got acknowledged is readable from `server`. */
async function assertNothingLost(server: ServerProcess, key: string, sandboxId: string, load: Load) {
  const ackedCaptures = load.captures.filter((c) => c.status === 200).map((c) => c.id as string);
  const ackedMails = load.mails.filter((m) => m.ok).map((m) => m.id as string);
  assert.ok(ackedCaptures.length > 0 && ackedMails.length > 0, 'nothing was acknowledged');
  const requests = await allIds(server.apiUrl, key, `/sandboxes/${sandboxId}/requests`);
  const messages = await allIds(server.apiUrl, key, `/sandboxes/${sandboxId}/messages`);
  const lostCaptures = ackedCaptures.filter((id) => !requests.has(id));
  const lostMails = ackedMails.filter((id) => !messages.has(id));
  assert.deepEqual(lostCaptures, [], `${lostCaptures.length} of ${ackedCaptures.length} captures lost`);
  assert.deepEqual(lostMails, [], `${lostMails.length} of ${ackedMails.length} mails lost`);
}

async function newSandbox(server: ServerProcess, key: string): Promise<string> {
  const created = await api(server, key, '/sandboxes', {
    method: 'POST',
    body: JSON.stringify({ name: 'disk full' }),
  });
  assert.equal(created.status, 201);
  return ((await created.json()) as { id: string }).id;
}

describe('a disk that fills under load', () => {
  let pgc: PrivatePostgres | undefined;
  after(async () => {
    await stopLoads();
    await cleanupProcesses();
    await pgc?.destroy();
    unmountAll();
  });

  test(
    'embedded store: refusals name "disk full in DATA_DIR", reads and /healthz answer, writes resume when space returns',
    { timeout: 600_000 },
    async (t: TestContext) => {
      const mounted = mountTmpfs(128);
      if ('skip' in mounted) return t.skip(mounted.skip);
      const dataDir = join(mounted.dir, 'data');
      const key = (await runCli(['keys', 'generate'])).stdout.trim();
      const env = { BOOTSTRAP_API_KEY: key, RATE_LIMITS: 'off' };
      const server = await startHealthy({ dataDir, env });
      const sandboxId = await newSandbox(server, key);

      const load = await fillUnderLoad({
        server,
        key,
        sandboxId,
        disk: mounted.dir,
        cause: /disk full in DATA_DIR/i,
      });
      t.diagnostic(summary(server, load));
      await assertNothingLost(server, key, sandboxId, load);

      // And after a restart on the same data.
      assert.equal(await server.stop('SIGTERM', 20_000), 0);
      const restarted = await startHealthy({ dataDir, env });
      await assertNothingLost(restarted, key, sandboxId, load);
      assert.equal(await restarted.stop('SIGTERM', 20_000), 0);
    },
  );

  test(
    'embedded store: postgres PANICs on a WAL segment it cannot create; a new instance recovers, nothing hangs',
    { timeout: 600_000 },
    async (t: TestContext) => {
      // What the loaded case hits when the WAL, not a table, needs the space: the commit's XLogFlush cannot create
      // the next 16 MB segment, inside a critical section, so postgres PANICs. Before the fix the next commit spun
      // for ever. Here the segment switch is forced, so the PANIC comes on the very next commit.
      const mounted = mountTmpfs(128);
      if ('skip' in mounted) return t.skip(mounted.skip);
      const store = await openStoreInWorker(join(mounted.dir, 'data'));
      try {
        const ok = (r: StatementResult) => {
          if (!r.ok) assert.fail(`${r.code}: ${r.message}`);
          return r.rows;
        };
        ok(await store.run('create table kept (n int primary key)'));
        for (let n = 1; n <= 20; n++) ok(await store.run(`insert into kept values (${n})`));
        const filler = join(mounted.dir, 'filler');
        writeFileSync(filler, Buffer.alloc(freeBytes(mounted.dir) - 8 * 1024 * 1024));
        ok(await store.run('select pg_switch_wal()'));

        const refused = await store.run('insert into kept values (1000)');
        assert.equal(refused.ok, false, 'a commit was taken with no room for its WAL segment');
        assert.equal(refused.code, 'unavailable');
        assert.match(refused.reason ?? '', /^disk full in DATA_DIR$/);
        // Reads come back once a new instance has recovered (on the room of the reserve it gave back).
        const counted = await until('a read answered on the full disk', 120_000, async () => {
          const r = await store.run('select count(*)::int as n from kept where n <= 20');
          return r.ok ? r.rows : undefined;
        });
        assert.deepEqual(counted, [{ n: 20 }]);
        const stillRefused = await store.run('insert into kept values (1001)');
        assert.equal(stillRefused.ok, false);
        assert.match(stillRefused.ok ? '' : (stillRefused.reason ?? ''), /disk full in DATA_DIR/);
        const said = store.events.map((e) => e.message);
        assert.ok(
          said.some((m) => /postgres stopped \(PANIC\) on disk full in DATA_DIR/.test(m)),
          said.join('\n'),
        );
        assert.ok(
          said.some((m) => /recovered from its WAL/.test(m)),
          said.join('\n'),
        );

        rmSync(filler);
        await until('a write taken once the filler is deleted', 120_000, async () => {
          const r = await store.run('insert into kept values (2000)');
          return r.ok ? true : undefined;
        });
        ok(await store.run('insert into kept values (2001)'));
        assert.ok(said.length <= store.events.length);
        assert.ok(store.events.some((e) => /writes resumed/.test(e.message)));
        assert.deepEqual(
          ok(await store.run('select count(*)::int as n from kept where n <= 20 or n >= 2000')),
          [{ n: 22 }],
        );
      } finally {
        await store.close().catch(() => undefined);
      }
      // Everything acknowledged survives a reopen too.
      const reopened = await openStoreInWorker(join(mounted.dir, 'data'));
      try {
        const r = await reopened.run('select count(*)::int as n from kept where n <= 20 or n >= 2000');
        assert.deepEqual(r.ok ? r.rows : r, [{ n: 22 }]);
      } finally {
        await reopened.close().catch(() => undefined);
      }
    },
  );

  test(
    "PostgreSQL: SQLSTATE 53100 is refused naming the server's full disk, and writes resume when space returns",
    { timeout: 600_000 },
    async (t: TestContext) => {
      const mounted = mountTmpfs(24);
      if ('skip' in mounted) return t.skip(mounted.skip);
      // The private cluster runs as the postgres user, which must own a tablespace's directory.
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
      const tablespace = join(mounted.dir, 'tablespace');
      execFileSync('mkdir', [tablespace]);
      chownSync(tablespace, uid, gid);
      pgc = await startPrivatePostgres();
      const key = (await runCli(['keys', 'generate'])).stdout.trim();
      const env = { DATABASE_URL: pgc.url, BOOTSTRAP_API_KEY: key, RATE_LIMITS: 'off' };
      const server = await startHealthy({ env });
      // The captured rows go to the small disk; the WAL and everything else stay where the cluster is.
      const admin = new pg.Client({ connectionString: pgc.url });
      await admin.connect();
      try {
        await admin.query(`create tablespace small_disk location '${tablespace}'`);
        await admin.query('alter table requests set tablespace small_disk');
        await admin.query('alter table messages set tablespace small_disk');
      } finally {
        await admin.end();
      }
      const sandboxId = await newSandbox(server, key);

      const load = await fillUnderLoad({
        server,
        key,
        sandboxId,
        disk: mounted.dir,
        cause: /database server's disk is full/i,
      });
      t.diagnostic(summary(server, load));
      await assertNothingLost(server, key, sandboxId, load);
      assert.equal(await server.stop('SIGTERM', 20_000), 0);
      const restarted = await startHealthy({ env });
      await assertNothingLost(restarted, key, sandboxId, load);
      assert.equal(await restarted.stop('SIGTERM', 20_000), 0);
    },
  );
});
