// Hostile mock rules and bodies through the real listeners: a regex rule whose program is too large is
// refused when saved (400 naming mocks[i].pattern); regex rules never see paths over 2,048 characters and
// share a per-request matching budget, so /healthz, probed from another thread while heavy captures are
// matched, keeps answering between them (how fast is a row of bench/hostileCapture.ts); JSON nested past 100 levels is stored and every read of it (detail, waits,
// list, MCP request tools) works with `json` null and a note, and a template reading such a body renders
// the value as missing instead of failing the capture as if the store were down.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { components } from '../../openapi/schema.d.ts';
import { sendRecorded, type Got, type Sent } from '../helpers/captureClient.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { healthProber } from '../helpers/healthProber.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { connectHttp, ok } from '../mcp/client.ts';

type Detail = components['schemas']['RequestDetail'];
type Page = components['schemas']['RequestPage'];
type Sandbox = Record<string, any>;
type RuleInput = Record<string, unknown>;

/** The example: accepted before, about 6 s per 60 KB path in re2js. */
const MONSTER = 'regex:((.*a){30}){30}b';
/** Just under the program limit (127 instructions) and as slow as such a regex gets: ~5 ms per 2 KB. */
const HEAVY = 'regex:/(?:.*a){41}b';
/** Paths of a's never match HEAVY (no b), so every heavy rule runs to the end of the path. */
const pathOfAs = (length: number) => `/${'a'.repeat(length - 1)}`;
/** `{"a":` repeated: an object nesting `depth` levels, 5 bytes a level. */
const nestedObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const nestedArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

const clock = () => performance.timeOrigin + performance.now();

/**
 * Runs `round` (at least `minRounds` times, and until two /healthz probes from another thread fell inside,
 * 50 at most) and asserts every probe answered 200. Returns each round's result.
 */
async function whileProbing<T>(
  url: string,
  what: string,
  minRounds: number,
  round: () => Promise<T>,
): Promise<T[]> {
  const prober = healthProber(url);
  await prober.started;
  const from = clock();
  const results: T[] = [];
  try {
    while (
      results.length < minRounds ||
      (prober.probes.filter((p) => p.start > from).length < 2 && results.length < 50)
    ) {
      results.push(await round());
    }
  } finally {
    const to = clock();
    const probes = await prober.stop(to);
    const during = probes.filter((p) => p.start < to && p.end > from);
    assert.ok(during.length >= 2, `/healthz was probed during ${what} (${during.length} probes)`);
    assert.ok(
      probes.every((p) => p.status === 200),
      `every /healthz probe answered 200: ${probes.map((p) => p.status).join(',')}`,
    );
  }
  return results;
}

