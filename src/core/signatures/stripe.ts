// Stripe: `Stripe-Signature: t=<unix>,v1=<hex>[,v1=...]`, HMAC-SHA256 of `<t>.<body>` keyed with the whole
// endpoint secret (`whsec_...` as written), compared with every v1 value; other schemes (v0) are ignored, as
// Stripe's libraries do. The timestamp must be within the tolerance (default 300 s) of the arrival.
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

const HEADER = 'Stripe-Signature';

export function verifyStripe(req: SignatureRequest): ProviderCheck {
  const checked = {
    header: HEADER,
    signatures: 0,
    signedContent: '{t}.{body}',
    bodyBytes: req.body.length,
    algorithm: 'HMAC-SHA256',
  };
  const value = headerValue(req.headers, HEADER);
  if (value === undefined) return refused('missing_header', `The ${HEADER} header is missing.`, checked);
  const items = value.split(',').map((item) => {
    const at = item.indexOf('=');
    return at < 0 ? ['', item.trim()] : [item.slice(0, at).trim(), item.slice(at + 1).trim()];
  });
  const t = unixSeconds(items.find(([k]) => k === 't')?.[1]);
  const v1 = items.filter(([k]) => k === 'v1').map(([, v]) => v ?? '');
  if (t === undefined) {
    return refused('malformed_header', `${HEADER} has no t=<unix seconds> timestamp.`, checked);
  }
  if (v1.length === 0) {
    const schemes = [...new Set(items.map(([k]) => k).filter((k) => k !== 't' && k !== ''))];
    const found = schemes.length === 0 ? '' : ` (it carries ${schemes.join(', ')} only)`;
    return refused('malformed_header', `${HEADER} has no v1= signature${found}.`, checked);
  }
  const tolerance = req.options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const full = { ...checked, signatures: v1.length, ...timing(t, req.now, tolerance) };
  const expected = hmac('sha256', req.secret, `${t}.`, req.body);
  const matched = v1.some((sig) => {
    const given = fromHex(sig);
    return given !== undefined && sameBytes(given, expected);
  });
  if (!matched) {
    const hint = req.secret.startsWith('whsec_')
      ? ''
      : ' Stripe signing secrets start with whsec_ (the endpoint secret, not an API key).';
    return mismatch(full, `No v1 signature in ${HEADER} matches`, hint);
  }
  return timedVerdict(full, `A v1 signature in ${HEADER}`);
}
