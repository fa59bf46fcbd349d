// Property-based fuzzing of every MCP tool (fast-check, fixed seeds, bounded runs), with arguments generated
// from the tools' published input schemas, valid and hostile (lone surrogates, NUL, extreme dates, deep
// nesting, wrong types, over-long text), through two doors: Streamable HTTP (core in-process) and the stdio
// mode's backend (the REST API through the typed client). No result leaks internal text, every refusal is
// `<CODE>: <what>. <next>` from the closed set, a refused call changes nothing, and a tool refuses whatever
// the equivalent REST request refuses. Then the cases of issue 15 one by one, and the error boundary: a driver
// failure is a generic INTERNAL result carrying the request id, logged with its detail.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { sql } from 'kysely';
import { createSandtrapClient } from '../../src/client/index.ts';
import { remoteBackend } from '../../src/mcp/remoteBackend.ts';
import { buildMcpServer } from '../../src/mcp/server.ts';
import { MOCK_RULE_ARGS } from '../../src/mcp/tools/coreArgs.ts';
import { sandboxTransport } from '../helpers/mail.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { encode, hostileStrings, LEAK, places, replaced } from '../helpers/fuzzValues.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { connectHttp, TOOL_NAMES } from './client.ts';

const SEED = 0x15_3c9;
const RUNS = 30;

const CODES = /^(INVALID_INPUT|NOT_FOUND|CONFLICT|RATE_LIMITED|PAYLOAD_TOO_LARGE|UNAVAILABLE): \S/;

// ---- hostile values ----

const hostileString = hostileStrings(['regex:(', '(', '{{nope}}', '$..a']);

/** Nesting built without recursion, deep enough to hurt a recursive walker. */
function nested(depth: number, arrays: boolean): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = arrays ? [value] : { a: value };
  return value;
}

const hostile: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, 2 ** 53 + 2, 4294967296),
  fc.constantFrom({}, [], [null], { '': '' }, { constructor: { prototype: 1 } }),
  fc.tuple(fc.constantFrom(20, 90, 1_000), fc.boolean()).map(([d, a]) => nested(d, a)),
  fc
    .constantFrom(51, 5_000)
    .map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']))),
  fc.jsonValue({ maxDepth: 2 }),
);

// ---- arguments from the tools' JSON Schemas ----

interface Ids {
  sandboxId: string;
  messageId: string;
  requestId: string;
}

