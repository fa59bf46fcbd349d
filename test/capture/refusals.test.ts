// Refusals an ordinary client can read. Python's http.client sends the whole body before it reads the answer;
// if the capture listener closed while it was still sending, it would see a connection reset instead of the
// 413 or 429. And requests the HTTP parser refuses on the API listener are answered as problem+json with an
// X-Request-Id, never Node's bare text.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { openStore, type Store } from '../../src/core/store/openStore.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const run = promisify(execFile);
const MB = 1024 * 1024;

// Sends `size` bytes (declared with Content-Length, or chunked) in full, then reads the answer.
const PY_SENDER = `
import http.client, json, sys
port, path, size, chunked = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4] == 'chunked'
conn = http.client.HTTPConnection('127.0.0.1', port, timeout=30)
body = b'x' * size
try:
    if chunked:
        conn.request('POST', path, body=iter([body[i:i + 65536] for i in range(0, size, 65536)]),
                     headers={'Content-Type': 'application/octet-stream'}, encode_chunked=True)
    else:
        conn.request('POST', path, body=body, headers={'Content-Type': 'application/octet-stream'})
    res = conn.getresponse()
    print(json.dumps({'status': res.status, 'headers': dict(res.getheaders()), 'body': res.read().decode()}))
except Exception as e:
    print(json.dumps({'error': type(e).__name__ + ': ' + str(e)}))
`;

interface PyAnswer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  error?: string;
}

async function pythonSend(port: number, path: string, size: number, chunked = false): Promise<PyAnswer> {
  const { stdout } = await run(
    'python3',
    ['-c', PY_SENDER, String(port), path, String(size), chunked ? 'chunked' : 'length'],
    {
      timeout: 60_000,
      maxBuffer: 4 * MB,
    },
  );
  return JSON.parse(stdout) as PyAnswer;
}

/** Raw bytes to the API listener; the whole answer once the server closes (or after 3 s). */
function rawExchange(port: number, bytes: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (answer += d));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    setTimeout(() => socket.destroy(), 3_000);
  });
}

function parseAnswer(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

describe('refusals an ordinary client can read', () => {
  let store: Store;
  let server: TestServer;
  let sandboxId: string;

  before(async () => {
    store = await openStore({ kind: 'pglite', dataDir: undefined });
    server = await startTestServer(store, { RATE_LIMIT_CAPTURE_PER_IP: '3' });
    const ws = await server.workspace();
    sandboxId = (await ws.createSandbox({ name: 'refusals' })).id as string;
  });
  after(async () => {
    await server.close();
    await store.close();
  });

  it('a 6 MB body sent whole by http.client gets the 413 problem, not a reset', async () => {
    const got = await pythonSend(server.ports.capture, `/${sandboxId}/big`, 6 * MB);
    assert.equal(got.error, undefined, got.error);
    assert.equal(got.status, 413);
    assert.match(got.headers?.['Content-Type'] ?? '', /application\/problem\+json/);
    assert.match(JSON.parse(got.body ?? '{}').detail as string, /over 5 MB/);
  });

  it('a chunked body that passes 5 MB while being sent gets the 413 problem, not a reset', async () => {
    const got = await pythonSend(server.ports.capture, `/${sandboxId}/big-chunked`, 7 * MB, true);
    assert.equal(got.error, undefined, got.error);
    assert.equal(got.status, 413);
  });

  it('over the rate limit with a 2 MB body, http.client reads the 429 and its Retry-After', async () => {
    let last: PyAnswer = {};
    for (let i = 0; i < 5; i++) {
      last = await pythonSend(server.ports.capture, `/${sandboxId}/limited`, 2 * MB);
      assert.equal(last.error, undefined, last.error);
      if (last.status === 429) break;
    }
    assert.equal(last.status, 429);
    assert.match(last.headers?.['Retry-After'] ?? '', /^\d+$/);
  });

  it('raw non-ASCII bytes in an API URL: 400 problem+json with X-Request-Id that says to percent-encode', async () => {
    const raw = await rawExchange(
      server.ports.api,
      Buffer.from('GET /api/v1/sandboxes?q=café HTTP/1.1\r\nHost: x\r\n\r\n', 'utf8'),
    );
    const answer = parseAnswer(raw);
    assert.equal(answer.status, 400, raw);
    assert.match(answer.headers['content-type'] ?? '', /^application\/problem\+json/);
    const requestId = answer.headers['x-request-id'];
    assert.ok(requestId);
    const body = JSON.parse(answer.body) as {
      type: string;
      status: number;
      detail: string;
      requestId: string;
    };
    assert.equal(body.type, 'urn:sandtrap:problem:validation-error');
    assert.equal(body.status, 400);
    assert.equal(body.requestId, requestId);
    assert.match(body.detail, /percent-encode/);
  });

  it('oversized headers on the API listener: 431 problem+json', async () => {
    const raw = await rawExchange(
      server.ports.api,
      Buffer.from(`GET /api/v1/whoami HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`),
    );
    const answer = parseAnswer(raw);
    assert.equal(answer.status, 431, raw.slice(0, 300));
    const body = JSON.parse(answer.body) as { type: string; status: number; requestId: string };
    assert.equal(body.status, 431);
    assert.equal(body.type, 'urn:sandtrap:problem:payload-too-large');
    assert.equal(body.requestId, answer.headers['x-request-id']);
  });

  it('garbage instead of a request line: 400 problem+json, never a bare {"error":"Bad Request"}', async () => {
    const raw = await rawExchange(server.ports.api, Buffer.from('HELLO THERE\r\n\r\n'));
    const answer = parseAnswer(raw);
    assert.equal(answer.status, 400);
    assert.match(answer.headers['content-type'] ?? '', /^application\/problem\+json/);
    assert.doesNotMatch(answer.body, /"error":"Bad Request"/);
    assert.ok(answer.headers['x-request-id']);
  });
});
