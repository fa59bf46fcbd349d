// Identifiers and secrets from the platform CSPRNG, and the shape of an id.
import { randomBytes, randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** An id as sandtrap issues them (lower case) or accepts them (any case): ids in paths, hosts, cursors. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function newId(): string {
  return randomUUID();
}

/**
 * The id of a captured email or request: a UUIDv7, ordered by when it was made and monotonic within a
 * millisecond, so lists and wait marks that order by (received_at, id) put two items of one millisecond in the
 * order they arrived (a wait never calls the resent code older than the one it replaced).
 */
export function newItemId(): string {
  return uuidv7();
}

/** Uniform base62 string: bytes >= 248 are rejected so every character is equally likely. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function newSmtpPassword(): string {
  return randomBase62(32);
}
