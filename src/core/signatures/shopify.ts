// Shopify: `X-Shopify-Hmac-Sha256: <base64>`, HMAC-SHA256 of the body keyed with the app's client secret.
// Shopify signs no timestamp, so there is nothing to hold against a tolerance.
import type { ProviderCheck, SignatureRequest } from './common.ts';
import { verifyBodyHmac } from './hmacSha256.ts';

export function verifyShopify(req: SignatureRequest): ProviderCheck {
  return verifyBodyHmac(req, { header: 'X-Shopify-Hmac-Sha256', prefix: '', encoding: 'base64' });
}