describeEachStore('hostile captures', (getStore) => {
  let server: TestServer;
  let agent: http.Agent;
  let ws: TestServerWorkspace;
  let mcp: Client;

  before(async () => {
    server = await startTestServer({ ...getStore(), close: async () => {} }, { RATE_LIMITS: 'off' });
    agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    ws = await server.workspace();
    mcp = await connectHttp(server.apiUrl, ws.key);
  });
  after(async () => {
    await mcp.close();
    agent.destroy();
    await server.close();
  });

  function putMocks(sb: Sandbox, mocks: RuleInput[]): Promise<Response> {
    return ws.api(`/sandboxes/${sb.id}/mocks`, { method: 'PUT', body: JSON.stringify({ mocks }) });
  }

  async function sandbox(mocks?: RuleInput[]): Promise<Sandbox> {
    const sb = await ws.createSandbox({ name: 'hostile' });
    if (mocks !== undefined) {
      const res = await putMocks(sb, mocks);
      assert.equal(res.status, 200, await res.text());
    }
    return sb;
  }

  async function send(sb: Sandbox, s: Omit<Sent, 'agent'>): Promise<Got & { requestId: string }> {
    return sendRecorded(server.ports.capture, sb.id, { agent, ...s });
  }

  async function detailOf(sb: Sandbox, id: string): Promise<Detail> {
    const res = await ws.api(`/sandboxes/${sb.id}/requests/${id}`);
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return JSON.parse(text) as Detail;
  }

  const heavyRules = (n: number): RuleInput[] =>
    Array.from({ length: n }, (_, i) => ({ name: `heavy-${i}`, pattern: HEAVY, statusCode: 201 }));
  const fallback: RuleInput = { name: 'fallback', isFallback: true, statusCode: 202, body: 'fell back' };

  describe('regex rules are bounded when saved', () => {
    it(`refuses ${MONSTER} with 400 naming mocks[i].pattern, and keeps the old list`, async () => {
      const sb = await sandbox([{ name: 'kept', pattern: '/kept', statusCode: 204 }]);
      const res = await putMocks(sb, [
        { name: 'fine', pattern: 'regex:/ok/(?P<id>[0-9]+)', statusCode: 200 },
        { pattern: MONSTER, statusCode: 200 },
        { pattern: 'regex:/(?:.*a){45}b', statusCode: 200 },
      ]);
      const text = await res.text();
      assert.equal(res.status, 400, text);
      const problem = JSON.parse(text) as { errors: Array<{ path: string; message: string }> };
      assert.deepEqual(
        problem.errors.map((e) => e.path),
        ['mocks[1].pattern', 'mocks[2].pattern'],
      );
      assert.match(
        problem.errors[0]?.message ?? '',
        /^regex is too large: it expands to about 4563 instructions, at most 128 \(a counted repetition/,
      );
      assert.match(
        problem.errors[1]?.message ?? '',
        /^regex is too large: it compiles to 139 instructions, at most 128 /,
      );
      const current = (await (await ws.api(`/sandboxes/${sb.id}`)).json()) as Sandbox;
      assert.deepEqual(
        current.mocks.map((m: RuleInput) => m.name),
        ['kept'],
      );
    });

    it('refuses a pattern whose counted repetitions expand it far past the limit, before compiling it', async () => {
      const sb = await sandbox();
      const huge = `regex:${'(?:\\pL{1000})'.repeat(30)}`;
      const res = await putMocks(sb, [
        { pattern: '/a', statusCode: 200 },
        { pattern: '/b', statusCode: 200 },
        { pattern: huge, statusCode: 200 },
      ]);
      const text = await res.text();
      assert.equal(res.status, 400, text);
      const problem = JSON.parse(text) as { errors: Array<{ path: string; message: string }> };
      assert.deepEqual(
        problem.errors.map((e) => e.path),
        ['mocks[2].pattern'],
      );
      assert.match(problem.errors[0]?.message ?? '', /too large: it expands to about 30002 instructions/);
    });

    it('accepts the regexes people write, and one just under the limit', async () => {
      const uuid = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
      const sb = await sandbox([
        {
          name: 'order',
          pattern: `regex:/api/v[0-9]+/orders/(?P<id>${uuid})/items(/.*)?`,
          statusCode: 200,
          body: 'order {{path.id}}',
        },
        {
          name: 'hook',
          pattern: 'regex:/(?P<tenant>[^/]+)/webhooks/(?P<provider>stripe|github|slack)/(?P<event>[a-z_.]+)',
          statusCode: 200,
          body: '{{path.tenant}} {{path.provider}} {{path.event}}',
        },
        { name: 'heavy', pattern: HEAVY, statusCode: 201 },
      ]);
      const id = '0b9f6a52-54e4-4f0c-9d55-5f4f7c1d2e3a';
      const order = await send(sb, { path: `/api/v2/orders/${id}/items/7` });
      assert.equal(order.body.toString(), `order ${id}`);
      const hook = await send(sb, { path: '/acme/webhooks/stripe/invoice.paid' });
      assert.equal(hook.body.toString(), 'acme stripe invoice.paid');
      const heavy = await send(sb, { path: `/${'a'.repeat(41)}b` });
      assert.equal(heavy.status, 201);
      assert.equal(heavy.headers['x-sandtrap-match'], undefined, 'no limit decided anything');
    });
  });

  describe('regex matching is bounded per request', () => {
    it('100 heavy rules: /healthz answers while captures are matched; the fallback answers, saying why', async () => {
      // The most rules a sandbox may have: 99 heavy ones and the fallback.
      const sb = await sandbox([...heavyRules(99), fallback]);
      let n = 0;
      const replies = await whileProbing(`${server.apiUrl}/healthz`, '100-rule captures', 4, () =>
        n++ % 2 === 0
          ? send(sb, { method: 'POST', path: pathOfAs(2048), body: 'x' })
          : send(sb, { path: pathOfAs(2000) }),
      );
      for (const reply of replies) {
        assert.equal(reply.status, 202);
        assert.equal(reply.body.toString(), 'fell back');
        assert.equal(reply.headers['x-sandtrap-match'], 'budget-exhausted');
      }
      const d = await detailOf(sb, replies[0]?.requestId as string);
      assert.equal(d.mockName, 'fallback');
      assert.equal(d.mockStatusCode, 202);
      assert.equal(d.path.length, 2048);
    });

    it('100 distinct heavy rules compiled from scratch (a restart, another instance): /healthz answers', async () => {
      const sb = await sandbox();
      // Distinct sources, written as another process saved them: this process has compiled none of them.
      const tag = sb.id.slice(0, 8);
      const rules = Array.from({ length: 99 }, (_, i) => ({
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        name: `heavy-${i}`,
        method: 'ANY',
        pattern: `regex:/(?:.*a){37}b${tag}${i}`,
        statusCode: 201,
        headers: {},
        body: null,
        isFallback: false,
      }));
      rules.push({
        ...rules[0]!,
        id: '00000000-0000-4000-8000-999999999999',
        name: 'fallback',
        pattern: '/**',
        statusCode: 202,
        isFallback: true,
      });
      await sql`update sandboxes set mocks = ${JSON.stringify(rules)}, version = version + 1
        where id = ${sb.id}`.execute(getStore().db);
      const replies = await whileProbing(`${server.apiUrl}/healthz`, 'a cold 100-rule load', 3, () =>
        send(sb, { path: pathOfAs(2048) }),
      );
      for (const reply of replies) {
        assert.equal(reply.status, 202);
        assert.equal(reply.headers['x-sandtrap-match'], 'budget-exhausted');
      }
    });

    it('a 60 KB path is not run through regex rules: anonymous capture answered by the default reply, /healthz answers', async () => {
      const sb = await sandbox(heavyRules(5));
      const replies = await whileProbing(`${server.apiUrl}/healthz`, '60 KB-path captures', 3, () =>
        send(sb, { path: pathOfAs(60 * 1024) }),
      );
      for (const reply of replies) {
        assert.equal(reply.status, 200);
        assert.equal(reply.body.toString(), '{}');
        assert.equal(reply.headers['x-sandtrap-match'], 'path-too-long');
      }
      const d = await detailOf(sb, replies[0]?.requestId as string);
      assert.equal(d.path.length, 60 * 1024, 'the whole path is recorded');
      assert.equal(d.mockName, null);
    });

    it('a regex rule sees paths up to 2,048 characters; a longer one falls through to the next rules', async () => {
      const sb = await sandbox([
        { name: 'regex', pattern: 'regex:/p/(?P<rest>x+)', statusCode: 200, body: '{{path.rest}}' },
        { name: 'segments', pattern: '/p/*', statusCode: 203 },
      ]);
      const at = await send(sb, { path: `/p/${'x'.repeat(2045)}` });
      assert.equal(at.status, 200);
      assert.equal(at.body.toString(), 'x'.repeat(2045));
      assert.equal(at.headers['x-sandtrap-match'], undefined);
      const over = await send(sb, { path: `/p/${'x'.repeat(2046)}` });
      assert.equal(over.status, 203, 'the segment rule after it answers');
      assert.equal(over.headers['x-sandtrap-match'], 'path-too-long');
    });

    it('a regex stored before the limit existed never matches and cannot stall the process', async () => {
      const sb = await sandbox();
      const monster = {
        id: '6f1f6c9e-9d1c-4d6e-8f43-2f1d3b4c5a6b',
        name: 'legacy',
        method: 'ANY',
        pattern: MONSTER,
        statusCode: 200,
        headers: {},
        body: 'legacy answered',
        isFallback: false,
      };
      // As an older version saved it: straight into the row, before any capture loaded the sandbox.
      await sql`update sandboxes set mocks = ${JSON.stringify([monster])}, version = version + 1
        where id = ${sb.id}`.execute(getStore().db);
      const replies = await whileProbing(`${server.apiUrl}/healthz`, 'captures under a legacy rule', 3, () =>
        send(sb, { path: pathOfAs(2048) }),
      );
      for (const reply of replies) {
        assert.equal(reply.status, 200);
        assert.equal(reply.body.toString(), '{}', 'the default reply, not the legacy rule');
      }
      const matching = await send(sb, { path: `/${'a'.repeat(40)}b` });
      assert.equal(matching.body.toString(), '{}', 'even a path it would match');
    });
  });

  describe('JSON nested past 100 levels', () => {
    it('a 10,000-level body (20 KB) is stored and every read works: detail, waits, list, MCP', async () => {
      const sb = await sandbox();
      const body = nestedArray(10_000);
      assert.equal(body.length, 20_000);
      const got = await send(sb, {
        method: 'POST',
        path: '/deep',
        headers: { 'Content-Type': 'application/json' },
        body,
      });
      assert.equal(got.status, 200);

      const d = await detailOf(sb, got.requestId);
      assert.equal(d.json, null);
      assert.ok(d.body === body, 'the body is kept verbatim');
      assert.equal(d.bodyDecoding, 'none');
      assert.match(d.bodyNote ?? '', /nests deeper than 100 levels, so it is not parsed \(json is null\)/);

      const wait = await ws.api(`/sandboxes/${sb.id}/requests/wait?timeoutSeconds=0`);
      assert.equal(wait.status, 200, 'the unfiltered wait returns it');
      assert.equal(((await wait.json()) as Detail).id, got.requestId);
      const list = await ws.api(`/sandboxes/${sb.id}/requests`);
      assert.equal(((await list.json()) as Page).items[0]?.id, got.requestId);

      const viaGet = await ok(mcp, 'get_request', {
        sandbox_id: sb.id,
        request_id: got.requestId,
        include: ['json'],
      });
      assert.equal(viaGet.request.json, null);
      assert.deepEqual(viaGet.request.json_paths, []);
      assert.ok(viaGet.request.body.startsWith('[[[['), 'the body, whole for the agent');
      assert.match(viaGet.request.body_note, /deeper than 100 levels/);
      const viaWait = await ok(mcp, 'wait_for_request', {
        sandbox_id: sb.id,
        timeout_seconds: 0,
        include: ['json'],
      });
      assert.equal(viaWait.status, 'received');
      assert.equal(viaWait.request.id, got.requestId);
      assert.equal(viaWait.request.json, null);
      assert.match(viaWait.request.body_note, /deeper than 100 levels/);
      const viaList = await ok(mcp, 'list_requests', { sandbox_id: sb.id });
      assert.equal(viaList.requests[0]?.id, got.requestId);
    });

    it('100 levels are parsed, 101 are not; a deep gzip body gets both notes', async () => {
      const sb = await sandbox();
      const json = { 'Content-Type': 'application/json' };
      const at = await send(sb, { method: 'POST', path: '/100', headers: json, body: nestedObject(100) });
      const atLimit = await detailOf(sb, at.requestId);
      assert.deepEqual(atLimit.json, JSON.parse(nestedObject(100)));
      assert.equal(atLimit.bodyNote, null);
      const over = await send(sb, { method: 'POST', path: '/101', headers: json, body: nestedObject(101) });
      assert.equal((await detailOf(sb, over.requestId)).json, null);

      const zipped = await send(sb, {
        method: 'POST',
        path: '/gz',
        headers: { ...json, 'Content-Encoding': 'gzip' },
        body: gzipSync(nestedArray(50_000)),
      });
      const d = await detailOf(sb, zipped.requestId);
      assert.equal(d.bodyDecoding, 'decoded');
      assert.equal(d.json, null);
      assert.match(d.bodyNote ?? '', /^decoded from gzip .*; the body nests deeper than 100 levels/);
    });

    it('a template reading a too-deep body renders the value as missing; the reply is sent and recorded', async () => {
      const sb = await sandbox([
        {
          name: 'echo',
          pattern: '/deep',
          statusCode: 200,
          headers: { 'X-A': '[{{body.a}}]' },
          body: '{"a":"{{body.a}}","j":{{body.a|json}},"d":"{{body.a ?? "none"}}"}',
        },
      ]);
      const got = await send(sb, {
        method: 'POST',
        path: '/deep',
        headers: { 'Content-Type': 'application/json' },
        body: `{"a":${nestedArray(10_000)}}`,
      });
      assert.equal(got.status, 200, `${got.status} ${got.body.toString()}`);
      assert.equal(got.body.toString(), '{"a":"","j":null,"d":"none"}');
      assert.equal(got.headers['x-a'], '[]');
      const d = await detailOf(sb, got.requestId);
      assert.equal(d.mockName, 'echo');
      assert.equal(d.mockStatusCode, 200);
    });
  });
});
