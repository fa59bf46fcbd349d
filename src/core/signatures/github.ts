// GitHub: `X-Hub-Signature-256: sha256=<hex>`, HMAC-SHA256 of the body keyed with the webhook secret. The
// legacy SHA-1 `X-Hub-Signature` is not checked (GitHub recommends the SHA-256 one), only named when alone.
import { headerValue, type ProviderCheck, type SignatureRequest } from './common.ts';
import { verifyBodyHmac } from './hmacSha256.ts';

const HEADER = 'X-Hub-Signature-256';

export function verifyGithub(req: SignatureRequest): ProviderCheck {
  const check = verifyBodyHmac(req, { header: HEADER, prefix: 'sha256=', encoding: 'hex' });
  if (check.failure !== 'missing_header' || headerValue(req.headers, 'X-Hub-Signature') === undefined)
    return check;
  return {
    ...check,
    reason: `${check.reason} Only the legacy SHA-1 X-Hub-Signature is present, which this check does not accept.`,
  };
}
