// Property-based fuzzing of the capture listener over raw sockets (fast-check, fixed seeds, bounded runs):
// bodies nested thousands of levels (in and out of strings, compressed or not, read by templates), compressed
// bodies with stacked, unknown, lying or corrupted codings, header floods up to and past the header limit,
// senders that trickle their bytes, and random regex rules built from nested counted repetitions run against
// long paths. Whatever arrives: the sender gets an answer that is never a 503 or an unexplained 500, what was
// recorded reads back through the API (never a 500), another sandbox's sender is served meanwhile, and
// /healthz, probed from another thread all along, keeps answering 200 (how fast is a row of
// bench/hostileCapture.ts: a busy machine would fail a bound here).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, it } from 'node:test';
import { brotliCompressSync, constants, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { components } from '../../openapi/schema.d.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { healthProber } from '../helpers/healthProber.ts';
import { describeEachStore } from '../helpers/stores.ts';

type Detail = components['schemas']['RequestDetail'];
type Sandbox = Record<string, any>;

const SEED = 0x15_f022;
const MAX_JSON_DEPTH = 100;
const MAX_REGEX_PATH = 2048;

// ---------------------------------------------------------------------------------------------------------
// /healthz, probed from a worker thread: its clock and event loop are not the server's.

/** Runs `fn` while /healthz is probed; every probe must answer 200. */
async function probing(url: string, what: string, fn: () => Promise<void>): Promise<void> {
  const prober = healthProber(url);
  await prober.started;
  try {
    await fn();
  } finally {
    const probes = await prober.stop(performance.timeOrigin + performance.now());
    assert.ok(probes.length >= 2, `/healthz was probed during ${what}`);
    assert.ok(
      probes.every((p) => p.status === 200),
      `/healthz answered 200 throughout ${what}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------------
// A raw HTTP/1.1 client: bytes exactly as generated, written in pieces with pauses when asked.

interface RawReply {
  status: number;
  headers: Map<string, string>;
  body: Buffer;
}

/** Writes `pieces` (pausing `pauseMs` between them) and reads until the server closes; null if it said nothing. */
function exchange(port: number, pieces: Buffer[], pauseMs = 0): Promise<RawReply | null> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer within 15 s'));
    }, 15_000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {}); // a reset after the answer ends the exchange like a close
    socket.on('close', () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) return resolve(null);
      const lines = all.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
      const headers = new Map<string, string>();
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      resolve({ status, headers, body: all.subarray(end + 4) });
    });
    socket.on('connect', async () => {
      for (const [i, piece] of pieces.entries()) {
        if (socket.destroyed) return;
        if (i > 0 && pauseMs > 0) await sleep(pauseMs);
        socket.write(piece);
      }
    });
  });
}

function requestHead(
  target: string,
  headers: Array<[string, string]>,
  body: Buffer,
  framing: 'length' | 'chunked',
): string {
  const framingHeader: [string, string] =
    framing === 'length' ? ['Content-Length', String(body.length)] : ['Transfer-Encoding', 'chunked'];
  const lines = [['Host', '127.0.0.1'], ['Connection', 'close'], ...headers, framingHeader];
  return `POST ${target} HTTP/1.1\r\n${lines.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
}

/** The request split into `count` pieces (the body chunk-encoded piece by piece when `chunked`). */
function requestPieces(
  target: string,
  headers: Array<[string, string]>,
  body: Buffer,
  framing: 'length' | 'chunked',
  count = 1,
): Buffer[] {
  const head = Buffer.from(requestHead(target, headers, body, framing), 'latin1');
  const size = Math.ceil(body.length / count) || 1;
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; at += size) parts.push(body.subarray(at, at + size));
  if (framing === 'length') return [head, ...parts];
  const encoded = parts.map((p) =>
    Buffer.concat([Buffer.from(`${p.length.toString(16)}\r\n`), p, Buffer.from('\r\n')]),
  );
  encoded.push(Buffer.from('0\r\n\r\n'));
  return [head, ...encoded];
}

// ---------------------------------------------------------------------------------------------------------
// Generators

type Shape = 'array' | 'object' | 'mixed' | 'strings';

/** JSON nesting `depth` levels; `strings` hides extra brackets in string values, which never count. */
function nested(depth: number, shape: Shape): string {
  switch (shape) {
    case 'array':
      return `${'['.repeat(depth)}${']'.repeat(depth)}`;
    case 'object':
      return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    case 'mixed':
      return `${'{"a":['.repeat(Math.ceil(depth / 2))}0${']}'.repeat(Math.ceil(depth / 2))}`;
    case 'strings':
      return `${'{"s":"[{\\"[","a":'.repeat(depth)}null${'}'.repeat(depth)}`;
  }
}
const depthOf = (depth: number, shape: Shape) => (shape === 'mixed' ? 2 * Math.ceil(depth / 2) : depth);

type Coding = 'gzip' | 'deflate' | 'deflate-raw' | 'br';
function encode(coding: Coding, data: Buffer): Buffer {
  switch (coding) {
    case 'gzip':
      return gzipSync(data);
    case 'deflate':
      return deflateSync(data);
    case 'deflate-raw':
      return deflateRawSync(data);
    case 'br':
      // Quality 11 (the default) spends 100 ms on a few hundred KB, in this process, which serves too.
      return brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });
  }
}
const codingName = (c: Coding) => (c === 'deflate-raw' ? 'deflate' : c);

const deepJson = fc.record({
  depth: fc.oneof(fc.integer({ min: 1, max: 140 }), fc.integer({ min: 141, max: 20_000 })),
  shape: fc.constantFrom<Shape>('array', 'object', 'mixed', 'strings'),
  contentType: fc.constantFrom('application/json', 'application/problem+json', 'text/plain', null),
  codings: fc.array(fc.constantFrom<Coding>('gzip', 'deflate', 'deflate-raw', 'br'), { maxLength: 2 }),
  template: fc.boolean(),
});

const compressed = fc.record({
  payload: fc.oneof(
    fc.jsonValue({ maxDepth: 6 }).map((v) => Buffer.from(JSON.stringify(v) ?? 'null')),
    fc.uint8Array({ maxLength: 4096 }).map((a) => Buffer.from(a)),
    fc.string({ maxLength: 2000 }).map((s) => Buffer.from(s)),
  ),
  codings: fc.array(fc.constantFrom<Coding>('gzip', 'deflate', 'deflate-raw', 'br'), {
    minLength: 1,
    maxLength: 3,
  }),
  damage: fc.constantFrom('none', 'truncate', 'flip', 'lie', 'unknown'),
  at: fc.nat(),
});

const headerFlood = fc.record({
  count: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 300, max: 4000 })),
  valueLength: fc.integer({ min: 0, max: 80 }),
  nameSeed: fc.string({
    unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz-0123456789'),
    minLength: 1,
    maxLength: 12,
  }),
});

