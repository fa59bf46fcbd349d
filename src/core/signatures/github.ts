// GitHub: `X-Hub-Signature-256: sha256=<hex>`, HMAC-SHA256 of the body keyed with the webhook secret. The
// legacy SHA-1 `X-Hub-Signature` is not checked (GitHub recommends the SHA-256 one), only named when alone.
import {
  fromHex,
  headerValue,
  hmac,
  mismatch,
  refused,
  sameBytes,
  type ProviderCheck,
  type SignatureRequest,
} from './common.ts';

const HEADER = 'X-Hub-Signature-256';

export function verifyGithub(req: SignatureRequest): ProviderCheck {
  const checked = {
    header: HEADER,
    signatures: 0,
    signedContent: '{body}',
    bodyBytes: req.body.length,
    algorithm: 'HMAC-SHA256',
  };
  const value = headerValue(req.headers, HEADER);
  if (value === undefined) {
    const legacy =
      headerValue(req.headers, 'X-Hub-Signature') === undefined
        ? ''
        : ' Only the legacy SHA-1 X-Hub-Signature is present, which this check does not accept.';
    return refused('missing_header', `The ${HEADER} header is missing.${legacy}`, checked);
  }
  const match = /^sha256=(.*)$/i.exec(value.trim());
  const given = match === null ? undefined : fromHex(match[1] ?? '');
  if (given === undefined) {
    return refused('malformed_header', `${HEADER} is not sha256=<hex digest>.`, checked);
  }
  const full = { ...checked, signatures: 1 };
  if (!sameBytes(given, hmac('sha256', req.secret, req.body)))
    return mismatch(full, `${HEADER} does not match`);
  return { valid: true, failure: null, reason: `${HEADER} matches.`, checked: full };
}
