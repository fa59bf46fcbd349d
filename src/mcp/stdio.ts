// MCP over stdio: stdout carries protocol frames only; everything else goes to stderr.
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { McpBackend } from './backend.ts';
import { buildMcpServer } from './server.ts';
import { TaskStore } from './tasks/index.ts';

export function serveMcpOverStdio(backend: McpBackend, version: string, onError: (err: Error) => void) {
  // One client, one process: the MCP tasks (2026-07-28 only) all belong to it.
  const taskStore = new TaskStore();
  return serveStdio(
    (ctx) =>
      buildMcpServer(() => backend, version, {
        tasks: ctx.era === 'modern' ? { store: taskStore, owner: 'stdio' } : undefined,
      }),
    { onerror: onError },
  );
}
