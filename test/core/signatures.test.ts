// Core signature checks against the providers' own signers (stripe, @octokit/webhooks-methods, standardwebhooks,
// svix) and their documented examples (Slack's worked example, twilio-node's test vectors): valid when signed
// right, and for each way it fails, a reason that names the header, the seconds or the secret.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
import { isAppError } from '../../src/core/errors.ts';
import {
  SIGNATURE_PROVIDERS,
  verifySignature,
  type VerifySignatureInput,
} from '../../src/core/signatures/index.ts';

const NOW = new Date('2026-03-01T12:00:00Z');
const T = Math.floor(NOW.getTime() / 1000);
const BODY = JSON.stringify({ id: 'evt_1', object: 'event', type: 'charge.succeeded', note: 'naïve ✓' });
const STRIPE_SECRET = 'whsec_test_secret_0123456789';
// A Standard Webhooks secret is whsec_ + base64 of random bytes.
const SW_SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;

type Headers = Record<string, string>;

function check(provider: string, secret: string, headers: Headers, options = {}, body = BODY, now = NOW) {
  const input: VerifySignatureInput = {
    provider,
    secret,
    headers: Object.entries(headers).map(([name, value]) => ({ name, value })),
    body: Buffer.from(body),
    now,
    options,
  };
  return verifySignature(input);
}

function stripeHeader(timestamp = T, secret = STRIPE_SECRET, payload = BODY): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
}

function refusal(fn: () => unknown): { message: string; paths: string[] } {
  try {
    fn();
  } catch (err) {
    assert.ok(isAppError(err) && err.code === 'invalid_input', `invalid_input, got ${String(err)}`);
    return { message: err.message, paths: (err.errors ?? []).map((e) => e.path) };
  }
  assert.fail('expected a refusal');
}

describe('verifySignature: stripe', () => {
  it('accepts a header from stripe.webhooks.generateTestHeaderString, as the library itself does', () => {
    const header = stripeHeader();
    const v = check('stripe', STRIPE_SECRET, { 'Stripe-Signature': header });
    assert.equal(v.valid, true, v.reason);
    assert.equal(v.failure, null);
    assert.equal(v.checked.ageSeconds, 0);
    assert.equal(v.checked.toleranceSeconds, 300);
    // Stripe's own verifier agrees at the same instant (its receivedAt argument).
    const event = Stripe.webhooks.constructEvent(BODY, header, STRIPE_SECRET, 300, undefined, NOW.getTime());
    assert.equal(event.id, 'evt_1');
  });

  it("is the agent's own HMAC: HMAC-SHA256 of `${t}.${body}` with the whole whsec_ secret", () => {
    const header = stripeHeader();
    const v1 = /v1=([0-9a-f]+)/.exec(header)?.[1];
    const own = createHmac('sha256', STRIPE_SECRET).update(`${T}.${BODY}`).digest('hex');
    assert.equal(v1, own);
  });

  it('says a wrong secret is a mismatch and that Stripe secrets start with whsec_', () => {
    const v = check('stripe', 'sk_test_not_the_webhook_secret', { 'Stripe-Signature': stripeHeader() });
    assert.equal(v.valid, false);
    assert.equal(v.failure, 'mismatch');
    assert.match(v.reason, /secret is wrong/);
    assert.match(v.reason, /start with whsec_/);
    const spaced = check('stripe', `${STRIPE_SECRET}\n`, { 'Stripe-Signature': stripeHeader() });
    assert.match(spaced.reason, /whitespace/);
  });

  it('says how far outside the tolerance a stale timestamp is, and honours tolerance_seconds', () => {
    const header = stripeHeader(T - 3600);
    const v = check('stripe', STRIPE_SECRET, { 'Stripe-Signature': header });
    assert.equal(v.valid, false);
    assert.equal(v.failure, 'stale_timestamp');
    assert.match(v.reason, /3,600 s before the request arrived, 3,300 s outside the 300 s tolerance/);
    assert.equal(
      check('stripe', STRIPE_SECRET, { 'Stripe-Signature': header }, { toleranceSeconds: 4000 }).valid,
      true,
    );
    assert.equal(
      check('stripe', STRIPE_SECRET, { 'Stripe-Signature': header }, { toleranceSeconds: 0 }).valid,
      true,
    );
    const ahead = check('stripe', STRIPE_SECRET, { 'Stripe-Signature': stripeHeader(T + 900) });
    assert.match(ahead.reason, /900 s after the request arrived/);
  });

  it('accepts any one matching v1 of several (a rolled secret) and ignores v0', () => {
    const good = /v1=([0-9a-f]+)/.exec(stripeHeader())?.[1];
    const header = `t=${T},v1=${'0'.repeat(64)},v1=${good},v0=${'1'.repeat(64)}`;
    const v = check('stripe', STRIPE_SECRET, { 'stripe-signature': header });
    assert.equal(v.valid, true, v.reason);
    assert.equal(v.checked.signatures, 2);
  });

  it('names the missing header and the signature header the request does carry', () => {
    const v = check('stripe', STRIPE_SECRET, { 'X-Hub-Signature-256': 'sha256=00' });
    assert.equal(v.failure, 'missing_header');
    assert.match(v.reason, /The Stripe-Signature header is missing/);
    assert.match(v.reason, /X-Hub-Signature-256 \(provider github\)/);
    const bare = check('stripe', STRIPE_SECRET, {});
    assert.match(bare.reason, new RegExp(SIGNATURE_PROVIDERS.join(', ')));
  });

  it('calls a header without t= or v1= malformed, saying which part is missing', () => {
    assert.match(check('stripe', STRIPE_SECRET, { 'Stripe-Signature': 'v1=abcd' }).reason, /no t=/);
    const v0only = check('stripe', STRIPE_SECRET, { 'Stripe-Signature': `t=${T},v0=abcd` });
    assert.equal(v0only.failure, 'malformed_header');
    assert.match(v0only.reason, /no v1= signature \(it carries v0 only\)/);
  });
});

