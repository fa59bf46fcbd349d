// What every signature check shares: the verdict shape, header look-up, HMAC, timing-safe comparison, strict
// hex/base64 decoding and the timestamp tolerance rule, so each provider file holds only its own scheme.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { NameValue } from '../store/schema.ts';

export const SIGNATURE_PROVIDERS = [
  'stripe',
  'github',
  'standard_webhooks',
  'shopify',
  'slack',
  'twilio',
  'hmac_sha256',
] as const;

export type SignatureProvider = (typeof SIGNATURE_PROVIDERS)[number];

/** Why a signature did not verify, as a word a program can branch on; `reason` says it for people. */
export type SignatureFailure = 'missing_header' | 'malformed_header' | 'stale_timestamp' | 'mismatch';

/** What was looked at, so a reader can see which header, which bytes and which instant the verdict rests on. */
export interface SignatureChecked {
  /** The signature header read (as the provider names it), or the one that was looked for and missing. */
  header: string;
  /** How many candidate signatures the header carried (Stripe and Standard Webhooks may send several). */
  signatures: number;
  /** What the HMAC runs over, e.g. `{t}.{body}`. */
  signedContent: string;
  bodyBytes: number;
  algorithm: string;
  /** The signed timestamp (Unix seconds), for schemes that sign one. */
  timestamp?: number;
  /** `now` minus the timestamp, in seconds; negative when the timestamp is ahead. */
  ageSeconds?: number;
  /** The tolerance applied; 0 means the timestamp was not checked. */
  toleranceSeconds?: number;
  /** Twilio: the URL the signature was computed over (the one that matched, else the one given). */
  url?: string;
}

export interface SignatureVerdict {
  valid: boolean;
  /** One or two sentences: why it is valid, or exactly what failed (header named, seconds counted). */
  reason: string;
  provider: SignatureProvider;
  failure: SignatureFailure | null;
  checked: SignatureChecked;
}

export interface SignatureOptions {
  /** Timestamped schemes (stripe, slack, standard_webhooks): allowed skew in seconds; 0 turns the check off. */
  toleranceSeconds?: number | undefined;
  /** twilio: the full URL the sender called, query included. */
  url?: string | undefined;
  /** hmac_sha256: the header carrying the signature. */
  header?: string | undefined;
  /** hmac_sha256: how the signature is written (default hex). */
  encoding?: 'hex' | 'base64' | undefined;
  /** hmac_sha256: text before the signature in the header, e.g. `sha256=`. */
  prefix?: string | undefined;
}

/** What one provider's check gets: the request as the app received it and the instant it arrived. */
export interface SignatureRequest {
  secret: string;
  headers: NameValue[];
  body: Buffer;
  now: Date;
  options: SignatureOptions;
}

export type ProviderCheck = Omit<SignatureVerdict, 'provider'>;

/** The default skew for timestamped schemes: Stripe's, Slack's and Standard Webhooks' documented 5 minutes. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The first value of a header, by case-insensitive name; undefined when absent. */
export function headerValue(headers: NameValue[], name: string): string | undefined {
  const lower = name.toLowerCase();
  return headers.find((h) => h.name.toLowerCase() === lower)?.value;
}

export function hmac(algorithm: 'sha1' | 'sha256', key: string | Buffer, ...parts: Array<string | Buffer>) {
  const mac = createHmac(algorithm, key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/** Timing-safe equality; unequal lengths answer false at once (the length of a digest is no secret). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Hex as written, or undefined when it is not hex (Buffer.from would silently stop at the first bad digit). */
export function fromHex(text: string): Buffer | undefined {
  return /^(?:[0-9a-fA-F]{2})+$/.test(text) ? Buffer.from(text, 'hex') : undefined;
}

/** Standard base64 as written, or undefined when it is not (Buffer.from would skip the bad characters). */
export function fromBase64(text: string): Buffer | undefined {
  return text.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(text)
    ? Buffer.from(text, 'base64')
    : undefined;
}

const NUMBER = new Intl.NumberFormat('en-US');
export const count = (n: number) => NUMBER.format(n);

/** A verdict that never reached the HMAC: a header missing or not in the provider's format. */
export function refused(
  failure: 'missing_header' | 'malformed_header',
  reason: string,
  checked: SignatureChecked,
): ProviderCheck {
  return { valid: false, reason, failure, checked };
}

/** `lead` reads on into "… HMAC-SHA256 over …": `X-Foo does not match` or `No v1 signature in X-Foo matches`. */
export function mismatch(checked: SignatureChecked, lead: string, hint = ''): ProviderCheck {
  return {
    valid: false,
    failure: 'mismatch',
    reason:
      `${lead} ${checked.algorithm} over ${checked.signedContent} (${count(checked.bodyBytes)}-byte ` +
      `body) with this secret: the secret is wrong, or the body was changed after signing.${hint}`,
    checked,
  };
}

/**
 * A matching signature still fails when its timestamp is further than the tolerance from the moment the
 * request arrived, either way (a replay, or a sender clock that is off).
 */
export function timedVerdict(checked: SignatureChecked, what: string): ProviderCheck {
  const age = checked.ageSeconds ?? 0;
  const tolerance = checked.toleranceSeconds ?? 0;
  if (tolerance > 0 && Math.abs(age) > tolerance) {
    const side = age > 0 ? 'before' : 'after';
    return {
      valid: false,
      failure: 'stale_timestamp',
      reason:
        `${what} matches, but its timestamp is ${count(Math.abs(age))} s ${side} the request arrived, ` +
        `${count(Math.abs(age) - tolerance)} s outside the ${count(tolerance)} s tolerance: a receiver rejects it ` +
        '(a replay, or a sender clock that is off).',
      checked,
    };
  }
  const within =
    tolerance > 0 ? `; its timestamp is ${count(age)} s from arrival, within ${count(tolerance)} s` : '';
  return { valid: true, failure: null, reason: `${what} matches${within}.`, checked };
}

/** Unix seconds written as digits only, as every timestamped scheme sends them. */
export function unixSeconds(text: string | undefined): number | undefined {
  return text !== undefined && /^\d{1,12}$/.test(text.trim()) ? Number(text.trim()) : undefined;
}

/** Timestamp fields of `checked` for a signed instant `t`, seen at `now` with `tolerance`. */
export function timing(t: number, now: Date, tolerance: number) {
  return {
    timestamp: t,
    ageSeconds: Math.floor(now.getTime() / 1000) - t,
    toleranceSeconds: tolerance,
  };
}