const slowSender = fc.record({
  pieces: fc.integer({ min: 4, max: 8 }),
  pauseMs: fc.integer({ min: 40, max: 80 }),
  framing: fc.constantFrom<'length' | 'chunked'>('length', 'chunked'),
  depth: fc.integer({ min: 1, max: 5000 }),
});

/** Regexes built from nested counted repetitions and the constructs that make RE2's programs big. */
const regexTree: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('a', 'b', '.', '.*', '[a-z]', '\\w', '[^/]', '(?:.*a)', '/', '\\pL', '(?i:A)'),
    fc.tuple(tie('node'), tie('node')).map(([x, y]) => `${x}${y}`),
    fc.tuple(tie('node'), tie('node')).map(([x, y]) => `(?:${x}|${y})`),
    fc
      .tuple(tie('node'), fc.integer({ min: 0, max: 40 }), fc.boolean())
      .map(([x, n, open]) => `(?:${x}){${n}${open ? ',' : ''}}`),
    fc
      .tuple(tie('node'), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 12 }))
      .map(([x, n, extra]) => `(${x}){${n},${n + extra}}`),
    tie('node').map((x) => `(?:${x})*`),
    tie('node').map((x) => `(${x})?`),
  ),
})).node;

/** The slowest shape RE2 has, sized around the program limit: every `.*` stays alive on a path of a's. */
const nearLimit = fc
  .tuple(fc.constantFrom('.*a', '.*a?', '[^b]*a', '(?:a|.)*a', '.*\\w'), fc.integer({ min: 10, max: 40 }))
  .map(([unit, n]) => `(?:${unit}){${n}}b`);

