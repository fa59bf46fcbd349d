// Slack: `X-Slack-Signature: v0=<hex>`, HMAC-SHA256 of `v0:<timestamp>:<body>` keyed with the signing
// secret, where the timestamp is X-Slack-Request-Timestamp; Slack's documented tolerance is 5 minutes.
import {
  DEFAULT_TOLERANCE_SECONDS,
  fromHex,
  headerValue,
  hmac,
  mismatch,
  refused,
  sameBytes,
  timedVerdict,
  timing,
  unixSeconds,
  type ProviderCheck,
  type SignatureRequest,
} from './common.ts';

const HEADER = 'X-Slack-Signature';
const TIMESTAMP = 'X-Slack-Request-Timestamp';

export function verifySlack(req: SignatureRequest): ProviderCheck {
  const checked = {
    header: HEADER,
    signatures: 0,
    signedContent: 'v0:{timestamp}:{body}',
    bodyBytes: req.body.length,
    algorithm: 'HMAC-SHA256',
  };
  const value = headerValue(req.headers, HEADER);
  if (value === undefined) return refused('missing_header', `The ${HEADER} header is missing.`, checked);
  const rawTimestamp = headerValue(req.headers, TIMESTAMP);
  if (rawTimestamp === undefined) {
    return refused('missing_header', `The ${TIMESTAMP} header is missing; ${HEADER} signs it.`, checked);
  }
  const t = unixSeconds(rawTimestamp);
  if (t === undefined) return refused('malformed_header', `${TIMESTAMP} is not Unix seconds.`, checked);
  const match = /^v0=(.*)$/.exec(value.trim());
  const given = match === null ? undefined : fromHex(match[1] ?? '');
  if (given === undefined) return refused('malformed_header', `${HEADER} is not v0=<hex digest>.`, checked);
  const tolerance = req.options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const full = { ...checked, signatures: 1, ...timing(t, req.now, tolerance) };
  if (!sameBytes(given, hmac('sha256', req.secret, `v0:${t}:`, req.body)))
    return mismatch(full, `${HEADER} does not match`);
  return timedVerdict(full, HEADER);
}