function validValue(schema: Record<string, any>, name: string, ids: Ids): fc.Arbitrary<unknown> {
  const known: Record<string, string> = {
    sandbox_id: ids.sandboxId,
    email_id: ids.messageId,
    request_id: ids.requestId,
  };
  if (known[name] !== undefined) {
    return fc.oneof({ weight: 4, arbitrary: fc.constant(known[name]) }, { weight: 1, arbitrary: fc.uuid() });
  }
  if (name === 'after') return fc.constantFrom(ids.messageId, ids.requestId, '2026-01-01T00:00:00Z');
  // Values a schema cannot describe but core checks (tokens, patterns, Latin-1 headers): valid ones, so that a
  // single hostile value elsewhere is the only thing wrong.
  if (name === 'method' && schema.type !== undefined) return fc.constantFrom('GET', 'post', 'ANY', '', null);
  if (name === 'pattern' && Array.isArray(schema.type)) {
    return fc.constantFrom('/a', '/users/{id}', '/files/*', '/**', 'regex:^/v[0-9]+$', null);
  }
  if (name === 'headers') {
    return fc.dictionary(
      fc.constantFrom('X-A', 'Content-Type', 'X-Trace'),
      fc.stringMatching(/^[ -~]{0,10}$/),
      {
        maxKeys: 2,
      },
    );
  }
  if (name === 'status_code')
    return fc.oneof(fc.integer({ min: 100, max: 599 }), fc.constantFrom('201', '404'));
  const options = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(options))
    return fc.oneof(...options.map((o: any) => validValue({ ...schema, anyOf: undefined, ...o }, name, ids)));
  if (Array.isArray(schema.type)) {
    return fc.oneof(...schema.type.map((type: string) => validValue({ ...schema, type }, name, ids)));
  }
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number':
      return fc.integer({ min: schema.minimum ?? -10, max: Math.min(schema.maximum ?? 1000, 1000) });
    case 'string':
      if (schema.format === 'uuid') return fc.uuid();
      if (schema.format === 'date-time') {
        return fc
          .date({
            min: new Date('1970-01-01T00:00:00Z'),
            max: new Date('2200-01-01T00:00:00Z'),
            noInvalidDate: true,
          })
          .map((d) => d.toISOString());
      }
      return fc.string({ maxLength: Math.min(schema.maxLength ?? 30, 30) });
    case 'array':
      return fc.array(validValue(schema.items ?? {}, name, ids), {
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    case 'object': {
      const props = Object.entries<any>(schema.properties ?? {});
      if (props.length > 0) {
        return fc.record(Object.fromEntries(props.map(([k, v]) => [k, validValue(v, k, ids)])), {
          requiredKeys: schema.required ?? [],
        });
      }
      const text = fc.oneof(
        { weight: 3, arbitrary: fc.string({ maxLength: 20 }) },
        { weight: 1, arbitrary: hostileString },
      );
      return fc.dictionary(text, text, { maxKeys: 3 });
    }
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

/** An argument object: each argument valid, hostile or left out (a required one rarely). */
function argsFor(schema: Record<string, any>, ids: Ids): fc.Arbitrary<Record<string, unknown>> {
  const required = new Set<string>(schema.required ?? []);
  const entries = Object.entries<any>(schema.properties ?? {}).map(([name, prop]) => {
    // Text arguments also get hostile text of the right type, which passes type checks and reaches core.
    const text = [prop.type, ...(prop.anyOf ?? []).map((o: any) => o.type)].flat().includes('string');
    let value = fc.oneof(
      { weight: 3, arbitrary: validValue(prop, name, ids) },
      { weight: text ? 2 : 0, arbitrary: hostileString },
      { weight: 2, arbitrary: hostile },
    );
    if (name === 'timeout_seconds') {
      // A wait must never block the run: every accepted timeout is 0, and it is never left to its 30 s default.
      value = value.map((v) => (typeof v === 'number' || /^\d+$/.test(String(v)) ? 0 : v));
      return [name, value] as const;
    }
    const arb = required.has(name)
      ? fc.oneof({ weight: 9, arbitrary: value }, { weight: 1, arbitrary: fc.constant(undefined) })
      : fc.option(value, { nil: undefined, freq: 2 });
    return [name, arb] as const;
  });
  return fc
    .record(Object.fromEntries(entries))
    .map((args) => Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined)));
}

function oneBad(schema: Record<string, any>, ids: Ids): fc.Arbitrary<Record<string, unknown>> {
  const valid = fc
    .record(
      Object.fromEntries(
        Object.entries<any>(schema.properties ?? {}).map(([name, prop]) => [
          name,
          name === 'timeout_seconds' ? fc.constant(0) : validValue(prop, name, ids),
        ]),
      ),
      { requiredKeys: schema.required ?? [] },
    )
    .map((args) => ({
      ...args,
      ...('timeout_seconds' in (schema.properties ?? {}) ? { timeout_seconds: 0 } : {}),
    }));
  return fc.tuple(valid, fc.nat(), hostileString, hostile).map(([args, n, text, any]) => {
    const all = places(args).filter((p) => p.path.length > 0 && p.path[0] !== 'timeout_seconds');
    const at = all[n % Math.max(all.length, 1)];
    if (at === undefined) return args;
    return replaced(args, at.path, (old) => {
      if (!at.leaf) return { ...(old as object), [text]: 'v' };
      return typeof old === 'string' ? text : any;
    }) as Record<string, unknown>;
  });
}

// ---- the REST request each tool call stands for ----