describe('verifySignature: github', () => {
  it('accepts @octokit/webhooks-methods sign() and refuses another secret', async () => {
    const header = await githubSign('gh-secret', BODY);
    assert.equal(check('github', 'gh-secret', { 'X-Hub-Signature-256': header }).valid, true);
    const wrong = check('github', 'other', { 'X-Hub-Signature-256': header });
    assert.equal(wrong.failure, 'mismatch');
    assert.match(wrong.reason, /X-Hub-Signature-256 does not match HMAC-SHA256 over \{body\}/);
  });

  it('names the legacy SHA-1 header when it is the only one', () => {
    const v = check('github', 'gh-secret', { 'X-Hub-Signature': 'sha1=00' });
    assert.equal(v.failure, 'missing_header');
    assert.match(v.reason, /X-Hub-Signature-256 header is missing.*legacy SHA-1/);
  });

  it('calls a digest without sha256= malformed', () => {
    assert.equal(check('github', 's', { 'X-Hub-Signature-256': 'abcdef' }).failure, 'malformed_header');
  });
});

describe('verifySignature: standard_webhooks (and Svix)', () => {
  it('accepts standardwebhooks Webhook.sign() under webhook-* headers', () => {
    const sig = new StandardWebhook(SW_SECRET).sign('msg_1', NOW, BODY);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(T), 'webhook-signature': sig };
    const v = check('standard_webhooks', SW_SECRET, headers);
    assert.equal(v.valid, true, v.reason);
    assert.equal(v.checked.header, 'webhook-signature');
  });

  it('accepts svix Webhook.sign() under svix-* headers, among several space-separated signatures', () => {
    const sig = new SvixWebhook(SW_SECRET).sign('msg_2', NOW, BODY);
    const rolled = `v1,${Buffer.alloc(32).toString('base64')} v1a,ignored ${sig}`;
    const headers = { 'svix-id': 'msg_2', 'svix-timestamp': String(T), 'svix-signature': rolled };
    const v = check('standard_webhooks', SW_SECRET, headers);
    assert.equal(v.valid, true, v.reason);
    assert.equal(v.checked.signatures, 2);
    assert.equal(v.checked.header, 'svix-signature');
  });

  it('refuses another secret, a changed id, and a stale timestamp with the seconds', () => {
    const sig = new StandardWebhook(SW_SECRET).sign('msg_1', NOW, BODY);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(T), 'webhook-signature': sig };
    const other = `whsec_${Buffer.from('another secret of 32 bytes long!').toString('base64')}`;
    assert.equal(check('standard_webhooks', other, headers).failure, 'mismatch');
    assert.equal(
      check('standard_webhooks', SW_SECRET, { ...headers, 'webhook-id': 'msg_9' }).failure,
      'mismatch',
    );
    const later = new Date(NOW.getTime() + 600_000);
    const stale = check('standard_webhooks', SW_SECRET, headers, {}, BODY, later);
    assert.equal(stale.failure, 'stale_timestamp');
    assert.match(stale.reason, /600 s before the request arrived, 300 s outside the 300 s tolerance/);
  });

  it('names a missing id or timestamp header, and both names of a missing signature', () => {
    const sig = new StandardWebhook(SW_SECRET).sign('msg_1', NOW, BODY);
    const noId = check('standard_webhooks', SW_SECRET, {
      'webhook-timestamp': String(T),
      'webhook-signature': sig,
    });
    assert.match(noId.reason, /The webhook-id header is missing/);
    const none = check('standard_webhooks', SW_SECRET, {});
    assert.match(none.reason, /webhook-signature header is missing \(and so is svix-signature/);
  });

  it('refuses a secret that is not base64 as invalid input naming secret', () => {
    const sig = new StandardWebhook(SW_SECRET).sign('msg_1', NOW, BODY);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(T), 'webhook-signature': sig };
    assert.deepEqual(refusal(() => check('standard_webhooks', 'whsec_not base64!', headers)).paths, [
      'secret',
    ]);
  });
});

