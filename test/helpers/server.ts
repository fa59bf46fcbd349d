// Starts the whole service in-process (API, SMTP submission and inbound, capture) on free loopback ports,
// on a given test store, for tests that drive the real listeners with real clients.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startServer, type RunningServer } from '../../src/cli/server.ts';
import { loadConfig } from '../../src/core/config.ts';
import type { Store } from '../../src/core/store/openStore.ts';
import { testClock, type TestClock } from './clock.ts';

export interface TestServer extends RunningServer {
  apiUrl: string;
  clock: TestClock;
  /** A fresh workspace: its key, and fetch helpers bound to it. */
  workspace(name?: string): Promise<TestServerWorkspace>;
}

export interface TestServerWorkspace {
  key: string;
  orgId: string;
  /** fetch against /api/v1 with this workspace's key; `path` starts with `/`. */
  api(path: string, init?: RequestInit): Promise<Response>;
  /** POST /sandboxes and return the created sandbox JSON. */
  createSandbox(body?: Record<string, unknown>): Promise<Record<string, any>>;
}

// One TLS pair for every test server: RSA key generation is slow and the pair is not under test.
const sharedDataDir = mkdtempSync(join(tmpdir(), 'sandtrap-test-'));
process.once('exit', () => rmSync(sharedDataDir, { recursive: true, force: true }));

export async function startTestServer(store: Store, env: Record<string, string> = {}): Promise<TestServer> {
  const config = loadConfig({
    HOST: '127.0.0.1',
    API_PORT: '0',
    SMTP_PORT: '0',
    SMTP_INBOUND_PORT: env.SMTP_INBOUND_PORT ?? '0',
    CAPTURE_PORT: '0',
    DATA_DIR: sharedDataDir,
    LOG_LEVEL: 'silent',
    // Suites make many API calls from one key and address; the REST limits have their own test.
    RATE_LIMIT_API_PER_KEY: '1000000',
    RATE_LIMIT_API_PER_IP: '1000000',
    // Probers (test/helpers/healthProber.ts) poll /healthz back to back while a test loads the server.
    RATE_LIMIT_HEALTHZ_PER_IP: '1000000',
    // Wait suites hold hundreds of connections from 127.0.0.1; the caps have their own tests.
    API_MAX_CONNECTIONS_PER_IP: '100000',
    // A closed SMTP session frees its place only once the server sees the close, which a busy machine delays.
    SMTP_MAX_CONNECTIONS_PER_IP: '100000',
    OAUTH_REGISTRATIONS_PER_HOUR: '1000000',
    // A catch-all would take the unknown recipients inbound suites expect refused; its own suite turns it on.
    SMTP_CATCH_ALL: 'off',
    ...env,
  });
  const clock = testClock();
  const running = await startServer(config, { logger: pino({ level: 'silent' }), store, clock });
  const apiUrl = `http://127.0.0.1:${running.ports.api}`;
  let n = 0;
  return {
    ...running,
    apiUrl,
    clock,
    async workspace(name = `ws-${++n}`) {
      const { account, key } = await running.core.workspaces.create(name);
      const api = (path: string, init: RequestInit = {}) =>
        fetch(`${apiUrl}/api/v1${path}`, {
          ...init,
          headers: {
            authorization: `Bearer ${key.key}`,
            ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...(init.headers as Record<string, string> | undefined),
          },
        });
      return {
        key: key.key,
        orgId: account.orgId,
        api,
        async createSandbox(body = { name: 'test' }) {
          const res = await api('/sandboxes', { method: 'POST', body: JSON.stringify(body) });
          if (res.status !== 201) throw new Error(`create sandbox: ${res.status} ${await res.text()}`);
          return (await res.json()) as Record<string, any>;
        },
      };
    },
  };
}