/** A JSON argument as query text: a string as itself, anything else as its JSON text. */
function asQuery(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return encode(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return encode(JSON.stringify(value));
}

function query(pairs: Record<string, unknown>): string {
  const parts = Object.entries(pairs).flatMap(([k, v]) => {
    const text = asQuery(v);
    return text === undefined ? [] : [`${k}=${text}`];
  });
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

function segment(value: unknown): string {
  return typeof value === 'string' ? encode(value) : encode(JSON.stringify(value) ?? 'undefined');
}

const RULE_NAMES: Record<string, string> = MOCK_RULE_ARGS;

function restRules(rules: unknown): unknown {
  if (!Array.isArray(rules)) return rules;
  return rules.map((r) => {
    if (typeof r !== 'object' || r === null || Array.isArray(r)) return r;
    const out: Record<string, unknown> = { statusCode: 200 };
    for (const [k, v] of Object.entries(r)) if (RULE_NAMES[k] !== undefined) out[RULE_NAMES[k]] = v;
    return out;
  });
}

/** set_smtp_faults steps as REST takes them: delay_ms is delayMs; the other names are the same. */
function restSteps(steps: unknown): unknown {
  if (!Array.isArray(steps)) return steps;
  return steps.map((step: unknown) => {
    if (typeof step !== 'object' || step === null || Array.isArray(step)) return step;
    const { delay_ms: delayMs, ...rest } = step as Record<string, unknown>;
    return delayMs === undefined ? rest : { ...rest, delayMs };
  });
}

interface RestCall {
  method: string;
  url: string;
  body?: unknown;
}

/** The REST requests a tool call stands for (all must pass for the call to be acceptable), or [] if none. */
function restFor(tool: string, a: Record<string, any>, scratch: string): RestCall[] {
  const sb = segment(a.sandbox_id);
  const unread = a.unread_only === true ? { isRead: false } : {};
  switch (tool) {
    case 'create_sandbox': {
      const ttl = a.ttl_minutes;
      const body = {
        name: 'name' in a ? a.name : 'agent sandbox',
        ...('tags' in a ? { tags: a.tags } : {}),
        ...(ttl === null ? {} : { ephemeral: true, ttlMinutes: ttl ?? 60 }),
      };
      const calls: RestCall[] = [{ method: 'POST', url: '/sandboxes', body }];
      if (a.mock_rules !== undefined && a.mock_rules !== null) {
        calls.push({
          method: 'PUT',
          url: `/sandboxes/${scratch}/mocks`,
          body: { mocks: restRules(a.mock_rules) },
        });
      }
      return calls;
    }
    case 'set_mock_rules':
      return [{ method: 'PUT', url: `/sandboxes/${sb}/mocks`, body: { mocks: restRules(a.rules) } }];
    case 'set_smtp_faults':
      return [{ method: 'PUT', url: `/sandboxes/${sb}/smtp-faults`, body: { faults: restSteps(a.faults) } }];
    case 'list_smtp_sessions':
      return [
        {
          method: 'GET',
          url: `/sandboxes/${sb}/smtp-sessions${query({ limit: a.limit, cursor: a.cursor })}`,
        },
      ];
    case 'list_sandboxes':
      return [{ method: 'GET', url: `/sandboxes${query({ q: a.query, limit: a.limit, cursor: a.cursor })}` }];
    case 'get_sandbox':
      return [{ method: 'GET', url: `/sandboxes/${sb}` }];
    case 'delete_sandbox':
      return [{ method: 'DELETE', url: `/sandboxes/${sb}` }];
    case 'list_emails':
      return [
        {
          method: 'GET',
          url: `/sandboxes/${sb}/messages${query({ q: a.query, capturedFor: a.to, since: a.since, limit: a.limit, cursor: a.cursor, ...unread })}`,
        },
      ];
    case 'get_email':
      return [{ method: 'GET', url: `/sandboxes/${sb}/messages/${segment(a.email_id)}` }];
    case 'list_requests':
      return [
        {
          method: 'GET',
          url: `/sandboxes/${sb}/requests${query({ q: a.query, limit: a.limit, cursor: a.cursor })}`,
        },
      ];
    case 'get_request':
      return [{ method: 'GET', url: `/sandboxes/${sb}/requests/${segment(a.request_id)}` }];
    case 'wait_for_email':
      return [
        {
          method: 'GET',
          url: `/sandboxes/${sb}/messages/wait${query({
            subjectContains: a.subject_contains,
            fromContains: a.from_contains,
            capturedFor: a.to,
            since: a.since,
            timeoutSeconds: a.timeout_seconds ?? 0,
            ...unread,
          })}`,
        },
      ];
    case 'wait_for_request':
      return [
        {
          method: 'GET',
          url: `/sandboxes/${sb}/requests/wait${query({
            method: a.method,
            pathContains: a.path_contains,
            since: a.since,
            timeoutSeconds: a.timeout_seconds ?? 0,
          })}`,
        },
      ];
    default:
      return [];
  }
}

// ---- checks ----

/** One text block first; only resource_link blocks (raw source, raw bytes) may follow it. */
function textOf(result: CallToolResult): string {
  const [block, ...rest] = result.content;
  assert.ok(block !== undefined && block.type === 'text', 'a text block first');
  assert.ok(
    rest.every((b) => b.type === 'resource_link'),
    'only resource_link blocks follow',
  );
  return block.text;
}

/** A result is either a success with structured content or a refusal from the closed set; never internal text. */
function checkResult(tool: Tool, args: unknown, result: CallToolResult): { refused: boolean; text: string } {
  const what = `${tool.name} ${JSON.stringify(args)?.slice(0, 400)}`;
  const text = textOf(result);
  assert.doesNotMatch(text, LEAK, `${what}: no internal text: ${text.slice(0, 400)}`);
  if (result.isError !== true) {
    assert.ok(result.structuredContent !== undefined, `${what}: structured result`);
    return { refused: false, text };
  }
  assert.match(text, CODES, `${what}: a code from the closed set: ${text.slice(0, 400)}`);
  assert.match(text, /^[A-Z_]+: \S[\s\S]*\. \S/, `${what}: <CODE>: <what>. <next>`);
  if (/^INVALID_INPUT/.test(text)) {
    const names = [...Object.keys(tool.inputSchema.properties ?? {}), '(root)'];
    assert.ok(
      names.some((n) => text.includes(n)),
      `${what}: the refusal names an argument: ${text.slice(0, 400)}`,
    );
  }
  return { refused: true, text };
}

/**
 * Calls a tool and checks the answer. Only the HTTP door may refuse before any tool runs (a JSON-RPC message
 * nested or sized past its bounds): then the SDK client throws with the route's problem+json.
 */
async function callChecked(
  client: Client,
  tool: Tool,
  args: Record<string, unknown>,
  door: string,
): Promise<{ refused: boolean; text: string }> {
  let result: CallToolResult;
  try {
    result = (await client.callTool({ name: tool.name, arguments: args }, undefined, {
      timeout: 15_000,
    })) as CallToolResult;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    assert.equal(
      door,
      'http',
      `${tool.name}: only the HTTP route refuses before the tool: ${message.slice(0, 300)}`,
    );
    assert.match(
      message,
      /"type":"urn:sandtrap:problem:(validation-error|payload-too-large)"/,
      message.slice(0, 300),
    );
    assert.doesNotMatch(message, LEAK);
    return { refused: true, text: `INVALID_INPUT: ${message}` };
  }
  return checkResult(tool, args, result);
}

describeEachStore('MCP validation fuzz', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let http: Client;
  let remote: Client;
  let ids: Ids;
  let tools: Tool[];

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace('mcp-fuzz');
    http = await connectHttp(server.apiUrl, ws.key);
    // The stdio mode's backend, in-process: the same tools over the REST API through the typed client.
    const backend = remoteBackend(createSandtrapClient({ baseUrl: server.apiUrl, apiKey: ws.key }));
    const mcp = buildMcpServer(() => backend, 'test');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide as never);
    remote = new Client({ name: 'fuzz-remote', version: '1.0.0' });
    await remote.connect(clientSide);

    const sb = await ws.createSandbox({ name: 'fixture' });
    const transport = sandboxTransport(server.ports.smtp, sb);
    try {
      await transport.sendMail({
        from: 'a@example.test',
        to: 'b@example.test',
        subject: 'Code',
        text: 'Code 123456',
      });
    } finally {
      transport.close();
    }
    const captured = await fetch(`${sb.captureUrl}/hooks/x`, { method: 'POST', body: '{"token":"abc"}' });
    const list = (await (await ws.api(`/sandboxes/${sb.id}/messages`)).json()) as {
      items: Array<{ id: string }>;
    };
    ids = {
      sandboxId: sb.id,
      messageId: list.items[0]?.id ?? '',
      requestId: captured.headers.get('x-sandtrap-request-id') ?? '',
    };
    assert.ok(ids.messageId !== '' && ids.requestId !== '');
    tools = (await http.listTools()).tools;
  });

  after(async () => {
    await http?.close();
    await remote?.close();
    server.api.server.closeAllConnections();
    await server.close();
  });

  /** What a refused call must not change: every sandbox (with its rules and tags), sandboxes about to expire aside. */
  async function state(): Promise<string> {
    const soon = Date.now() + 120_000;
    const items: Array<Record<string, any>> = [];
    let cursor: string | null = null;
    do {
      const res = await ws.api(`/sandboxes?limit=200${cursor === null ? '' : `&cursor=${cursor}`}`);
      const page = (await res.json()) as { items: Array<Record<string, any>>; nextCursor: string | null };
      items.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== null);
    const kept = items.filter((s) => s.expiresAt === null || Date.parse(s.expiresAt) > soon);
    // The fixture's SMTP fault script too: a refused set_smtp_faults must leave it as it was.
    const faults = await (await ws.api(`/sandboxes/${ids.sandboxId}/smtp-faults`)).text();
    return JSON.stringify(kept) + faults;
  }

  const WRITES = new Set(['create_sandbox', 'set_mock_rules', 'delete_sandbox', 'set_smtp_faults']);
  const ORDER = ['delete_sandbox'];

  it('fuzzes every tool', () => {
    assert.equal(tools.length, TOOL_NAMES.length);
  });

  for (const [n, name] of [
    'wait_for_email',
    'wait_for_request',
    'extract_otp',
    'extract_from_body',
    'list_sandboxes',
    'get_sandbox',
    'list_emails',
    'get_email',
    'list_requests',
    'get_request',
    'create_sandbox',
    'set_mock_rules',
    'set_smtp_faults',
    'list_smtp_sessions',
    ...ORDER,
  ].entries()) {
    it(`${name}: no leaks, closed-set refusals, refusals change nothing, refuses what REST refuses`, async () => {
      const tool = tools.find((t) => t.name === name);
      assert.ok(tool !== undefined, name);
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(argsFor(tool.inputSchema, ids), oneBad(tool.inputSchema, ids)),
          async (generated) => {
            const args = { ...generated };
            // delete_sandbox never gets the fixture: a fresh sandbox stands in for a real id.
            if (name === 'delete_sandbox' && args.sandbox_id === ids.sandboxId) {
              args.sandbox_id = (await ws.createSandbox({ name: 'scratch' })).id;
            }
            const scratch = (await ws.createSandbox({ name: 'scratch' })).id;
            for (const [door, client] of [
              ['http', http],
              ['stdio backend', remote],
            ] as const) {
              const before = WRITES.has(name) ? await state() : '';
              const { refused, text } = await callChecked(client, tool, args, door);
              if (refused && WRITES.has(name)) {
                assert.equal(
                  await state(),
                  before,
                  `${door} ${name}: a refused call changed nothing (${text})`,
                );
              }
              for (const call of restFor(name, args, scratch)) {
                const res = await ws.api(call.url, {
                  method: call.method,
                  ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
                });
                await res.arrayBuffer();
                if (res.status === 400) {
                  assert.ok(
                    refused && /^INVALID_(INPUT|ARGUMENT): /.test(text),
                    `${door} ${name} ${JSON.stringify(args)?.slice(0, 300)}: REST refuses ${call.method} ${call.url.slice(0, 200)} with 400, so must the tool; got ${text.slice(0, 300)}`,
                  );
                }
              }
            }
            await ws.api(`/sandboxes/${scratch}`, { method: 'DELETE' });
          },
        ),
        { seed: SEED + n, numRuns: RUNS },
      );
    });
  }
});