describe('verifySignature: shopify', () => {
  const mac = createHmac('sha256', 'shpss_secret').update(BODY).digest('base64');
  it('accepts the documented base64 HMAC-SHA256 of the body', () => {
    assert.equal(check('shopify', 'shpss_secret', { 'X-Shopify-Hmac-Sha256': mac }).valid, true);
    assert.equal(check('shopify', 'wrong', { 'X-Shopify-Hmac-Sha256': mac }).failure, 'mismatch');
    assert.equal(
      check('shopify', 'shpss_secret', { 'X-Shopify-Hmac-Sha256': '%%%' }).failure,
      'malformed_header',
    );
  });
  it('refuses a body changed by one byte', () => {
    const v = check('shopify', 'shpss_secret', { 'X-Shopify-Hmac-Sha256': mac }, {}, `${BODY} `);
    assert.equal(v.failure, 'mismatch');
  });
});

describe('verifySignature: slack', () => {
  // Slack's worked example in "Verifying requests from Slack".
  const secret = '8f742231b10e8888abcd99yyyzzz85a5';
  const body =
    'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&' +
    'channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&' +
    'response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&' +
    'trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
  const headers = {
    'X-Slack-Request-Timestamp': '1531420618',
    'X-Slack-Signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
  };
  const arrived = new Date(1531420618_000 + 2_000);

  it("accepts Slack's documented example", () => {
    const v = check('slack', secret, headers, {}, body, arrived);
    assert.equal(v.valid, true, v.reason);
  });

  it('names a missing timestamp header and counts a stale one', () => {
    const noTs = check(
      'slack',
      secret,
      { 'X-Slack-Signature': headers['X-Slack-Signature'] },
      {},
      body,
      arrived,
    );
    assert.match(noTs.reason, /X-Slack-Request-Timestamp header is missing/);
    const late = new Date(1531420618_000 + 400_000);
    assert.match(check('slack', secret, headers, {}, body, late).reason, /400 s before .* 100 s outside/);
  });
});

