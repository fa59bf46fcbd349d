// `sandtrap mcp ...args` as a real child process driven by the v1 MCP SDK client over stdio, with its stderr kept
// for assertions and failure messages.
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { NODE_BIN, REPO_ROOT } from '../helpers/process.ts';

const MAIN = join(REPO_ROOT, 'src', 'cli', 'main.ts');

export interface StdioSession {
  client: Client;
  transport: StdioClientTransport;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** Errors the client reported (a non-JSON stdout line would land here). */
  errors: Error[];
}

/** Spawns `sandtrap mcp ...args` with exactly `env` (plus the SDK's default PATH/HOME) in `cwd`, and connects. */
export async function startStdio(
  args: string[],
  env: Record<string, string>,
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<StdioSession> {
  const transport = new StdioClientTransport({
    command: NODE_BIN,
    args: [MAIN, 'mcp', ...args],
    env,
    stderr: 'pipe',
    cwd: options.cwd ?? REPO_ROOT,
  });
  let stderrText = '';
  const stderr = transport.stderr as Readable | null;
  stderr?.setEncoding('utf8');
  stderr?.on('data', (chunk: string) => (stderrText += chunk));
  const errors: Error[] = [];
  const client = new Client({ name: 'sandtrap-stdio-test', version: '1.0.0' });
  client.onerror = (err) => errors.push(err);
  try {
    await client.connect(transport, { timeout: options.timeoutMs ?? 20_000 });
  } catch (err) {
    await client.close().catch(() => undefined);
    throw new Error(`sandtrap mcp ${args.join(' ')} did not start: ${String(err)}\nstderr:\n${stderrText}`);
  }
  return { client, transport, stderr: () => stderrText, errors };
}
