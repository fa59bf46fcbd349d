// Browser-test harness: a real `sandtrap serve`, Debian's chromium driven by playwright-core, sign-in through the
// dashboard, real SMTP sends and captures, request recording, axe-core checks and screenshots under test-results/.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { SendMailOptions } from 'nodemailer';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import type { components } from '../../openapi/schema.d.ts';
import { sandboxTransport } from '../helpers/mail.ts';
import {
  cleanupProcesses,
  NODE_BIN,
  REPO_ROOT,
  startServerProcess,
  tempDir,
  type ServerProcess,
} from '../helpers/process.ts';

export type Sandbox = components['schemas']['Sandbox'];

/** Debian's chromium: the project never downloads a browser (`.ci/run` installs this package when missing). */
export const CHROMIUM_PATH = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
export const RESULTS_DIR = join(REPO_ROOT, 'test-results');
const KEY_LINE = /^API key: (stk_[0-9A-Za-z]{38})$/;

export async function launchBrowser(): Promise<Browser> {
  assert.ok(
    existsSync(CHROMIUM_PATH),
    `${CHROMIUM_PATH} is missing: install Debian's chromium (apt-get install -y chromium)`,
  );
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

let built = false;

/**
 * Builds the dashboard from the current sources once per test process, so the tests never judge a stale
 * dist/web (npm ci builds it too; this keeps `npm run test:browser` right after an edit).
 */
export function buildDashboard(): void {
  if (built) return;
  const script = join(REPO_ROOT, 'scripts', 'build-web.ts');
  assert.ok(existsSync(script), 'scripts/build-web.ts is missing: the dashboard cannot be built');
  const run = spawnSync(NODE_BIN, [script], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 0, `npm run build:web failed:\n${run.stdout}\n${run.stderr}`);
  built = true;
}

export interface Harness {
  server: ServerProcess;
  browser: Browser;
  apiKey: string;
  /** The first API key of each workspace HarnessOptions.workspaces named, by name. */
  workspaceKeys: Record<string, string>;
  /** http://127.0.0.1:<API_PORT>, the dashboard's origin. */
  origin: string;
  /** fetch on /api/v1 with the API key (not the cookie). */
  api(path: string, init?: RequestInit): Promise<Response>;
  /** GET/POST JSON on /api/v1 with the key; asserts a 2xx answer. */
  json<T = any>(method: string, path: string, body?: unknown): Promise<T>;
  createSandbox(name: string, extra?: Record<string, unknown>): Promise<Sandbox>;
  /** Sends mail through the submission port, logged in as the sandbox (STARTTLS, test certificate), in order. */
  sendMail(sandbox: Sandbox, ...mails: SendMailOptions[]): Promise<void>;
  /** A capture through the capture listener: `path` is appended to the sandbox's capture URL. */
  capture(sandbox: Sandbox, path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Runs a `sandtrap` command to completion and returns its stdout. Not runCli: that one gives up after 20 s, and
 * on a busy 2-core machine opening, migrating and closing a fresh embedded store takes about that long.
 */
function cli(args: string[], env: Record<string, string>, dataDir: string): string {
  const inherited = { ...process.env };
  for (const name of ['DATABASE_URL', 'BOOTSTRAP_API_KEY', 'LOG_LEVEL']) delete inherited[name];
  const run = spawnSync(NODE_BIN, [join(REPO_ROOT, 'bin', 'sandtrap.js'), ...args], {
    cwd: REPO_ROOT,
    env: { ...inherited, ...env, DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 110_000,
  });
  assert.equal(run.status, 0, `sandtrap ${args.join(' ')} failed:\n${run.stdout}\n${run.stderr}`);
  return run.stdout;
}

export interface HarnessOptions {
  /** More workspaces besides "default", made with `sandtrap workspaces create` before the server starts. */
  workspaces?: string[];
  /** Extra environment for `sandtrap serve` and those commands (DATABASE_URL for PostgreSQL). */
  env?: Record<string, string>;
}

/** Builds the dashboard, starts `sandtrap serve` on a fresh store (embedded unless env says) and chromium. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  buildDashboard();
  // The dashboard's own calls, the tests' polling and bulk sends are not what the rate limits guard against.
  const env = { RATE_LIMITS: 'off', ...options.env };
  const workspaceKeys: Record<string, string> = {};
  let server: ServerProcess;
  let apiKey: string;
  if ((options.workspaces ?? []).length === 0) {
    server = await startServerProcess({ env });
    const line = await server.waitForLine(/^API key: /, 20_000);
    apiKey = KEY_LINE.exec(line)?.[1] ?? assert.fail(`malformed key line: ${line}`);
  } else {
    // With other workspaces made first, the server would print no key of its own: "default" gets one
    // generated here (BOOTSTRAP_API_KEY), as a deployment would.
    const dataDir = tempDir();
    apiKey = cli(['keys', 'generate'], env, dataDir).trim();
    for (const name of options.workspaces ?? []) {
      const out = cli(['workspaces', 'create', name], env, dataDir);
      const line = out.split('\n').find((l) => KEY_LINE.test(l)) ?? '';
      workspaceKeys[name] = KEY_LINE.exec(line)?.[1] ?? assert.fail(`no key line: ${out}`);
    }
    server = await startServerProcess({ dataDir, env: { ...env, BOOTSTRAP_API_KEY: apiKey } });
  }
  // A fresh store took 31 s to start at a load average of 20 on this 2-core machine; waitHealthy rejects at
  // once if the process exits.
  await server.waitHealthy(100_000);
  const browser = await launchBrowser();
  const origin = server.apiUrl;

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${origin}/api/v1${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(init.headers as Record<string, string> | undefined),
      },
    });
  const json = async (method: string, path: string, body?: unknown) => {
    const res = await api(path, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    assert.ok(res.ok, `${method} ${path} answered ${res.status}: ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  };

  return {
    server,
    browser,
    apiKey,
    workspaceKeys,
    origin,
    api,
    json,
    createSandbox: (name, extra = {}) => json('POST', '/sandboxes', { name, ...extra }),
    async sendMail(sandbox, ...mails) {
      const transport = sandboxTransport(server.ports.smtp, sandbox, { pool: true, maxMessages: Infinity });
      try {
        for (const mail of mails) {
          await transport.sendMail({ from: 'app@example.com', to: sandbox.emailAddress, ...mail });
        }
      } finally {
        transport.close();
      }
    },
    capture: (sandbox, path, init) => fetch(`${sandbox.captureUrl.replace(/\/$/, '')}${path}`, init),
    async close() {
      await browser.close().catch(() => undefined);
      await server.stop().catch(() => undefined);
    },
  };
}

/**
 * Registers the suite's before hook (startHarness) and after hook (close, then any leftover processes), and
 * returns a Harness that reads through to the running one, so tests and later hooks use it as they would the
 * harness itself. Hooks the suite registers after this call run with the harness already started.
 */
export function useDashboard(options: HarnessOptions = {}): Harness {
  let current: Harness | undefined;
  const live = () => current ?? assert.fail('the dashboard is not started: use it inside a test or hook');
  before(async () => {
    current = await startHarness(options);
  });
  after(async () => {
    await current?.close();
    current = undefined;
    await cleanupProcesses();
  });
  return {
    get server() {
      return live().server;
    },
    get browser() {
      return live().browser;
    },
    get apiKey() {
      return live().apiKey;
    },
    get workspaceKeys() {
      return live().workspaceKeys;
    },
    get origin() {
      return live().origin;
    },
    api: (path, init) => live().api(path, init),
    json: (method, path, body) => live().json(method, path, body),
    createSandbox: (name, extra) => live().createSandbox(name, extra),
    sendMail: (sandbox, ...mails) => live().sendMail(sandbox, ...mails),
    capture: (sandbox, path, init) => live().capture(sandbox, path, init),
    close: () => live().close(),
  };
}

export interface SignedIn {
  context: BrowserContext;
  page: Page;
  /** Every request the context made (pages, frames, popups, workers), in order. */
  requests: Request[];
  /** Texts of every dialog (alert, confirm, prompt) any page of the context opened. */
  dialogs: string[];
}

/** A fresh context whose every request and dialog is recorded; clipboard access granted for the origin. */
export async function newContext(
  h: Harness,
  options: Parameters<Browser['newContext']>[0] = {},
): Promise<Omit<SignedIn, 'page'> & { page: Page }> {
  const context = await h.browser.newContext(options);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.origin });
  const requests: Request[] = [];
  const dialogs: string[] = [];
  context.on('request', (req) => requests.push(req));
  const watch = (page: Page) => {
    page.on('dialog', (dialog) => {
      dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss().catch(() => undefined);
    });
  };
  context.on('page', watch);
  const page = await context.newPage();
  return { context, page, requests, dialogs };
}

/** Signs in through the dashboard's form with the API key and waits for the sandboxes page. */
export async function signIn(page: Page, h: Harness, key = h.apiKey): Promise<void> {
  await page.goto(h.origin + '/');
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Sandboxes', exact: true }).waitFor();
}

/** A new context with a signed-in page on the sandboxes list. */
export async function signedIn(
  h: Harness,
  options: Parameters<Browser['newContext']>[0] = {},
): Promise<SignedIn> {
  const session = await newContext(h, options);
  await signIn(session.page, h);
  return session;
}

/** Saves a full-page PNG as test-results/<name>.png for people to look at. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `${name}.png`);
  // A sticky header would be drawn mid-page in a full-page shot of a scrolled page.
  await page.evaluate(() => (globalThis as any).scrollTo(0, 0));
  await page.screenshot({ path, fullPage: true });
  return path;
}

let axeSource: string | undefined;

/**
 * Runs axe-core in the page (evaluated over the DevTools protocol, which the page's CSP does not govern) and
 * fails on serious or critical violations. Frames are left out: the only frame is captured mail, not our UI.
 */
export async function axe(page: Page, view: string): Promise<void> {
  axeSource ??= readFileSync(join(REPO_ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const g = globalThis as any;
    const result = await g.axe.run(g.document, { iframes: false, resultTypes: ['violations'] });
    return (result.violations as any[]).map((v) => ({
      id: v.id as string,
      impact: v.impact as string,
      help: v.help as string,
      targets: (v.nodes as any[]).slice(0, 5).map((n) => JSON.stringify(n.target)),
    }));
  });
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.targets.join(', ')}`),
    [],
    `axe-core on ${view}`,
  );
}

/** The suite's one poll helper (generous deadline; see test/helpers/poll.ts). */
export { eventually } from '../helpers/poll.ts';