describeEachStore('MCP refuses what REST refuses (issue 15 cases)', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let client: Client;
  let sandboxId: string;

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace('mcp-cases');
    client = await connectHttp(server.apiUrl, ws.key);
    sandboxId = (await ws.createSandbox({ name: 'target' })).id;
  });

  after(async () => {
    await client.close();
    server.api.server.closeAllConnections();
    await server.close();
  });

  async function count(): Promise<number> {
    return ((await (await ws.api('/sandboxes?limit=200')).json()) as { items: unknown[] }).items.length;
  }

  async function refusedCall(name: string, args: Record<string, unknown>, field: string): Promise<string> {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const text = textOf(result);
    assert.equal(result.isError, true, `${name} is refused: ${text.slice(0, 300)}`);
    assert.match(text, /^INVALID_(INPUT|ARGUMENT): /, text.slice(0, 300));
    assert.ok(text.includes(field), `${name}: names ${field}: ${text.slice(0, 300)}`);
    assert.doesNotMatch(text, LEAK);
    return text;
  }

  it('create_sandbox refuses 100,000 tags, an empty tag key and 100,000-character values, and stores nothing', async () => {
    const before = await count();
    const tagsOf = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    // 100,000 tags are past the route's 1 MB body bound: refused before any tool runs.
    await assert.rejects(
      client.callTool({ name: 'create_sandbox', arguments: { tags: tagsOf(100_000) } }),
      /urn:sandtrap:problem:payload-too-large/,
    );
    await refusedCall('create_sandbox', { tags: tagsOf(51) }, 'tags');
    await refusedCall('create_sandbox', { tags: tagsOf(20_000) }, 'tags');
    await refusedCall('create_sandbox', { tags: { '': 'v' } }, 'tags');
    await refusedCall('create_sandbox', { tags: { a: 'v'.repeat(100_000) } }, 'tags.a');
    await refusedCall('create_sandbox', { tags: { ['k'.repeat(65)]: 'v' } }, 'tags');
    assert.equal(await count(), before, 'nothing was stored');
  });

  it('lone surrogates in tags, names, mock rules and filters are INVALID_INPUT naming the argument', async () => {
    const before = await count();
    const lone = '\ud800';
    await refusedCall('create_sandbox', { tags: { a: lone } }, 'tags.a');
    await refusedCall('create_sandbox', { name: `x${lone}` }, 'name');
    await refusedCall('create_sandbox', { mock_rules: [{ body: lone }] }, 'mock_rules');
    await refusedCall('set_mock_rules', { sandbox_id: sandboxId, rules: [{ name: lone }] }, 'rules');
    await refusedCall(
      'set_mock_rules',
      { sandbox_id: sandboxId, rules: [{ pattern: `/${lone}` }] },
      'pattern',
    );
    await refusedCall(
      'set_mock_rules',
      { sandbox_id: sandboxId, rules: [{ headers: { 'X-A': lone } }] },
      'headers',
    );
    await refusedCall('list_sandboxes', { query: lone }, 'query');
    await refusedCall(
      'wait_for_email',
      { sandbox_id: sandboxId, timeout_seconds: 0, subject_contains: lone },
      'subject_contains',
    );
    await refusedCall(
      'extract_from_body',
      { sandbox_id: sandboxId, mode: 'regex', pattern: lone },
      'pattern',
    );
    assert.equal(await count(), before, 'nothing was stored');
    const rules = ((await (await ws.api(`/sandboxes/${sandboxId}`)).json()) as { mocks: unknown[] }).mocks;
    assert.deepEqual(rules, []);
  });

  it('impossible instants in since and after are refused, never a driver error', async () => {
    for (const since of ['0000-01-01T00:00:00Z', '9999-12-31T23:59:59-14:00', '1969-12-31T23:59:59Z']) {
      await refusedCall('list_emails', { sandbox_id: sandboxId, since }, 'since');
      await refusedCall('wait_for_email', { sandbox_id: sandboxId, timeout_seconds: 0, since }, 'since');
      await refusedCall('wait_for_request', { sandbox_id: sandboxId, timeout_seconds: 0, since }, 'since');
      await refusedCall(
        'wait_for_email',
        { sandbox_id: sandboxId, timeout_seconds: 0, after: since },
        'after',
      );
    }
  });

  it('core refusals name the tool arguments, not core fields', async () => {
    const text = await refusedCall(
      'set_mock_rules',
      { sandbox_id: sandboxId, rules: [{ is_fallback: true }, { is_fallback: true }] },
      'rules[1].is_fallback',
    );
    assert.doesNotMatch(text, /mocks\[|isFallback/);
    const created = await refusedCall(
      'create_sandbox',
      { mock_rules: [{ status_code: 200, pattern: 'regex:(' }] },
      'mock_rules[0].pattern',
    );
    assert.doesNotMatch(created, /mocks\[/);
  });
});

