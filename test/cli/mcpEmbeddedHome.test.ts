// `sandtrap mcp --embedded` started by an MCP host in some arbitrary folder: with no DATA_DIR its data goes to
// the per-user data folder (XDG_DATA_HOME, else ~/.local/share/sandtrap), and the key and URLs reach stderr and
// a connection file there that still names the key on the next start.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { cleanupProcesses, freePorts, tempDir } from '../helpers/process.ts';
import { ok } from '../mcp/client.ts';
import { startStdio } from '../mcp/stdioClient.ts';

const T = { timeout: 180_000 };

/** Starts the embedded MCP server from `cwd` with `env` (and free ports), runs `work`, and closes it. */
async function withEmbedded(
  cwd: string,
  env: Record<string, string>,
  work: (client: Client, stderr: () => string) => Promise<void>,
): Promise<void> {
  const [api, smtp, capture] = (await freePorts(3)) as [number, number, number];
  const { client, stderr } = await startStdio(
    ['--embedded'],
    {
      ...env,
      API_PORT: String(api),
      SMTP_PORT: String(smtp),
      SMTP_INBOUND_PORT: '0',
      CAPTURE_PORT: String(capture),
    },
    { cwd, timeoutMs: 90_000 },
  );
  try {
    await work(client, stderr);
  } finally {
    await client.close();
  }
}

describe('sandtrap mcp --embedded finds its home', () => {
  after(() => cleanupProcesses());

  it('keeps its data in ~/.local/share/sandtrap, never in the folder it was started from', T, async () => {
    const home = tempDir('sandtrap-home-');
    const cwd = tempDir('sandtrap-host-cwd-');
    const dataDir = join(home, '.local', 'share', 'sandtrap');
    const connection = join(dataDir, 'connection.txt');
    let key = '';
    await withEmbedded(cwd, { HOME: home }, async (client, stderr) => {
      const sb = await ok(client, 'create_sandbox', { name: 'home test' });
      assert.ok(existsSync(join(dataDir, 'pgdata')), `the store is in ${dataDir}`);
      assert.ok(!existsSync(join(cwd, 'data')), 'nothing is written to the host folder');
      const text = readFileSync(connection, 'utf8');
      key = /^API key: (\S+)$/m.exec(text)?.[1] ?? '';
      assert.match(key, /^stk_/, `the file names the key:\n${text}`);
      assert.equal(statSync(connection).mode & 0o777, 0o600, 'the file holding a key is owner-only');
      const apiUrl = /^API: (\S+)\/api\/v1/m.exec(text)?.[1] ?? '';
      assert.match(stderr(), new RegExp(`API key ${key}`));
      assert.ok(stderr().includes(connection), 'stderr names the file');
      // The key in the file works against the embedded server's REST API.
      const res = await fetch(`${apiUrl}/api/v1/sandboxes/${sb.sandbox_id}`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      assert.equal(res.status, 200);
    });
    // A second start reuses the store and still names the first key (the store keeps only its hash).
    await withEmbedded(cwd, { HOME: home }, async (client) => {
      const listed = await ok(client, 'list_sandboxes', { query: 'home test' });
      assert.equal(listed.sandboxes.length, 1);
      assert.match(readFileSync(connection, 'utf8'), new RegExp(`^API key: ${key}$`, 'm'));
    });
  });

  it('follows XDG_DATA_HOME, and DATA_DIR still wins over both', T, async () => {
    const home = tempDir('sandtrap-home-');
    const xdg = tempDir('sandtrap-xdg-');
    await withEmbedded(home, { HOME: home, XDG_DATA_HOME: xdg }, async (client) => {
      await ok(client, 'create_sandbox', {});
      assert.ok(existsSync(join(xdg, 'sandtrap', 'connection.txt')));
    });
    const explicit = tempDir('sandtrap-explicit-');
    await withEmbedded(home, { HOME: home, XDG_DATA_HOME: xdg, DATA_DIR: explicit }, async (client) => {
      await ok(client, 'create_sandbox', {});
      assert.ok(existsSync(join(explicit, 'connection.txt')));
    });
  });
});
