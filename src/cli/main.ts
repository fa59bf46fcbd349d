// The `sandtrap` command: serve, migrate, workspaces create, keys create, keys generate, export, import.
import { parseArgs } from 'node:util';
import { generateApiKey } from '../core/apiKeyFormat.ts';
import { ConfigError, loadConfig } from '../core/config.ts';
import { isAppError } from '../core/errors.ts';
import { createCore } from '../core/core.ts';
import { StoreLockedError } from '../core/store/lockFile.ts';
import { createLogger } from './logger.ts';
import { McpUsageError, runMcp } from './mcpCommand.ts';
import { BackupError } from './backup/format.ts';
import { runExport } from './backup/exportCommand.ts';
import { runImport } from './backup/importCommand.ts';
import { eventBusFor, ListenError, startServer, storeFor } from './server.ts';
import { startTracing } from './tracing.ts';

const USAGE = `Usage: sandtrap <command>

Commands:
  serve                          start the API, SMTP and capture listeners (same as npm start)
  mcp [--embedded]               MCP server over stdio: a client of a running server (SANDTRAP_URL,
                                 SANDTRAP_API_KEY), or with --embedded the whole service in-process
  migrate                        apply database migrations and exit
  workspaces create NAME         create a workspace and print its first API key
  keys create [--workspace W] [--label L] [--expires-in-days N]
                                 create an API key (W: subdomain or id; optional with one workspace)
  keys generate                  print a fresh, valid key for BOOTSTRAP_API_KEY (stores nothing)
  export --out PATH [--workspace W | --sandbox ID]
                                 write a workspace's (or one sandbox's) mail as .eml files and requests as
                                 HAR plus body files into a new folder, or into a .tar when PATH ends in .tar
  import PATH (--sandbox ID | --new-sandbox NAME [--workspace W])
                                 read an export (folder or .tar) back into a sandbox

Configuration comes from environment variables; see README.md.`;

class UsageError extends Error {}

async function serve(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel);
  // Before any listener: the first request's spans already go to the exporter.
  const tracing = await startTracing(config, logger);
  const server = await startServer(config, { logger });
  process.stdout.write(`Dashboard: ${server.core.endpoints.dashboardBaseUrl}/\n`);
  if (server.catchAll !== undefined && server.ports.smtpInbound !== null) {
    const smtpHost = ['0.0.0.0', '::'].includes(config.host) ? '127.0.0.1' : config.host;
    process.stdout.write(
      `Catch-all: mail sent to ${smtpHost}:${server.ports.smtpInbound} (no login, any address) lands in sandbox ` +
        `"${server.catchAll.name}" (${server.catchAll.sandboxId}); SMTP_CATCH_ALL=off turns it off\n`,
    );
  }
  if (server.firstKey !== undefined) {
    process.stdout.write(`API key: ${server.firstKey}\n`);
    process.stdout.write(
      'Keep it: it is shown only this once. Paste it into the dashboard to sign in, or try: curl -H "Authorization: Bearer <key>" ',
    );
    const host = ['0.0.0.0', '::'].includes(config.host) ? '127.0.0.1' : config.host;
    process.stdout.write(`http://${host}:${server.ports.api}/api/v1/whoami\n`);
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown took over 10 s; exiting anyway');
      process.exit(1);
    }, 10_000);
    force.unref();
    server
      .close()
      .then(() => tracing?.shutdown())
      .then(
        () => {
          logger.info('stopped');
          logger.flush();
          process.exitCode = 0;
        },
        (err: unknown) => {
          logger.error({ err }, 'error while shutting down');
          process.exitCode = 1;
        },
      );
  };
  // `on`, not `once`: Ctrl-C reaches the server twice (from the terminal, and passed on by `npm start` or the
  // Node hand-over in bin/sandtrap.js), and a second signal with no listener would kill it mid-shutdown.
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/**
 * Opens the store for a one-shot command; the embedded store refuses while a server holds its lock. With
 * `announce`, changes reach running servers' waits and streams (PostgreSQL's LISTEN/NOTIFY, as `serve` does).
 */
async function withCore<T>(
  fn: (core: ReturnType<typeof createCore>) => Promise<T>,
  options: { announce?: boolean } = {},
): Promise<T> {
  const config = loadConfig(process.env);
  const store = await storeFor(config);
  const bus = options.announce === true ? eventBusFor(config, createLogger(config.logLevel)) : undefined;
  try {
    await bus?.start(() => {});
    return await fn(createCore({ store, config, ...(bus === undefined ? {} : { bus }) }));
  } finally {
    await bus?.close();
    await store.close();
  }
}

