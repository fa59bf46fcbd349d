// Where `sandtrap mcp --embedded` keeps its data when DATA_DIR is not set: the per-user data folder (XDG data
// dir on Linux), not `./data` in whatever folder the MCP host happens to start it; and the file there that tells
// a person how to reach the embedded server.
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import envPaths from 'env-paths';

/** The file beside the data that names the URLs and, from the first start on, the API key. */
export const CONNECTION_FILE = 'connection.txt';

/** `$XDG_DATA_HOME/sandtrap` or `~/.local/share/sandtrap` (macOS and Windows: their per-user data folders). */
export function defaultEmbeddedDataDir(): string {
  return envPaths('sandtrap', { suffix: '' }).data;
}

export interface EmbeddedEndpoints {
  dashboardUrl: string;
  apiUrl: string;
  mcpUrl: string;
  smtp: string;
  captureUrl: string;
}

const KEY_LINE = /^API key: (\S+)$/m;

/**
 * Writes the connection file (owner-only: it holds a key). The store keeps only a hash of the key, so a later
 * start carries the key forward from the file it wrote the first time.
 */
export async function writeConnectionFile(
  dataDir: string,
  endpoints: EmbeddedEndpoints,
  firstKey: string | undefined,
): Promise<{ path: string; key: string | undefined }> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, CONNECTION_FILE);
  const previous = await readFile(path, 'utf8').catch(() => '');
  const key = firstKey ?? KEY_LINE.exec(previous)?.[1];
  const lines = [
    '# sandtrap mcp --embedded: how to reach this server while the MCP host runs it.',
    `Data folder: ${dataDir}`,
    `Dashboard: ${endpoints.dashboardUrl}/ (sign in with the API key below)`,
    `API: ${endpoints.apiUrl}/api/v1 (docs at ${endpoints.apiUrl}/api-docs)`,
    `MCP over HTTP: ${endpoints.mcpUrl}`,
    `SMTP (STARTTLS, username = sandbox id): ${endpoints.smtp}`,
    `Capture: ${endpoints.captureUrl}/<sandbox id>/<path>`,
    key === undefined
      ? `API key: not known (the store predates this file); stop the MCP host, then DATA_DIR=${dataDir} sandtrap keys create`
      : `API key: ${key}`,
    '',
  ];
  await writeFile(path, lines.join('\n'), { mode: 0o600 });
  await chmod(path, 0o600);
  return { path, key };
}
