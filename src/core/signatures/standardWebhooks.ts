// Standard Webhooks (and Svix, which uses the same scheme under svix-* names): HMAC-SHA256 of
// `<id>.<timestamp>.<body>` keyed with the base64 secret after its `whsec_` prefix, base64-encoded; the
// signature header holds space-separated `v1,<base64>` entries and any one may match. Other versions (the
// asymmetric v1a) are ignored. The timestamp must be within the tolerance (default 300 s) either way.
import { invalidInput } from '../errors.ts';
import {
  DEFAULT_TOLERANCE_SECONDS,
  fromBase64,
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

/** The key bytes of a `whsec_<base64>` secret (the prefix is optional, as in the reference libraries). */
function keyOf(secret: string): Buffer {
  const key = fromBase64(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  if (key === undefined) {
    throw invalidInput('The secret is not a Standard Webhooks secret.', [
      { path: 'secret', message: 'must be whsec_ followed by base64 (as the sender shows it)' },
    ]);
  }
  return key;
}

export function verifyStandardWebhooks(req: SignatureRequest): ProviderCheck {
  // Svix sends svix-*; senders following the specification send webhook-*. Whichever signature header is
  // present decides which family the id and timestamp are read from.
  const family = headerValue(req.headers, 'webhook-signature') !== undefined ? 'webhook' : 'svix';
  const name = (field: string) => `${family}-${field}`;
  const checked = {
    header: name('signature'),
    signatures: 0,
    signedContent: '{id}.{timestamp}.{body}',
    bodyBytes: req.body.length,
    algorithm: 'HMAC-SHA256',
  };
  const signature = headerValue(req.headers, name('signature'));
  if (signature === undefined) {
    return refused(
      'missing_header',
      'The webhook-signature header is missing (and so is svix-signature, its Svix name).',
      { ...checked, header: 'webhook-signature' },
    );
  }
  const id = headerValue(req.headers, name('id'));
  const rawTimestamp = headerValue(req.headers, name('timestamp'));
  for (const [field, value] of [
    ['id', id],
    ['timestamp', rawTimestamp],
  ] as const) {
    if (value === undefined) {
      return refused(
        'missing_header',
        `The ${name(field)} header is missing; it is part of what ${name('signature')} signs.`,
        checked,
      );
    }
  }
  const t = unixSeconds(rawTimestamp);
  if (t === undefined) {
    return refused('malformed_header', `${name('timestamp')} is not Unix seconds.`, checked);
  }
  const entries = signature.split(' ').filter((e) => e !== '');
  const v1 = entries.filter((e) => e.startsWith('v1,')).map((e) => e.slice(3));
  if (v1.length === 0) {
    return refused(
      'malformed_header',
      `${name('signature')} has no v1,<base64> entry (it carries ${entries.length} other entr${entries.length === 1 ? 'y' : 'ies'}).`,
      checked,
    );
  }
  const tolerance = req.options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const full = { ...checked, signatures: v1.length, ...timing(t, req.now, tolerance) };
  const expected = hmac('sha256', keyOf(req.secret), `${id}.${t}.`, req.body);
  const matched = v1.some((sig) => {
    const given = fromBase64(sig);
    return given !== undefined && sameBytes(given, expected);
  });
  if (!matched) return mismatch(full, `No v1 signature in ${name('signature')} matches`);
  return timedVerdict(full, `A v1 signature in ${name('signature')}`);
}
