// A generic HMAC-SHA256 of the body keyed with the secret, for senders without a named scheme: the caller says
// which header holds it, whether it is hex or base64, and any text before it (`sha256=`).
import { invalidInput } from '../errors.ts';
import {
  fromBase64,
  fromHex,
  headerValue,
  hmac,
  mismatch,
  refused,
  sameBytes,
  type ProviderCheck,
  type SignatureRequest,
} from './common.ts';

export function verifyHmacSha256(req: SignatureRequest): ProviderCheck {
  const { header, prefix = '', encoding = 'hex' } = req.options;
  if (header === undefined || header.trim() === '') {
    throw invalidInput('The hmac_sha256 provider needs the name of the signature header.', [
      { path: 'header', message: 'is required for hmac_sha256, e.g. X-Signature' },
    ]);
  }
  return verifyBodyHmac(req, { header, prefix, encoding });
}

/**
 * HMAC-SHA256 of the body alone in one header: the generic provider, and the named schemes that are exactly
 * this (GitHub: `sha256=` and hex; Shopify: base64).
 */
export function verifyBodyHmac(
  req: SignatureRequest,
  scheme: { header: string; prefix: string; encoding: 'hex' | 'base64' },
): ProviderCheck {
  const { header, prefix, encoding } = scheme;
  const checked = {
    header,
    signatures: 0,
    signedContent: '{body}',
    bodyBytes: req.body.length,
    algorithm: 'HMAC-SHA256',
  };
  const value = headerValue(req.headers, header)?.trim();
  if (value === undefined) return refused('missing_header', `The ${header} header is missing.`, checked);
  if (!value.toLowerCase().startsWith(prefix.toLowerCase())) {
    return refused('malformed_header', `${header} does not start with the prefix "${prefix}".`, checked);
  }
  const digest = value.slice(prefix.length);
  const given = encoding === 'hex' ? fromHex(digest) : fromBase64(digest);
  if (given === undefined) {
    const looksPrefixed = /^[A-Za-z0-9_-]{1,20}[=:]/.exec(digest)?.[0];
    const hint =
      looksPrefixed === undefined ? '' : ` It starts with "${looksPrefixed}": pass that as the prefix.`;
    return refused('malformed_header', `${header} is not ${encoding} after the prefix.${hint}`, checked);
  }
  const full = { ...checked, signatures: 1 };
  if (!sameBytes(given, hmac('sha256', req.secret, req.body)))
    return mismatch(full, `${header} does not match`);
  return { valid: true, failure: null, reason: `${header} matches.`, checked: full };
}
