// `sandtrap mcp`: the MCP server over stdio, as a client of a running server (SANDTRAP_URL, SANDTRAP_API_KEY)
// or, with --embedded, with the whole service in-process on loopback ports.
import { createSandtrapClient } from '../client/index.ts';
import { loadConfig } from '../core/config.ts';
import { inProcessBackend, type McpBackend } from '../mcp/backend.ts';
import { remoteBackend } from '../mcp/remoteBackend.ts';
import { serveMcpOverStdio } from '../mcp/stdio.ts';
import { defaultEmbeddedDataDir, writeConnectionFile } from './embeddedHome.ts';
import { createLogger } from './logger.ts';
import { startServer } from './server.ts';
import { VERSION } from './version.ts';

export class McpUsageError extends Error {}

async function embeddedBackend(): Promise<{ backend: McpBackend; close: () => Promise<void> }> {
  const config = loadConfig({
    LOG_LEVEL: 'warn',
    DATA_DIR: defaultEmbeddedDataDir(),
    ...process.env,
    HOST: '127.0.0.1',
  });
  const logger = createLogger(config.logLevel);
  const server = await startServer(config, { logger });
  const apiUrl = `http://127.0.0.1:${server.ports.api}`;
  const { path, key } = await writeConnectionFile(
    config.dataDir,
    {
      dashboardUrl: server.core.endpoints.dashboardBaseUrl,
      apiUrl,
      mcpUrl: `${apiUrl}/mcp`,
      smtp: `127.0.0.1:${server.ports.smtp}`,
      captureUrl: `http://127.0.0.1:${server.ports.capture}`,
    },
    server.firstKey,
  );
  // stdout is the MCP protocol; people read stderr (most MCP hosts show it in their server log) and the file.
  process.stderr.write(
    `sandtrap mcp --embedded: data in ${config.dataDir}; API ${apiUrl}/api/v1, SMTP 127.0.0.1:${server.ports.smtp}, ` +
      `capture http://127.0.0.1:${server.ports.capture}; ${key === undefined ? 'API key not known' : `API key ${key}`} ` +
      `(also in ${path})\n`,
  );
  const workspace =
    (await server.core.workspaces.findBySubdomainOrId('default')) ?? (await server.core.workspaces.all())[0];
  if (workspace === undefined) throw new McpUsageError('The embedded store has no workspace.');
  return {
    backend: inProcessBackend(server.core, { workspaceId: workspace.orgId, keyId: 'embedded' }),
    close: () => server.close(),
  };
}

export async function runMcp(args: string[]): Promise<void> {
  const embedded = args.includes('--embedded');
  const unknown = args.filter((a) => a !== '--embedded');
  if (unknown.length > 0)
    throw new McpUsageError(`Unknown option ${unknown[0]}. Usage: sandtrap mcp [--embedded]`);
  let backend: McpBackend;
  let close = async () => {};
  if (embedded) ({ backend, close } = await embeddedBackend());
  else {
    const key = process.env.SANDTRAP_API_KEY;
    if (key === undefined || key === '') {
      throw new McpUsageError(
        'Set SANDTRAP_API_KEY (and SANDTRAP_URL if the server is not at http://127.0.0.1:8025), or run `sandtrap mcp --embedded`.',
      );
    }
    backend = remoteBackend(
      createSandtrapClient({ baseUrl: process.env.SANDTRAP_URL ?? 'http://127.0.0.1:8025', apiKey: key }),
    );
  }
  const handle = serveMcpOverStdio(backend, VERSION, (err) =>
    process.stderr.write(`sandtrap mcp: ${err.message}\n`),
  );
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await handle.close();
      await close();
      process.exit(0);
    })());
  process.stdin.once('end', () => void stop());
  // `on`: a terminal's Ctrl-C may arrive twice (directly and passed on by a wrapper); the second must not kill
  // the session before it has closed.
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}
