// verify_signature through the MCP SDK client: a ~6 KB Stripe-style event sent with fetch to a sandbox's capture
// URL, signed with each provider's own library (stripe, @octokit/webhooks-methods, standardwebhooks, svix) or
// documented algorithm, verifies; another secret, a missing header, a stale timestamp and an unknown provider
// each say why. The stored body is byte-exact (the agent's own HMAC over the REST body matches), a gzip body is
// checked over the payload the sender signed, and a body the stored record cuts is refused, never half-checked.
// Over Streamable HTTP (in-process core) and over stdio (the REST-backed remote backend).
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { after, before, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
import { cleanupProcesses } from '../helpers/process.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { capture, connectHttp, fails, ok } from './client.ts';
import { startStdio } from './stdioClient.ts';

const T = { timeout: 60_000 };
const PROVIDERS = ['stripe', 'github', 'standard_webhooks', 'shopify', 'slack', 'twilio', 'hmac_sha256'];
const STRIPE_SECRET = 'whsec_sandtrap_test_0123456789abcdef';
const SW_SECRET = `whsec_${Buffer.from('sandtrap standard webhooks key!!').toString('base64')}`;

/** A Stripe-style event of about 6 KB, pretty-printed as Stripe sends it, with non-ASCII text in it. */
function stripeEvent(): string {
  const lines = Array.from({ length: 18 }, (_, i) => ({
    id: `il_${String(i).padStart(4, '0')}`,
    object: 'line_item',
    amount: 1999 + i,
    currency: 'eur',
    description: `Abonnement « Pro » – Zeile ${i} (Größe M)`,
    metadata: { sku: `SKU-${i}`, note: i % 5 === 0 ? 'emoji ✓ ☕' : '' },
  }));
  const event = {
    id: 'evt_1PsandtrapTest',
    object: 'event',
    api_version: '2024-06-20',
    created: 1719000000,
    type: 'invoice.payment_succeeded',
    livemode: false,
    data: { object: { id: 'in_1Psandtrap', object: 'invoice', customer: 'cus_123', lines: { data: lines } } },
  };
  const text = JSON.stringify(event, null, 2);
  assert.ok(Buffer.byteLength(text) > 5_500 && Buffer.byteLength(text) < 7_000, `~6 KB, got ${text.length}`);
  return text;
}

/** Another secret of the same form (a Standard Webhooks secret must stay whsec_ + base64). */
const wrongSecret = (secret: unknown) =>
  String(secret).startsWith('whsec_')
    ? `whsec_${Buffer.from('y'.repeat(32)).toString('base64')}`
    : `${String(secret)}x`;

const nowSeconds = (server: TestServer) => Math.floor(server.clock.now().getTime() / 1000);

describeEachStore('verify_signature over the MCP SDK client', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let http: Client;
  let stdio: Client;
  let sb: Record<string, any>;
  const body = stripeEvent();

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace('signatures');
    http = await connectHttp(server.apiUrl, ws.key);
    stdio = (await startStdio([], { SANDTRAP_URL: server.apiUrl, SANDTRAP_API_KEY: ws.key })).client;
    sb = await ok(http, 'create_sandbox', { name: 'signatures' });
  });
  after(async () => {
    await http?.close().catch(() => undefined);
    await stdio?.close().catch(() => undefined);
    await cleanupProcesses();
    await server.close();
  });

  /** POSTs `payload` to the capture URL with `headers`; returns the captured request's id. */
  async function send(path: string, headers: Record<string, string>, payload: string | Buffer = body) {
    const res = await capture(sb.capture_url, path, { method: 'POST', headers, body: payload });
    assert.equal(res.status, 200);
    return res.requestId;
  }

  async function verify(client: Client, requestId: string, args: Record<string, unknown>) {
    return ok(client, 'verify_signature', { sandbox_id: sb.sandbox_id, request_id: requestId, ...args });
  }

  function stripeHeader(t: number, secret = STRIPE_SECRET, payload = body) {
    return Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: t });
  }

  /** One signed request per provider, with the arguments that verify it. */
  async function signedRequests(): Promise<Array<[string, string, Record<string, unknown>]>> {
    const t = nowSeconds(server);
    const json = { 'Content-Type': 'application/json' };
    const swSig = new StandardWebhook(SW_SECRET).sign('msg_sw', new Date(t * 1000), body);
    const svixSig = new SvixWebhook(SW_SECRET).sign('msg_svix', new Date(t * 1000), body);
    const shopify = createHmac('sha256', 'shpss_app_secret').update(body).digest('base64');
    const slack = `v0=${createHmac('sha256', 'slack-signing').update(`v0:${t}:${body}`).digest('hex')}`;
    const generic = createHmac('sha256', 'generic-key').update(body).digest('hex');
    // Twilio posts a form to the URL configured for the number; here that is the capture URL plus a query.
    const form = new URLSearchParams({
      From: '+15005550006',
      To: '+15005550001',
      Body: 'Hi ✓',
      MessageSid: 'SM1',
    });
    const twilioUrl = `${sb.capture_url}/twilio/sms?tenant=a`;
    const params = [...form.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => k + v)
      .join('');
    const twilio = createHmac('sha1', 'twilio-token')
      .update(twilioUrl + params)
      .digest('base64');
    return [
      [
        'stripe',
        await send('/stripe', { ...json, 'Stripe-Signature': stripeHeader(t) }),
        { secret: STRIPE_SECRET },
      ],
      [
        'github',
        await send('/github', { ...json, 'X-Hub-Signature-256': await githubSign('gh-secret', body) }),
        { secret: 'gh-secret' },
      ],
      [
        'standard_webhooks',
        await send('/sw', {
          ...json,
          'webhook-id': 'msg_sw',
          'webhook-timestamp': String(t),
          'webhook-signature': swSig,
        }),
        { secret: SW_SECRET },
      ],
      [
        'standard_webhooks',
        await send('/svix', {
          ...json,
          'svix-id': 'msg_svix',
          'svix-timestamp': String(t),
          'svix-signature': svixSig,
        }),
        { secret: SW_SECRET },
      ],
      [
        'shopify',
        await send('/shopify', { ...json, 'X-Shopify-Hmac-Sha256': shopify }),
        { secret: 'shpss_app_secret' },
      ],
      [
        'slack',
        await send('/slack', { ...json, 'X-Slack-Request-Timestamp': String(t), 'X-Slack-Signature': slack }),
        { secret: 'slack-signing' },
      ],
      [
        'twilio',
        await send(
          '/twilio/sms?tenant=a',
          { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Twilio-Signature': twilio },
          form.toString(),
        ),
        { secret: 'twilio-token' },
      ],
      [
        'hmac_sha256',
        await send('/generic', { ...json, 'X-Signature': `sha256=${generic}` }),
        { secret: 'generic-key', header: 'X-Signature', prefix: 'sha256=' },
      ],
    ];
  }

  for (const door of ['http', 'stdio'] as const) {
    it(`[${door}] verifies each provider's signature and refuses another secret, saying why`, T, async () => {
      const client = door === 'http' ? http : stdio;
      for (const [provider, requestId, args] of await signedRequests()) {
        const good = await verify(client, requestId, { provider, ...args });
        assert.equal(good.valid, true, `${provider}: ${good.reason}`);
        assert.equal(good.provider, provider);
        assert.match(good.hint, /Valid/);
        if (provider !== 'twilio') assert.equal(good.checked.body_bytes, Buffer.byteLength(body));
        const bad = await verify(client, requestId, { provider, ...args, secret: wrongSecret(args.secret) });
        assert.equal(bad.valid, false, provider);
        assert.match(
          bad.reason,
          /(does not match|matches) HMAC-SHA(1|256) over .* with this (secret|auth token)/,
          provider,
        );
        assert.match(bad.hint, /Check the (secret|auth token)/, provider);
      }
    });
  }

  it(
    'verifies twilio over the capture URL by default, and over a url passed when the app was called elsewhere',
    T,
    async () => {
      const form = 'Body=hello&From=%2B15005550006';
      const elsewhere = 'https://tunnel.example.com/twilio/voice';
      const sig = createHmac('sha1', 'tok').update(`${elsewhere}BodyhelloFrom+15005550006`).digest('base64');
      const id = await send(
        '/twilio/voice',
        { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Twilio-Signature': sig },
        form,
      );
      const derived = await verify(http, id, { provider: 'twilio', secret: 'tok' });
      assert.equal(derived.valid, false);
      assert.equal(derived.checked.url, `${sb.capture_url}/twilio/voice`);
      assert.match(derived.hint, /pass url/);
      const given = await verify(http, id, { provider: 'twilio', secret: 'tok', url: elsewhere });
      assert.equal(given.valid, true, given.reason);
    },
  );

  it(
    "keeps the body byte-exact: the agent's own HMAC of `${t}.${body}` over the REST body matches Stripe's v1",
    T,
    async () => {
      const t = nowSeconds(server);
      const header = stripeHeader(t);
      const id = await send('/stripe/exact', {
        'Content-Type': 'application/json',
        'Stripe-Signature': header,
      });
      const res = await ws.api(`/sandboxes/${sb.sandbox_id}/requests/${id}`);
      const detail = (await res.json()) as Record<string, any>;
      assert.equal(detail.bodyTruncated, false);
      const own = createHmac('sha256', STRIPE_SECRET)
        .update(`${t}.${detail.body as string}`)
        .digest('hex');
      assert.equal(/v1=([0-9a-f]{64})/.exec(header)?.[1], own);
    },
  );

  it(
    'says a stale Stripe timestamp is outside the tolerance by how much; tolerance_seconds widens it',
    T,
    async () => {
      const signedAt = nowSeconds(server) - 3600;
      const id = await send('/stripe/stale', {
        'Content-Type': 'application/json',
        'Stripe-Signature': stripeHeader(signedAt),
      });
      const stale = await verify(http, id, { provider: 'stripe', secret: STRIPE_SECRET });
      assert.equal(stale.valid, false);
      assert.match(
        stale.reason,
        /matches, but its timestamp is 3,6\d\d s before the request arrived, 3,3\d\d s outside the 300 s tolerance/,
      );
      assert.equal(stale.checked.tolerance_seconds, 300);
      assert.match(stale.hint, /tolerance_seconds/);
      const wide = await verify(http, id, {
        provider: 'stripe',
        secret: STRIPE_SECRET,
        tolerance_seconds: 7200,
      });
      assert.equal(wide.valid, true, wide.reason);
    },
  );

  it('names the missing header and points at the provider whose header the request carries', T, async () => {
    const id = await send('/stripe/missing', {
      'Content-Type': 'application/json',
      'Stripe-Signature': stripeHeader(nowSeconds(server)),
    });
    const out = await verify(http, id, { provider: 'github', secret: 'gh-secret' });
    assert.equal(out.valid, false);
    assert.match(
      out.reason,
      /The X-Hub-Signature-256 header is missing\. The request carries Stripe-Signature \(provider stripe\)/,
    );
    assert.match(out.hint, /provider: "stripe"/);
    const unsigned = await send('/plain', { 'Content-Type': 'application/json' });
    const none = await verify(http, unsigned, { provider: 'slack', secret: 's' });
    assert.match(none.reason, /X-Slack-Signature header is missing/);
    for (const p of PROVIDERS) assert.ok(none.hint.includes(p), `${p} named in: ${none.hint}`);
  });

  it(
    'refuses an unknown provider and a hmac_sha256 call without header with INVALID_INPUT naming them',
    T,
    async () => {
      const id = await send('/x', { 'Content-Type': 'application/json' });
      for (const client of [http, stdio]) {
        const unknown = await fails(client, 'verify_signature', {
          sandbox_id: sb.sandbox_id,
          request_id: id,
          provider: 'paypal',
          secret: 's',
        });
        assert.match(unknown, /^INVALID_INPUT: .*provider/);
        for (const p of PROVIDERS) assert.ok(unknown.includes(p), `${p} listed in: ${unknown}`);
        const headerless = await fails(client, 'verify_signature', {
          sandbox_id: sb.sandbox_id,
          request_id: id,
          provider: 'hmac_sha256',
          secret: 's',
        });
        assert.match(headerless, /^INVALID_INPUT: .*header/);
      }
    },
  );

  it('checks a gzip body over the payload the sender signed, and says it was decoded', T, async () => {
    const t = nowSeconds(server);
    const id = await send(
      '/stripe/gzip',
      { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Stripe-Signature': stripeHeader(t) },
      gzipSync(body),
    );
    const out = await verify(http, id, { provider: 'stripe', secret: STRIPE_SECRET });
    assert.equal(out.valid, true, out.reason);
    assert.equal(out.checked.body_decoded_from, 'gzip');
    assert.equal(out.checked.body_bytes, Buffer.byteLength(body));
  });

  it('checks a body that is not UTF-8 over its bytes (stored and returned as base64)', T, async () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x41, 0xc3, 0x28, 0x80]);
    const sig = createHmac('sha256', 'bin-key').update(bytes).digest('base64');
    const id = await send('/binary', { 'Content-Type': 'application/octet-stream', 'X-Sig': sig }, bytes);
    for (const client of [http, stdio]) {
      const args = { provider: 'hmac_sha256', secret: 'bin-key', header: 'X-Sig', encoding: 'base64' };
      const out = await verify(client, id, args);
      assert.equal(out.valid, true, out.reason);
      assert.equal(out.checked.body_bytes, bytes.length);
    }
  });

  it('refuses a body the stored record cuts (over 1 MB) instead of checking part of it', T, async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 10) });
    const t = nowSeconds(server);
    const id = await send(
      '/stripe/big',
      { 'Content-Type': 'application/json', 'Stripe-Signature': stripeHeader(t, STRIPE_SECRET, big) },
      big,
    );
    for (const client of [http, stdio]) {
      const text = await fails(client, 'verify_signature', {
        sandbox_id: sb.sandbox_id,
        request_id: id,
        provider: 'stripe',
        secret: STRIPE_SECRET,
      });
      assert.match(text, /^PAYLOAD_TOO_LARGE: The body of request .* cannot be verified\. .*\/raw/);
    }
  });
});