const regexRules = fc.record({
  patterns: fc.array(
    fc
      .oneof({ weight: 1, arbitrary: regexTree }, { weight: 2, arbitrary: nearLimit })
      .map((r) => `regex:/${r}`),
    { minLength: 1, maxLength: 20 },
  ),
  segmentRule: fc.boolean(),
  pathLength: fc.oneof(
    fc.integer({ min: 1, max: 300 }),
    { weight: 2, arbitrary: fc.integer({ min: 1900, max: 2048 }) },
    fc.integer({ min: 2049, max: 2300 }),
  ),
  filler: fc.oneof({ weight: 3, arbitrary: fc.constant('a') }, fc.constantFrom('ab', 'a/', 'xa')),
});

// ---------------------------------------------------------------------------------------------------------

describeEachStore('capture fuzz', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let victim: Sandbox;
  let bystander: Sandbox;

  before(async () => {
    server = await startTestServer({ ...getStore(), close: async () => {} }, { RATE_LIMITS: 'off' });
    ws = await server.workspace();
    victim = await ws.createSandbox({ name: 'victim' });
    bystander = await ws.createSandbox({ name: 'bystander' });
    await setMocks(victim, [
      {
        name: 'template',
        pattern: '/tpl/**',
        statusCode: 200,
        headers: { 'X-A': '[{{body.a}}]' },
        body: '{"a":{{body.a|json}},"s":{{body.s|json}},"len":"{{header.content-length}}"}',
      },
    ]);
    await setMocks(bystander, [{ name: 'ok', pattern: '/ping', statusCode: 200, body: 'pong' }]);
  });
  after(async () => {
    await server.close();
  });

  async function setMocks(sb: Sandbox, mocks: Array<Record<string, unknown>>): Promise<Response> {
    const res = await ws.api(`/sandboxes/${sb.id}/mocks`, { method: 'PUT', body: JSON.stringify({ mocks }) });
    return res;
  }

  const healthz = () => `${server.apiUrl}/healthz`;

  /** The answer to a capture: never a 503, never a 500 without the rule's X-Sandtrap-Error. */
  function assertAnswered(reply: RawReply | null, what: string): asserts reply is RawReply {
    assert.ok(reply !== null, `${what}: an answer`);
    assert.notEqual(reply.status, 503, `${what}: not "store unavailable"`);
    if (reply.status === 500) assert.ok(reply.headers.has('x-sandtrap-error'), `${what}: a 500 says why`);
  }

  async function detail(sb: Sandbox, id: string): Promise<Detail> {
    const res = await ws.api(`/sandboxes/${sb.id}/requests/${id}`);
    const text = await res.text();
    assert.equal(res.status, 200, `the detail reads back: ${text.slice(0, 300)}`);
    return JSON.parse(text) as Detail;
  }

  /** Another sandbox's sender is served meanwhile. */
  async function bystanderServed(): Promise<void> {
    const res = await fetch(`http://127.0.0.1:${server.ports.capture}/${bystander.id}/ping`, {
      signal: AbortSignal.timeout(30_000),
    });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'pong');
  }

  it('deep JSON, plain or compressed, read by templates or not, is answered, stored and read back', async () => {
    await probing(healthz(), 'deep JSON captures', () =>
      fc.assert(
        fc.asyncProperty(deepJson, async (g) => {
          const text = nested(g.depth, g.shape);
          let body: Buffer = Buffer.from(text);
          for (const c of g.codings) body = encode(c, body);
          const headers: Array<[string, string]> = [];
          if (g.contentType !== null) headers.push(['Content-Type', g.contentType]);
          if (g.codings.length > 0) headers.push(['Content-Encoding', g.codings.map(codingName).join(', ')]);
          const path = g.template ? '/tpl/x' : '/deep';
          const reply = await exchange(
            server.ports.capture,
            requestPieces(`/${victim.id}${path}`, headers, body, 'length'),
          );
          assertAnswered(reply, 'deep JSON');
          assert.equal(reply.status, 200, `answered ${reply.status}: ${reply.body.toString().slice(0, 200)}`);
          const tooDeep = depthOf(g.depth, g.shape) > MAX_JSON_DEPTH;
          if (g.template) {
            const sent = JSON.parse(reply.body.toString()) as { a: unknown };
            // Past the bound every body.* is missing: |json gives null.
            if (tooDeep) assert.equal(sent.a, null);
            else assert.deepEqual(sent.a, (JSON.parse(text) as { a?: unknown }).a ?? null);
          }
          const id = reply.headers.get('x-sandtrap-request-id') as string;
          const d = await detail(victim, id);
          assert.ok(d.body === text, 'the detail shows the decoded body as sent');
          if (tooDeep) {
            assert.equal(d.json, null);
            assert.match(d.bodyNote ?? '', /nests deeper than 100 levels/);
          } else {
            assert.deepEqual(d.json, JSON.parse(text));
            assert.doesNotMatch(d.bodyNote ?? '', /nests deeper/);
          }
          await bystanderServed();
        }),
        { seed: SEED, numRuns: 40, endOnFailure: true },
      ),
    );
    const wait = await ws.api(`/sandboxes/${victim.id}/requests/wait?timeoutSeconds=0`);
    assert.equal(wait.status, 200, 'an unfiltered wait still reads the newest capture');
  });

  it('compressed bodies with stacked, unknown, lying or damaged codings never break the capture or its detail', async () => {
    await probing(healthz(), 'compressed captures', () =>
      fc.assert(
        fc.asyncProperty(compressed, async (g) => {
          let body: Buffer = g.payload;
          for (const c of g.codings) body = encode(c, body);
          let names: string[] = g.codings.map(codingName);
          if (g.damage === 'truncate') body = body.subarray(0, g.at % Math.max(body.length, 1));
          if (g.damage === 'flip' && body.length > 0) {
            body = Buffer.from(body);
            const i = g.at % body.length;
            body[i] = (body[i] as number) ^ 0x5a;
          }
          if (g.damage === 'lie') body = g.payload;
          if (g.damage === 'unknown') names = [...names, 'x-sandtrap-unknown'];
          const headers: Array<[string, string]> = [['Content-Encoding', names.join(', ')]];
          const reply = await exchange(
            server.ports.capture,
            requestPieces(`/${victim.id}/gz`, headers, body, 'length'),
          );
          assertAnswered(reply, 'compressed');
          assert.equal(reply.status, 200);
          const d = await detail(victim, reply.headers.get('x-sandtrap-request-id') as string);
          const expected = body.length === 0 ? ['none'] : ['decoded', 'cut', 'failed'];
          assert.ok(expected.includes(d.bodyDecoding), d.bodyDecoding);
          if (g.damage === 'none') {
            assert.equal(d.bodyDecoding, 'decoded');
            const shown =
              d.body === null
                ? Buffer.alloc(0)
                : Buffer.from(d.body, d.bodyEncoding === 'utf8' ? 'utf8' : 'base64');
            assert.ok(shown.equals(g.payload), 'the detail shows the decoded payload');
          }
          if (g.damage === 'unknown') assert.equal(d.bodyDecoding, 'failed');
          assert.equal(d.sizeBytes, body.length, 'the size is of the bytes as sent');
        }),
        { seed: SEED + 1, numRuns: 40, endOnFailure: true },
      ),
    );
  });

  it('header floods up to and past the limit are answered or refused, and never stall the listener', async () => {
    await probing(healthz(), 'header floods', () =>
      fc.assert(
        fc.asyncProperty(headerFlood, async (g) => {
          const value = 'v'.repeat(g.valueLength);
          const headers: Array<[string, string]> = Array.from({ length: g.count }, (_, i) => [
            `x-${g.nameSeed}-${i % 97}`,
            value,
          ]);
          const reply = await exchange(
            server.ports.capture,
            requestPieces(`/${victim.id}/flood`, headers, Buffer.from('{}'), 'length'),
          );
          const headerBytes = headers.reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
          // Refused mid-send, the sender may see the reset before the refusal.
          // Node's parser refuses past 64 KB of header or about a thousand lines; anything smaller is captured.
          const flood = headerBytes > 32 * 1024 || g.count > 900;
          if (reply === null) {
            assert.ok(flood, `only a flood goes unanswered (${g.count} lines, ${headerBytes} bytes)`);
            return bystanderServed();
          }
          assertAnswered(reply, 'header flood');
          if (reply.status === 200) {
            const d = await detail(victim, reply.headers.get('x-sandtrap-request-id') as string);
            assert.ok(d.headers.length >= 3, 'the headers are recorded');
          } else {
            assert.ok([400, 431].includes(reply.status), `refused with ${reply.status}`);
            assert.ok(flood, `only a flood is refused (${g.count} lines, ${headerBytes} bytes)`);
          }
          await bystanderServed();
        }),
        { seed: SEED + 2, numRuns: 30, endOnFailure: true },
      ),
    );
  });

  it('a slow sender holds only its own connection: another sandbox is served while it trickles', async () => {
    await probing(healthz(), 'slow senders', () =>
      fc.assert(
        fc.asyncProperty(slowSender, async (g) => {
          const body = Buffer.from(nested(g.depth, 'array'));
          const pieces = requestPieces(
            `/${victim.id}/slow`,
            [['Content-Type', 'application/json']],
            body,
            g.framing,
            g.pieces,
          );
          let slowDone = false;
          const slow = exchange(server.ports.capture, pieces, g.pauseMs).then((r) => {
            slowDone = true;
            return r;
          });
          await sleep(g.pauseMs / 2);
          await bystanderServed();
          assert.equal(slowDone, false, 'the bystander was served while the slow sender was still sending');
          const reply = await slow;
          assertAnswered(reply, 'slow sender');
          assert.equal(reply.status, 200);
          const d = await detail(victim, reply.headers.get('x-sandtrap-request-id') as string);
          assert.equal(d.sizeBytes, body.length);
          assert.equal(d.json === null, g.depth > MAX_JSON_DEPTH);
        }),
        { seed: SEED + 3, numRuns: 8, endOnFailure: true },
      ),
    );
  });

  it('random heavy regex rules are refused when too large or answered within the budget on long paths', async () => {
    await probing(healthz(), 'regex rules against long paths', () =>
      fc.assert(
        fc.asyncProperty(regexRules, async (g) => {
          const sb = await ws.createSandbox({ name: `regex-${randomUUID().slice(0, 8)}` });
          const mocks: Array<Record<string, unknown>> = g.patterns.map((pattern, i) => ({
            name: `r${i}`,
            pattern,
            statusCode: 201,
          }));
          if (g.segmentRule) mocks.push({ name: 'segments', pattern: '/**', statusCode: 203 });
          const put = await setMocks(sb, mocks);
          const text = await put.text();
          assert.ok([200, 400].includes(put.status), `PUT answered ${put.status}: ${text.slice(0, 300)}`);
          if (put.status === 400) {
            const problem = JSON.parse(text) as { errors: Array<{ path: string; message: string }> };
            for (const e of problem.errors) {
              assert.match(
                e.path,
                /^mocks\[\d+\]\.pattern$/,
                `only patterns are refused: ${e.path} ${e.message}`,
              );
              assert.match(e.message, /^(regex (is too large|does not compile)|at most 512 characters)/);
            }
            return;
          }
          const path = `/${g.filler.repeat(g.pathLength).slice(0, g.pathLength - 1)}`;
          const reply = await exchange(server.ports.capture, [
            Buffer.from(`GET /${sb.id}${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`),
          ]);
          assertAnswered(reply, 'regex capture');
          assert.ok([200, 201, 203].includes(reply.status), `answered ${reply.status}`);
          const match = reply.headers.get('x-sandtrap-match');
          assert.ok(
            match === undefined || ['budget-exhausted', 'path-too-long'].includes(match),
            String(match),
          );
          if (path.length > MAX_REGEX_PATH) {
            assert.equal(match, 'path-too-long');
            assert.notEqual(reply.status, 201, 'no regex rule answers a path over 2,048 characters');
          }
          if (match === 'budget-exhausted') assert.ok([200, 203].includes(reply.status));
          await ws.api(`/sandboxes/${sb.id}`, { method: 'DELETE' });
        }),
        { seed: SEED + 4, numRuns: 40, endOnFailure: true },
      ),
    );
  });
});
