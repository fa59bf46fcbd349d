// Builds the REST app on a test store, with helpers for workspaces and authenticated inject calls.
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import { loadConfig, type Config } from '../../src/core/config.ts';
import { createCore, type Core } from '../../src/core/core.ts';
import type { Store } from '../../src/core/store/openStore.ts';
import { buildApi } from '../../src/rest/app.ts';
import { testClock, type TestClock } from './clock.ts';

export interface TestWorkspace {
  key: string;
  orgId: string;
  /** inject with this workspace's key as a Bearer token. */
  call(opts: InjectOptions): Promise<LightMyRequestResponse>;
}

export interface TestApi {
  app: FastifyInstance;
  core: Core;
  clock: TestClock;
  config: Readonly<Config>;
  workspace(name?: string): Promise<TestWorkspace>;
  close(): Promise<void>;
}

export function testConfig(env: Record<string, string> = {}): Readonly<Config> {
  // REST suites make hundreds of calls from one key; the REST limits have their own test.
  return loadConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: '/nonexistent-test-dir',
    RATE_LIMIT_API_PER_KEY: '1000000',
    RATE_LIMIT_API_PER_IP: '1000000',
    OAUTH_REGISTRATIONS_PER_HOUR: '1000000',
    ...env,
  });
}

export async function createTestApi(store: Store, env: Record<string, string> = {}): Promise<TestApi> {
  const config = testConfig(env);
  const clock = testClock();
  const core = createCore({ store, config, clock });
  const app = await buildApi({ core, logger: pino({ level: 'silent' }) });
  await app.ready();
  let n = 0;
  return {
    app,
    core,
    clock,
    config,
    async workspace(name = `ws-${++n}`) {
      const { account, key } = await core.workspaces.create(name);
      return {
        key: key.key,
        orgId: account.orgId,
        call: (opts) =>
          app.inject({ ...opts, headers: { authorization: `Bearer ${key.key}`, ...(opts.headers ?? {}) } }),
      };
    },
    close: () => app.close(),
  };
}
