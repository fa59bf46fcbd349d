// MCP over stdio: stdout carries protocol frames only; everything else goes to stderr.
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { McpBackend } from './backend.ts';
import { buildMcpServer } from './server.ts';

export function serveMcpOverStdio(backend: McpBackend, version: string, onError: (err: Error) => void) {
  return serveStdio(() => buildMcpServer(() => backend, version), { onerror: onError });
}
