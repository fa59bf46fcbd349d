// What every MCP client sees before it calls anything: a tools/list small enough for a model's context, schemas
// in the portable spelling (no `type` arrays, no bare objects), honest capabilities, one error vocabulary; and
// what the results keep out (SMTP passwords in lists) or always carry (text for HTML-only mail).
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { callTool, connectHttp, sendMail, textOf } from './client.ts';

const T = { timeout: 60_000 };
/**
 * What clients put in the model's context: names, titles, descriptions and input schemas. 13,000 held the
 * first 14 tools; issue 40's expect, mock_state, set_smtp_faults, list_smtp_sessions and the mock-rule fields
 * (delays, faults, scenarios, callbacks) took 18 tools to 20,000 after trimming (set_mock_rules and
 * create_sandbox both carry the rule fields). 21,000 characters is about 5,200 tokens; each tool's share is
 * printed.
 */
const TOOLS_LIST_BUDGET = 21_000;
const NAMED_TOOLS = [
  'create_sandbox',
  'wait_for_email',
  'wait_for_request',
  'extract_otp',
  'extract_from_body',
];
const ERROR_TEXT =
  /^(INVALID_INPUT|NOT_FOUND|CONFLICT|UNAUTHORIZED|RATE_LIMITED|PAYLOAD_TOO_LARGE|UNAVAILABLE|INTERNAL|CANCELLED): \S/;

/** Keywords that constrain a schema node; a node with none of them accepts anything. */
const CONSTRAINING = ['type', 'anyOf', 'oneOf', 'allOf', 'enum', 'const', '$ref', 'not'];

/** Every place a sub-schema sits, with its path, so a finding names where it is. */
function* schemaNodes(node: unknown, path: string): Generator<[string, Record<string, unknown>]> {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
  const schema = node as Record<string, unknown>;
  yield [path, schema];
  for (const [name, sub] of Object.entries((schema.properties ?? {}) as Record<string, unknown>)) {
    yield* schemaNodes(sub, `${path}.properties.${name}`);
  }
  for (const [name, sub] of Object.entries((schema.$defs ?? {}) as Record<string, unknown>)) {
    yield* schemaNodes(sub, `${path}.$defs.${name}`);
  }
  for (const key of ['items', 'additionalProperties', 'propertyNames', 'not']) {
    if (typeof schema[key] === 'object') yield* schemaNodes(schema[key], `${path}.${key}`);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    const list = schema[key];
    if (Array.isArray(list))
      for (const [i, sub] of list.entries()) yield* schemaNodes(sub, `${path}.${key}[${i}]`);
  }
}

/** The Inspector's --strict findings this project holds itself to, checked without the Inspector. */
function portabilityFindings(tools: Array<{ name: string; inputSchema: unknown; outputSchema?: unknown }>) {
  const findings: string[] = [];
  for (const tool of tools) {
    for (const [which, root] of [
      ['inputSchema', tool.inputSchema],
      ['outputSchema', tool.outputSchema],
    ] as const) {
      for (const [path, node] of schemaNodes(root, `${tool.name}.${which}`)) {
        if (Array.isArray(node.type)) findings.push(`${path}: type is an array ${JSON.stringify(node.type)}`);
        if (!CONSTRAINING.some((k) => k in node)) findings.push(`${path}: constrains nothing`);
      }
    }
  }
  return findings;
}