describe('verifySignature: twilio', () => {
  // twilio-node's own test vectors (spec/validation.spec.js): auth token 12345.
  const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
  const params = {
    CallSid: 'CA1234567890ABCDE',
    Caller: '+14158675309',
    Digits: '1234',
    From: '+14158675309',
    To: '+18005551212',
  };
  const form = new URLSearchParams(params).toString();
  const formHeaders = (signature: string) => ({
    'Content-Type': 'application/x-www-form-urlencoded',
    'X-Twilio-Signature': signature,
  });

  it('accepts HMAC-SHA1 over the URL and the sorted form parameters', () => {
    const v = check('twilio', '12345', formHeaders('RSOYDt4T1cUTdK1PDd93/VVr8B8='), { url }, form);
    assert.equal(v.valid, true, v.reason);
    assert.equal(v.checked.url, url);
  });

  it('matches with the default port written out, as Twilio may have signed it', () => {
    const v = check(
      'twilio',
      '12345',
      formHeaders('RSOYDt4T1cUTdK1PDd93/VVr8B8='),
      { url: 'https://mycompany.com:443/myapp.php?foo=1&bar=2' },
      form,
    );
    assert.equal(v.valid, true, v.reason);
  });

  it('checks a JSON body through the bodySHA256 parameter', () => {
    const body = '{"property": "value", "boolean": true}';
    const hashed = `${url}&bodySHA256=0a1ff7634d9ab3b95db5c9a2dfe9416e41502b283a80c7cf19632632f96e6620`;
    const headers = {
      'Content-Type': 'application/json',
      'X-Twilio-Signature': 'a9nBmqA0ju/hNViExpshrM61xv4=',
    };
    assert.equal(check('twilio', '12345', headers, { url: hashed }, body).valid, true);
    const changed = check('twilio', '12345', headers, { url: hashed }, body.replace('value', 'other'));
    assert.match(changed.reason, /does not hash to its bodySHA256/);
  });

  it('says the URL may differ when nothing matches, and reads HMAC_SHA256 from the settings header', () => {
    const v = check(
      'twilio',
      '12345',
      formHeaders('RSOYDt4T1cUTdK1PDd93/VVr8B8='),
      { url: 'https://tunnel.example/myapp.php' },
      form,
    );
    assert.equal(v.failure, 'mismatch');
    assert.match(v.reason, /over https:\/\/tunnel\.example\/myapp\.php .*another URL/);
    const data =
      url +
      Object.keys(params)
        .sort()
        .map((k) => k + params[k as keyof typeof params])
        .join('');
    const sha256 = createHmac('sha256', 'shared').update(data).digest('base64');
    const headers = {
      ...formHeaders(sha256),
      'X-Twilio-Webhooks-Signature-Settings': 'key=wk_1,algorithm=HMAC_SHA256',
    };
    const ok = check('twilio', 'shared', headers, { url }, form);
    assert.equal(ok.valid, true, ok.reason);
    assert.equal(ok.checked.algorithm, 'HMAC-SHA256');
  });
});

describe('verifySignature: hmac_sha256', () => {
  const hex = createHmac('sha256', 'k').update(BODY).digest('hex');
  const b64 = createHmac('sha256', 'k').update(BODY).digest('base64');

  it('checks hex with a prefix and base64 without one', () => {
    assert.equal(
      check('hmac_sha256', 'k', { 'X-Sig': `sha256=${hex}` }, { header: 'x-sig', prefix: 'sha256=' }).valid,
      true,
    );
    assert.equal(
      check('hmac_sha256', 'k', { 'X-Sig': b64 }, { header: 'X-Sig', encoding: 'base64' }).valid,
      true,
    );
    assert.equal(
      check('hmac_sha256', 'j', { 'X-Sig': b64 }, { header: 'X-Sig', encoding: 'base64' }).failure,
      'mismatch',
    );
  });

  it('suggests the prefix when the value starts with one, and names a missing header', () => {
    const v = check('hmac_sha256', 'k', { 'X-Sig': `sha256=${hex}` }, { header: 'X-Sig' });
    assert.equal(v.failure, 'malformed_header');
    assert.match(v.reason, /starts with "sha256=": pass that as the prefix/);
    assert.match(check('hmac_sha256', 'k', {}, { header: 'X-Sig' }).reason, /The X-Sig header is missing/);
  });

  it('refuses a call without header as invalid input naming header', () => {
    assert.deepEqual(refusal(() => check('hmac_sha256', 'k', {})).paths, ['header']);
  });
});

describe('verifySignature: input', () => {
  it('refuses an unknown provider, listing every provider', () => {
    const { message, paths } = refusal(() => check('paypal', 's', {}));
    assert.deepEqual(paths, ['provider']);
    for (const p of SIGNATURE_PROVIDERS) assert.ok(message.includes(p), `${p} listed in: ${message}`);
  });

  it('refuses an empty secret naming secret', () => {
    assert.deepEqual(refusal(() => check('github', '', {})).paths, ['secret']);
  });
});
