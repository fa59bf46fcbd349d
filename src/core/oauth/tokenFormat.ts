// The opaque strings OAuth hands out (access and refresh tokens, codes, client ids and secrets): 32 random bytes
// behind a prefix that says what each is, stored only as SHA-256, compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const PREFIX = {
  access: 'sta_',
  refresh: 'str_',
  code: 'stc_',
  secret: 'sts_',
  clientId: 'stcl_',
} as const;

const SECRET_SHAPE = /^(sta|str|stc|sts)_[A-Za-z0-9_-]{43}$/;
const CLIENT_ID_SHAPE = /^stcl_[A-Za-z0-9_-]{22}$/;

export function newSecret(kind: 'access' | 'refresh' | 'code' | 'secret'): string {
  return `${PREFIX[kind]}${randomBytes(32).toString('base64url')}`;
}

export function newClientId(): string {
  return `${PREFIX.clientId}${randomBytes(16).toString('base64url')}`;
}

/** True when the string has the shape of one of our secrets of this kind (nothing else reaches the store). */
export function hasShape(value: string, kind: 'access' | 'refresh' | 'code' | 'secret'): boolean {
  return value.startsWith(PREFIX[kind]) && SECRET_SHAPE.test(value);
}

export function isRegisteredClientId(value: string): boolean {
  return CLIENT_ID_SHAPE.test(value);
}

/** An access or refresh token of ours (so REST can say "this is for /mcp" rather than "malformed key"). */
export function isOAuthToken(value: string): boolean {
  return hasShape(value, 'access') || hasShape(value, 'refresh');
}

export function hashSecret(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function sameHash(presented: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(presented), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** RFC 7636 §4.6: BASE64URL(SHA256(ASCII(code_verifier))) === code_challenge. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

/** RFC 7636 §4.1: 43–128 characters of [A-Z a-z 0-9 - . _ ~]. */
export const VERIFIER_SHAPE = /^[A-Za-z0-9._~-]{43,128}$/;
/** An S256 challenge is the base64url of 32 bytes: 43 characters. */
export const S256_CHALLENGE_SHAPE = /^[A-Za-z0-9_-]{43}$/;
