// Webhook signature verification: does a captured request carry a valid signature from a given provider, and
// if not, why. Pure functions over the request as the app received it (headers, the exact body bytes, the
// instant it arrived); node:crypto only. Each provider's documented algorithm lives in its own file.
import { z } from 'zod';
import { invalidInput } from '../errors.ts';
import { intField, text, textMax } from '../schemas.ts';
import { parseInput } from '../validation.ts';
import type { NameValue } from '../store/schema.ts';
import {
  headerValue,
  SIGNATURE_PROVIDERS,
  type ProviderCheck,
  type SignatureOptions,
  type SignatureProvider,
  type SignatureRequest,
  type SignatureVerdict,
} from './common.ts';
import { verifyGithub } from './github.ts';
import { verifyHmacSha256 } from './hmacSha256.ts';
import { verifyShopify } from './shopify.ts';
import { verifySlack } from './slack.ts';
import { verifyStandardWebhooks } from './standardWebhooks.ts';
import { verifyStripe } from './stripe.ts';
import { verifyTwilio } from './twilio.ts';

export {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_PROVIDERS,
  type SignatureChecked,
  type SignatureFailure,
  type SignatureOptions,
  type SignatureProvider,
  type SignatureVerdict,
} from './common.ts';

const CHECKS: Record<SignatureProvider, (req: SignatureRequest) => ProviderCheck> = {
  stripe: verifyStripe,
  github: verifyGithub,
  standard_webhooks: verifyStandardWebhooks,
  shopify: verifyShopify,
  slack: verifySlack,
  twilio: verifyTwilio,
  hmac_sha256: verifyHmacSha256,
};

/** The one place a provider list is spelled out for people. */
export const PROVIDER_LIST = SIGNATURE_PROVIDERS.join(', ');

/** The header each provider signs in, so a request signed by another provider can be pointed out. */
const SIGNATURE_HEADERS: ReadonlyArray<readonly [string, SignatureProvider]> = [
  ['Stripe-Signature', 'stripe'],
  ['X-Hub-Signature-256', 'github'],
  ['webhook-signature', 'standard_webhooks'],
  ['svix-signature', 'standard_webhooks'],
  ['X-Shopify-Hmac-Sha256', 'shopify'],
  ['X-Slack-Signature', 'slack'],
  ['X-Twilio-Signature', 'twilio'],
];

/** The known signature headers a request carries, with the provider that checks each. */
export function signatureHeadersOn(
  headers: NameValue[],
): Array<{ header: string; provider: SignatureProvider }> {
  return SIGNATURE_HEADERS.filter(([name]) => headerValue(headers, name) !== undefined).map(
    ([header, provider]) => ({ header, provider }),
  );
}

/**
 * `textMax` without its JSON Schema bound: these seldom-used options keep their limit but not the characters it
 * costs in every model's tools/list (which has a budget).
 */
function bounded(max: number) {
  return text().pipe(z.string().max(max, `at most ${max} characters`));
}

/**
 * The options every door validates the same way; `provider` is checked apart so an unknown one is refused with
 * the list of known ones.
 */
export const signatureOptionsSchema = z.object({
  secret: textMax(4096).pipe(z.string().min(1, 'must not be empty')),
  toleranceSeconds: intField(0, 86_400).optional(),
  url: bounded(8192).optional(),
  header: bounded(256).optional(),
  encoding: z.enum(['hex', 'base64']).optional(),
  prefix: bounded(64).optional(),
});

export interface VerifySignatureInput {
  provider: string;
  secret: string;
  headers: NameValue[];
  /** The body exactly as the app received it (after any Content-Encoding is undone: see the tool's note). */
  body: Uint8Array;
  /** The instant a receiver checks at: the capture's arrival, so a request read back later is judged fairly. */
  now: Date;
  options?: SignatureOptions;
}

export function isSignatureProvider(name: string): name is SignatureProvider {
  return (SIGNATURE_PROVIDERS as readonly string[]).includes(name);
}

/** Verifies the request's signature for `provider`; an unknown provider or a bad option is invalid_input. */
export function verifySignature(input: VerifySignatureInput): SignatureVerdict {
  const { provider } = input;
  if (!isSignatureProvider(provider)) {
    throw invalidInput(`Unknown signature provider "${provider}"; the providers are ${PROVIDER_LIST}.`, [
      { path: 'provider', message: `must be one of ${PROVIDER_LIST}` },
    ]);
  }
  const { secret, ...options } = parseInput(
    signatureOptionsSchema,
    { secret: input.secret, ...input.options },
    'signature check',
  );
  const body = Buffer.from(input.body.buffer, input.body.byteOffset, input.body.byteLength);
  const check = CHECKS[provider]({ secret, headers: input.headers, body, now: input.now, options });
  if (check.failure === 'mismatch' && secret.trim() !== secret) {
    const note = ' The secret starts or ends with whitespace: an extra newline or space copied with it?';
    return { provider, ...check, reason: check.reason + note };
  }
  if (check.failure !== 'missing_header') return { provider, ...check };
  // A missing header is often the wrong provider: name the signature headers the request does carry.
  const others = signatureHeadersOn(input.headers).filter((h) => h.provider !== provider);
  const seen =
    others.length === 0
      ? ` The request carries no signature header of a known provider (${PROVIDER_LIST}).`
      : ` The request carries ${others.map((h) => `${h.header} (provider ${h.provider})`).join(', ')}.`;
  return { provider, ...check, reason: check.reason + seen };
}
