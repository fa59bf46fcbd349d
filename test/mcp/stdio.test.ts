// `sandtrap mcp` over stdio as real processes, driven by the v1 @modelcontextprotocol/sdk Client:
// --embedded (the whole service in the MCP process, on a fresh DATA_DIR and free ports), and the default
// mode as a client of a running `sandtrap serve` (SANDTRAP_URL, SANDTRAP_API_KEY). stdout must carry only
// protocol frames; the first-start key line and logs go to stderr.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import {
  cleanupProcesses,
  freePorts,
  NODE_BIN,
  REPO_ROOT,
  startServerProcess,
  tempDir,
  type ServerProcess,
} from '../helpers/process.ts';
import { capture, fails, ok, sendMail, TOOL_NAMES, UUID_RE, waitUntil } from './client.ts';
import { startStdio, type StdioSession } from './stdioClient.ts';
import { startWebhookReceiver } from '../helpers/webhookReceiver.ts';

const MAIN = join(REPO_ROOT, 'src', 'cli', 'main.ts');
const T = { timeout: 30_000 };

describe('sandtrap mcp --embedded over stdio', () => {
  let session: StdioSession | undefined;
  let smtpPort: number;

  before(async () => {
    const [api, smtp, capturePort] = (await freePorts(3)) as [number, number, number];
    smtpPort = smtp;
    session = await startStdio(['--embedded'], {
      DATA_DIR: tempDir('sandtrap-mcp-embedded-'),
      API_PORT: String(api),
      SMTP_PORT: String(smtp),
      SMTP_INBOUND_PORT: '0',
      CAPTURE_PORT: String(capturePort),
    });
  });

  after(async () => {
    await session?.client.close().catch(() => undefined);
    await cleanupProcesses();
  });

  const s = () => {
    if (session === undefined) throw new Error('no session');
    return session;
  };

  it('lists every tool and its instructions', T, async () => {
    const { tools } = await s().client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
    for (const tool of tools) assert.ok(tool.outputSchema !== undefined, `${tool.name} has an outputSchema`);
    assert.match(s().client.getInstructions() ?? '', /create_sandbox/);
  });

  it('creates a sandbox, receives mail on its SMTP port and returns it with its code', T, async () => {
    const { client } = s();
    const sb = await ok(client, 'create_sandbox', { name: 'stdio embedded' });
    assert.match(sb.sandbox_id, UUID_RE);
    assert.equal(sb.smtp.host, '127.0.0.1');
    assert.equal(sb.smtp.port, smtpPort);

    const pending = ok(client, 'wait_for_email', { sandbox_id: sb.sandbox_id, timeout_seconds: 15 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await sendMail(smtpPort, sb, {
      subject: 'Verify your email',
      text: 'Your verification code is 482913',
    });
    const result = await pending;
    assert.equal(result.status, 'received');
    assert.equal(result.email.subject, 'Verify your email');
    assert.equal(result.email.otp.code, '482913');

    const listed = await ok(client, 'list_emails', { sandbox_id: sb.sandbox_id });
    assert.deepEqual(
      listed.emails.map((e: any) => e.id),
      [result.email.id],
    );
    const missing = await fails(client, 'get_sandbox', { sandbox_id: randomUUID() });
    assert.match(missing, /^NOT_FOUND: /);
  });

  it('keeps stdout for protocol frames: the first-start key line goes to stderr', T, async () => {
    await waitUntil(() => /API key stk_\S+/.test(s().stderr()), 'the API key line on stderr');
    assert.deepEqual(
      s().errors.map((e) => e.message),
      [],
      'the client saw no error (no non-JSON line on stdout)',
    );
  });
});

describe('sandtrap mcp as a client of a running server', () => {
  let server: ServerProcess;
  let key: string;
  let session: StdioSession | undefined;

  before(async () => {
    server = await startServerProcess({ env: { LOG_LEVEL: 'warn' } });
    const line = await server.waitForLine(/^API key: /);
    key = line.replace(/^API key: /, '').trim();
    await server.waitHealthy();
    session = await startStdio([], { SANDTRAP_URL: server.apiUrl, SANDTRAP_API_KEY: key });
  });

  after(async () => {
    await session?.client.close().catch(() => undefined);
    await server?.stop().catch(() => undefined);
    await cleanupProcesses();
  });

  const s = () => {
    if (session === undefined) throw new Error('no session');
    return session;
  };

  it('creates a sandbox and waits for a request captured by the server', T, async () => {
    const { client } = s();
    const { tools } = await client.listTools();
    assert.equal(tools.length, TOOL_NAMES.length);
    const sb = await ok(client, 'create_sandbox', { name: 'stdio remote', tags: { mode: 'remote' } });
    assert.match(sb.sandbox_id, UUID_RE);
    assert.equal(sb.smtp.port, server.ports.smtp);
    assert.equal(sb.capture_url, `http://127.0.0.1:${server.ports.capture}/${sb.sandbox_id}`);
    assert.deepEqual(sb.tags, { mode: 'remote' });
    assert.equal(Date.parse(sb.expires_at) - Date.parse(sb.created_at), 60 * 60_000);

    // The server sees it through REST with the same key.
    const rest = await fetch(`${server.apiUrl}/api/v1/sandboxes/${sb.sandbox_id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(rest.status, 200);
    await rest.arrayBuffer();

    const pending = ok(client, 'wait_for_request', {
      sandbox_id: sb.sandbox_id,
      timeout_seconds: 15,
      method: 'POST',
      path_contains: '/hooks',
      include: ['json'],
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const sent = await capture(sb.capture_url, '/hooks/payment?id=7', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'paid', amount: 1999 }),
    });
    const result = await pending;
    assert.equal(result.status, 'received');
    assert.equal(result.request.id, sent.requestId);
    assert.equal(result.request.method, 'POST');
    assert.equal(result.request.path, '/hooks/payment');
    assert.deepEqual(result.request.json, { status: 'paid', amount: 1999 });

    const timeout = await ok(client, 'wait_for_request', {
      sandbox_id: sb.sandbox_id,
      timeout_seconds: 1,
      after: sent.requestId,
    });
    assert.equal(timeout.status, 'timeout');
    assert.equal(timeout.request, null);
  });

  it(
    "waits for a mock rule's callback through the server's REST wait, delivered or timed out",
    T,
    async () => {
      const { client } = s();
      const receiver = await startWebhookReceiver('/paid');
      try {
        const sb = await ok(client, 'create_sandbox', { name: 'stdio callbacks' });
        const set = await ok(client, 'set_mock_rules', {
          sandbox_id: sb.sandbox_id,
          rules: [
            {
              method: 'POST',
              pattern: '/pay/{id}',
              status_code: 202,
              callbacks: [
                {
                  url: receiver.url,
                  body: '{"type":"paid","data":{"id":"{{path.id}}"}}',
                  signing: { scheme: 'standard-webhooks' },
                },
              ],
            },
          ],
        });
        receiver.secret = set.mock_rules[0].callbacks[0].signing.secret;
        const sent = await capture(sb.capture_url, '/pay/9', { method: 'POST' });
        const got = await ok(client, 'wait_for_callback', {
          sandbox_id: sb.sandbox_id,
          request_id: sent.requestId,
          timeout_seconds: 20,
        });
        assert.equal(got.status, 'reached');
        assert.equal(got.callback.status, 'delivered');
        assert.equal(got.callback.request_id, sent.requestId);
        assert.deepEqual(
          receiver.received.map((r) => r.data.id),
          ['9'],
        );
        const none = await ok(client, 'wait_for_callback', {
          sandbox_id: sb.sandbox_id,
          rule_id: 'no-such-rule',
          timeout_seconds: 1,
        });
        assert.equal(none.status, 'timeout');
        assert.equal(none.callback, null);
        assert.match(none.hint, /No callback matches/);
      } finally {
        await receiver.close();
      }
    },
  );

  it('maps the server 404 of an unknown sandbox to an isError NOT_FOUND', T, async () => {
    const text = await fails(s().client, 'get_sandbox', { sandbox_id: randomUUID() });
    assert.match(text, /^NOT_FOUND: /);
    assert.match(text, /list_sandboxes|create_sandbox/);
    assert.deepEqual(
      s().errors.map((e) => e.message),
      [],
    );
  });

  it('exits with code 2 and names SANDTRAP_API_KEY when it is not set', T, async () => {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value !== undefined && !name.startsWith('SANDTRAP_')) env[name] = value;
    }
    env.SANDTRAP_URL = server.apiUrl;
    env.DATA_DIR = tempDir('sandtrap-mcp-nokey-');
    const outcome = await promisify(execFile)(NODE_BIN, [MAIN, 'mcp'], {
      cwd: REPO_ROOT,
      env,
      timeout: 15_000,
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (err: { code?: number; stdout?: string; stderr?: string; killed?: boolean }) => ({
        code: err.killed === true ? -1 : (err.code ?? -1),
        stdout: err.stdout ?? '',
        stderr: err.stderr ?? '',
      }),
    );
    assert.equal(outcome.code, 2, `exit code 2; stderr: ${outcome.stderr}`);
    assert.match(outcome.stderr, /SANDTRAP_API_KEY/);
    assert.equal(outcome.stdout, '', 'nothing on stdout');
  });
});