function parseOptions<T extends Record<string, { type: 'string' }>>(
  args: string[],
  options: T,
  usage: string,
  positionals: number,
): { values: { [K in keyof T]?: string }; positionals: string[] } {
  try {
    const parsed = parseArgs({ args, options, allowPositionals: positionals > 0 });
    if (parsed.positionals.length !== positionals) {
      throw new Error(positionals === 0 ? 'takes no arguments besides its options' : 'takes one PATH');
    }
    return parsed as { values: { [K in keyof T]?: string }; positionals: string[] };
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${usage}`);
  }
}

const EXPORT_USAGE = 'Usage: sandtrap export --out PATH [--workspace W | --sandbox ID]';
const IMPORT_USAGE = 'Usage: sandtrap import PATH (--sandbox ID | --new-sandbox NAME [--workspace W])';

async function exportCommand(args: string[]): Promise<void> {
  const { values } = parseOptions(
    args,
    { out: { type: 'string' }, workspace: { type: 'string' }, sandbox: { type: 'string' } },
    EXPORT_USAGE,
    0,
  );
  if (values.out === undefined || values.out === '')
    throw new UsageError(`--out is required\n\n${EXPORT_USAGE}`);
  if (values.workspace !== undefined && values.sandbox !== undefined) {
    throw new UsageError(`Give --workspace or --sandbox, not both\n\n${EXPORT_USAGE}`);
  }
  const out = values.out;
  const summary = await withCore((core) =>
    runExport(core, { out, workspace: values.workspace, sandbox: values.sandbox }),
  );
  process.stdout.write(`${summary}\n`);
}

async function importCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseOptions(
    args,
    { sandbox: { type: 'string' }, 'new-sandbox': { type: 'string' }, workspace: { type: 'string' } },
    IMPORT_USAGE,
    1,
  );
  const newSandbox = values['new-sandbox']?.trim();
  if ((values.sandbox === undefined) === (newSandbox === undefined) || newSandbox === '') {
    throw new UsageError(`Give --sandbox ID or --new-sandbox NAME\n\n${IMPORT_USAGE}`);
  }
  if (values.sandbox !== undefined && values.workspace !== undefined) {
    throw new UsageError(`--workspace goes with --new-sandbox only\n\n${IMPORT_USAGE}`);
  }
  const from = positionals[0] as string;
  const summary = await withCore(
    (core) => runImport(core, { from, sandbox: values.sandbox, newSandbox, workspace: values.workspace }),
    { announce: true },
  );
  process.stdout.write(`${summary}\n`);
}

async function keysCreate(args: string[]): Promise<void> {
  let values: { workspace?: string; label?: string; 'expires-in-days'?: string };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        workspace: { type: 'string' },
        label: { type: 'string' },
        'expires-in-days': { type: 'string' },
      },
    }));
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${USAGE}`);
  }
  const days = values['expires-in-days'];
  if (days !== undefined && !/^\d+$/.test(days))
    throw new UsageError('--expires-in-days takes a whole number');
  await withCore(async (core) => {
    let ref = values.workspace;
    if (ref === undefined) {
      const all = await core.workspaces.all();
      if (all.length !== 1) {
        throw new UsageError(
          `There are ${all.length} workspaces; pick one with --workspace (${all.map((w) => w.subdomain).join(', ')})`,
        );
      }
      ref = (all[0] as { subdomain: string }).subdomain;
    }
    const workspace = await core.workspaces.findBySubdomainOrId(ref);
    if (workspace === undefined) throw new UsageError(`No workspace "${ref}"`);
    const key = await core.apiKeys.create(workspace.orgId, {
      label: values.label ?? 'cli',
      expiresInDays: days === undefined ? null : Number(days),
    });
    process.stdout.write(`API key: ${key.key}\n`);
  });
}

async function main(argv: string[]): Promise<void> {
  const [command, sub, ...rest] = argv;
  switch (command) {
    case undefined:
    case 'serve':
      return serve();
    case 'mcp':
      return runMcp(argv.slice(1));
    case 'migrate':
      return withCore(async () => {
        process.stdout.write('Database is up to date.\n');
      });
    case 'workspaces':
      if (sub !== 'create' || rest.length !== 1 || rest[0] === undefined || rest[0].trim() === '') {
        throw new UsageError('Usage: sandtrap workspaces create NAME');
      }
      return withCore(async (core) => {
        const { account, key } = await core.workspaces.create((rest[0] as string).trim());
        process.stdout.write(`Workspace: ${account.name} (${account.subdomain}, ${account.orgId})\n`);
        process.stdout.write(`API key: ${key.key}\n`);
      });
    case 'keys':
      if (sub === 'create') return keysCreate(rest);
      if (sub === 'generate') {
        process.stdout.write(`${generateApiKey()}\n`);
        return;
      }
      throw new UsageError('Usage: sandtrap keys create | keys generate');
    case 'export':
      return exportCommand(argv.slice(1));
    case 'import':
      return importCommand(argv.slice(1));
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return;
    default:
      throw new UsageError(`Unknown command "${command}".\n\n${USAGE}`);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (
    err instanceof UsageError ||
    err instanceof ConfigError ||
    err instanceof StoreLockedError ||
    err instanceof ListenError ||
    err instanceof McpUsageError ||
    err instanceof BackupError
  ) {
    process.stderr.write(`sandtrap: ${err.message}\n`);
    process.exitCode = 2;
    return;
  }
  if (isAppError(err)) {
    // A refusal of core (a sandbox gone meanwhile, the store refusing writes) says what it is in one line.
    process.stderr.write(`sandtrap: ${err.message}${err.reason === undefined ? '' : ` (${err.reason})`}\n`);
    process.exitCode = 1;
    return;
  }
  process.stderr.write(`sandtrap: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
