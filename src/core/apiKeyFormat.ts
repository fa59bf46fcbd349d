// API key format: `stk_` + 32 random base62 chars + a 6-char base62 CRC32 of them, so typos are refused
// before the store is touched. Only the SHA-256 of a key is ever stored.
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { BASE62, randomBase62 } from './random.ts';

export const KEY_PREFIX = 'stk_';
const BODY_LENGTH = 32;
const CHECK_LENGTH = 6;
const KEY_SHAPE = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECK_LENGTH}}$`);

function checksum(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < CHECK_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export function generateApiKey(): string {
  const body = randomBase62(BODY_LENGTH);
  return `${KEY_PREFIX}${body}${checksum(body)}`;
}

export function isValidApiKeyFormat(key: string): boolean {
  if (!KEY_SHAPE.test(key)) return false;
  const body = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + BODY_LENGTH);
  return checksum(body) === key.slice(KEY_PREFIX.length + BODY_LENGTH);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** What listings show of a key: enough to recognise it, never enough to use it. */
export function displayPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + 8);
}