describeEachStore('MCP error boundary', (getStore) => {
  it('a driver failure is INTERNAL with the request id on every door, logged with its detail, never its text', async () => {
    const server = await startTestServer(getStore());
    const ws = await server.workspace('boundary');
    try {
      // A real driver error from now on: the table every sandbox read needs is gone.
      await sql`alter table sandboxes rename to sandboxes_gone`.execute(getStore().db);

      const requestId = 'fuzz-boundary-1';
      const http = new Client({ name: 'boundary', version: '1.0.0' });
      const { StreamableHTTPClientTransport } =
        await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      await http.connect(
        new StreamableHTTPClientTransport(new URL(`${server.apiUrl}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${ws.key}`, 'X-Request-Id': requestId } },
        }),
      );
      const viaHttp = textOf(
        (await http.callTool({ name: 'list_sandboxes', arguments: {} })) as CallToolResult,
      );
      await http.close();
      assert.equal(
        viaHttp,
        `INTERNAL: Something went wrong on our side. Retry; if it persists, report request id ${requestId}.`,
      );

      // The stdio mode's backend gets a REST 500: the agent sees the server's request id, not its text.
      const logged: Array<Record<string, any>> = [];
      const log = { error: (obj: object) => void logged.push(obj as Record<string, any>) };
      const backend = remoteBackend(createSandtrapClient({ baseUrl: server.apiUrl, apiKey: ws.key }));
      const mcp = buildMcpServer(() => backend, 'test', { log });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await mcp.connect(serverSide as never);
      const remote = new Client({ name: 'boundary-remote', version: '1.0.0' });
      await remote.connect(clientSide);
      const viaRest = textOf(
        (await remote.callTool({
          name: 'get_sandbox',
          arguments: { sandbox_id: ws.orgId },
        })) as CallToolResult,
      );
      const restId = /report request id (\S+)\.$/.exec(viaRest)?.[1];
      assert.match(
        viaRest,
        /^INTERNAL: Something went wrong on our side\. Retry; if it persists, report request id /,
      );
      const direct = await ws.api(`/sandboxes/${ws.orgId}`, { headers: { 'X-Request-Id': 'direct-1' } });
      assert.equal(direct.status, 500);
      assert.ok(restId !== undefined && restId.length > 0, viaRest);
      assert.equal(logged.length, 1, 'the failure is logged once');
      assert.equal(logged[0]?.requestId, restId, 'the log line carries the id the agent reports');

      // In process, the log line carries the driver's own error.
      const inProcess = buildMcpServer(
        () => ({ listSandboxes: () => server.core.sandboxes.list(ws.orgId, {}) }) as never,
        'test',
        { log },
      );
      const [c2, s2] = InMemoryTransport.createLinkedPair();
      await inProcess.connect(s2 as never);
      const local = new Client({ name: 'boundary-local', version: '1.0.0' });
      await local.connect(c2);
      const viaCore = textOf(
        (await local.callTool({ name: 'list_sandboxes', arguments: {} })) as CallToolResult,
      );
      const localId = /report request id (\S+)\.$/.exec(viaCore)?.[1];
      assert.match(viaCore, /^INTERNAL: /);
      assert.doesNotMatch(viaCore, LEAK);
      assert.equal(logged.length, 2);
      assert.equal(logged[1]?.requestId, localId);
      assert.match(
        String(logged[1]?.err?.message ?? logged[1]?.err),
        /sandboxes/,
        'the detail is in the log',
      );
      await remote.close();
      await local.close();
    } finally {
      server.api.server.closeAllConnections();
      await server.close();
    }
  });
});