describeEachStore('MCP tool contract', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let client: Client;

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace('contract');
    client = await connectHttp(server.apiUrl, ws.key);
  });

  after(async () => {
    await client.close().catch(() => undefined);
    await server.close();
  });

  async function ok(name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
    const { result, data } = await callTool(client, name, args);
    assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(result.content)}`);
    return data;
  }

  async function refusal(name: string, args: Record<string, unknown>): Promise<string> {
    const { result } = await callTool(client, name, args);
    assert.equal(result.isError, true, `${name} should refuse ${JSON.stringify(args)}`);
    return textOf(result);
  }

  it('keeps the model-visible tools/list under 21,000 characters with the five named tools', T, async () => {
    const { tools } = await client.listTools();
    for (const name of NAMED_TOOLS)
      assert.ok(
        tools.some((t) => t.name === name),
        `${name} is listed`,
      );
    const visible = tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
    }));
    const size = JSON.stringify(visible).length;
    console.log(`tools/list: ${tools.length} tools, ${size} model-visible characters`);
    for (const t of visible) console.log(`  ${t.name}: ${JSON.stringify(t).length}`);
    assert.ok(size < TOOLS_LIST_BUDGET, `tools/list is ${size} characters`);
  });

  it(
    'describes every input and output in the portable spelling: no type arrays, nothing bare',
    T,
    async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(portabilityFindings(tools), []);
      // The checker itself: both kinds of finding are caught.
      assert.equal(
        portabilityFindings([
          { name: 't', inputSchema: { type: 'object', properties: { a: { type: ['string', 'null'] } } } },
        ]).length,
        1,
      );
      assert.equal(
        portabilityFindings([{ name: 't', inputSchema: { type: 'object', additionalProperties: {} } }])
          .length,
        1,
      );
    },
  );

  it('says the tool list never changes', T, () => {
    assert.notEqual(client.getServerCapabilities()?.tools?.listChanged, true);
  });

  it('list_sandboxes never returns an SMTP password; create_sandbox and get_sandbox do', T, async () => {
    const created = await ok('create_sandbox', { name: 'secret holder' });
    const password = created.smtp.password as string;
    assert.ok(password.length >= 16);
    const got = await ok('get_sandbox', { sandbox_id: created.sandbox_id });
    assert.equal(got.smtp.password, password);
    const { result } = await callTool(client, 'list_sandboxes', { query: 'secret holder' });
    const listed = JSON.stringify(result);
    assert.ok(listed.includes(created.sandbox_id), 'the sandbox is listed');
    assert.ok(!listed.includes(password), 'the password is not in the list result');
    assert.ok(!listed.includes('"password"'), 'no password field in the list result');
  });

  it('list tools return 20 items unless asked for more', T, async () => {
    const fresh = await server.workspace('contract-pages');
    const other = await connectHttp(server.apiUrl, fresh.key);
    try {
      for (let i = 0; i < 23; i++) {
        const { result } = await callTool(other, 'create_sandbox', { name: `page ${i}` });
        assert.notEqual(result.isError, true);
      }
      const first = await callTool(other, 'list_sandboxes', {});
      assert.equal(first.data.sandboxes.length, 20);
      assert.equal(typeof first.data.next_cursor, 'string');
      const rest = await callTool(other, 'list_sandboxes', { cursor: first.data.next_cursor });
      assert.equal(rest.data.sandboxes.length, 3);
      assert.equal(rest.data.next_cursor, null);
    } finally {
      await other.close();
    }
  });

  it(
    'an HTML-only email carries text made from its HTML, and every result its dashboard_url',
    T,
    async () => {
      const sb = await ok('create_sandbox', {});
      await sendMail(server.ports.smtp, sb, {
        from: 'Acme <no-reply@acme.test>',
        to: sb.email_address,
        subject: 'Welcome aboard',
        html: '<table><tr><td><h1>Hello&nbsp;there</h1><p>Your <b>access code</b> is below.</p></td></tr><tr><td style="font-size:28px">551 204</td></tr></table>',
      });
      const waited = await ok('wait_for_email', { sandbox_id: sb.sandbox_id, timeout_seconds: 10 });
      assert.equal(waited.status, 'received');
      // A person can be handed the exact view: the sandbox's page, and the mail's page under it.
      assert.equal(sb.dashboard_url, `${server.apiUrl}/s/${sb.sandbox_id}`);
      assert.equal(waited.email.dashboard_url, `${sb.dashboard_url}/messages/${waited.email.id}`);
      const listed = await ok('list_emails', { sandbox_id: sb.sandbox_id });
      assert.equal(listed.emails[0].dashboard_url, waited.email.dashboard_url);
      const page = await fetch(waited.email.dashboard_url);
      assert.equal(page.status, 200, 'the deep link serves the dashboard');
      for (const email of [
        waited.email,
        (await ok('get_email', { sandbox_id: sb.sandbox_id, email_id: waited.email.id })).email,
      ]) {
        assert.equal(email.has_html, true);
        assert.equal(typeof email.text, 'string');
        assert.match(email.text, /Hello there/);
        assert.match(email.text, /access code/);
        assert.doesNotMatch(email.text, /<[a-z]/i, 'no markup in text');
      }
    },
  );

  it('speaks one error vocabulary: SDK argument checks, tool refusals and core errors alike', T, async () => {
    const sb = await ok('create_sandbox', {});
    const texts = [
      // The SDK's own argument check.
      await refusal('wait_for_email', { sandbox_id: sb.sandbox_id, timeout_seconds: 'soon' }),
      await refusal('get_email', { sandbox_id: 'not-a-uuid', email_id: sb.sandbox_id }),
      // A tool's own refusal.
      await refusal('extract_otp', {
        sandbox_id: sb.sandbox_id,
        email_id: sb.sandbox_id,
        request_id: sb.sandbox_id,
      }),
      await refusal('wait_for_email', { sandbox_id: sb.sandbox_id, after: 'yesterday', timeout_seconds: 0 }),
      // Core's refusals.
      await refusal('get_sandbox', { sandbox_id: '00000000-0000-4000-8000-000000000000' }),
      await refusal('create_sandbox', { tags: { '': 'x' } }),
    ];
    for (const text of texts) assert.match(text, ERROR_TEXT, text);
    assert.ok(
      texts.some((t) => t.startsWith('INVALID_INPUT')),
      'invalid arguments are INVALID_INPUT',
    );
    assert.ok(!texts.some((t) => /INVALID_ARGUMENT/.test(t)));
  });
});
