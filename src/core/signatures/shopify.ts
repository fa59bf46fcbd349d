// Shopify: `X-Shopify-Hmac-Sha256: <base64>`, HMAC-SHA256 of the body keyed with the app's client secret.
// Shopify signs no timestamp, so there is nothing to hold against a tolerance.
import {
  fromBase64,
  headerValue,
  hmac,
  mismatch,
  refused,
  sameBytes,
  type ProviderCheck,
  type SignatureRequest,
} from './common.ts';

const HEADER = 'X-Shopify-Hmac-Sha256';

export function verifyShopify(req: SignatureRequest): ProviderCheck {
  const checked = {
    header: HEADER,
    signatures: 0,
    signedContent: '{body}',
    bodyBytes: req.body.length,
    algorithm: 'HMAC-SHA256',
  };
  const value = headerValue(req.headers, HEADER);
  if (value === undefined) return refused('missing_header', `The ${HEADER} header is missing.`, checked);
  const given = fromBase64(value.trim());
  if (given === undefined) return refused('malformed_header', `${HEADER} is not base64.`, checked);
  const full = { ...checked, signatures: 1 };
  if (!sameBytes(given, hmac('sha256', req.secret, req.body)))
    return mismatch(full, `${HEADER} does not match`);
  return { valid: true, failure: null, reason: `${HEADER} matches.`, checked: full };
}
