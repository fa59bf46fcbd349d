// Two real `sandtrap serve` processes on one fresh PostgreSQL database of their own (made from
// TEST_DATABASE_URL, dropped afterwards), for multi-instance tests: registers the suite's before/after hooks.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import pg from 'pg';
import { cleanupProcesses, runCli, startServerProcess, type ServerProcess } from './process.ts';

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

/** The `skip` option for a suite that needs PostgreSQL: a reason while TEST_DATABASE_URL is unset. */
export const needsPostgres: string | false =
  TEST_DATABASE_URL === undefined || TEST_DATABASE_URL === ''
    ? 'TEST_DATABASE_URL is unset (set it to a PostgreSQL URL, e.g. postgres://postgres@127.0.0.1:5432/test)'
    : false;

export interface TwoServers {
  a(): ServerProcess;
  b(): ServerProcess;
  /** The bootstrap API key both processes accept. */
  key(): string;
  /** A connection of the test's own to the fresh database, for what the API does not show. */
  db(): pg.Client;
}

/**
 * Before the suite: creates database `<prefix>_<random>`, generates a key with `sandtrap keys generate`, and
 * starts process A, then B (A migrates the fresh database and creates workspace "default" first), both with
 * DATABASE_URL, BOOTSTRAP_API_KEY and `env`. After it: stops both with SIGTERM and fails the suite if either
 * exits other than 0 or does not stop, then drops the database.
 */
export function useTwoServers(prefix: string, env: Record<string, string> = {}): TwoServers {
  const databaseName = `${prefix}_${randomBytes(6).toString('hex')}`;
  let admin: pg.Client | undefined;
  let db: pg.Client | undefined;
  let a: ServerProcess | undefined;
  let b: ServerProcess | undefined;
  let key: string | undefined;

  before(async () => {
    const baseUrl = TEST_DATABASE_URL ?? assert.fail('TEST_DATABASE_URL is unset');
    admin = new pg.Client({ connectionString: baseUrl, connectionTimeoutMillis: 5_000 });
    admin.on('error', () => undefined);
    await admin.connect();
    await admin.query(`CREATE DATABASE "${databaseName}"`);
    const url = new URL(baseUrl);
    url.pathname = `/${databaseName}`;
    // A Client, not a Pool: Client.end() resolves once the connection is closed, so the forced DROP in
    // `after` never terminates a connection this process still has open.
    db = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5_000 });
    db.on('error', () => undefined);
    await db.connect();

    const generated = await runCli(['keys', 'generate']);
    assert.equal(generated.code, 0, generated.stderr);
    key = generated.stdout.trim();
    assert.match(key, /^stk_\w+$/);

    const serverEnv = { ...env, DATABASE_URL: url.toString(), BOOTSTRAP_API_KEY: key };
    a = await startServerProcess({ env: serverEnv });
    await a.waitHealthy(20_000);
    b = await startServerProcess({ env: serverEnv });
    await b.waitHealthy(20_000);
  });

  after(async () => {
    const problems: string[] = [];
    for (const [name, server] of [
      ['A', a],
      ['B', b],
    ] as const) {
      if (server === undefined) continue;
      try {
        const code = await server.stop('SIGTERM', 15_000);
        if (code !== 0) problems.push(`process ${name} exited with ${code}:\n${server.stderr.slice(-2000)}`);
      } catch (err) {
        problems.push(`process ${name} did not stop on SIGTERM: ${String(err)}`);
      }
    }
    await db?.end().catch(() => undefined);
    if (admin !== undefined) {
      await admin
        .query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`)
        .catch((err: unknown) => problems.push(`could not drop ${databaseName}: ${String(err)}`));
      await admin.end().catch(() => undefined);
    }
    await cleanupProcesses();
    if (problems.length > 0) assert.fail(problems.join('\n'));
  });

  return {
    a: () => a ?? assert.fail('process A is not running'),
    b: () => b ?? assert.fail('process B is not running'),
    key: () => key ?? assert.fail('no API key yet: the suite has not started'),
    db: () => db ?? assert.fail('no database connection'),
  };
}
