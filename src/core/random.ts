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
  const now = Date.now();
  const random = pooledRandom16();
  // uuid's own monotonic rule (its default path keeps this state itself, but then draws its random bytes with one
  // getRandomValues call per id, which was 10 µs of every capture): a new millisecond starts a random sequence;
  // within one the sequence counts up, and its overflow moves to the next millisecond.
  if (now > lastMsecs) {
    lastMsecs = now;
    seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
  } else {
    seq = (seq + 1) | 0;
    if (seq === 0) lastMsecs++;
  }
  return uuidv7({ random, msecs: lastMsecs, seq });
}

let lastMsecs = -Infinity;
let seq = 0;
/** CSPRNG bytes drawn 4 KB at a time (256 ids), as node's randomUUID buffers its own. */
const POOL_BYTES = 4096;
let pool = new Uint8Array(0);
let pooled = 0;

function pooledRandom16(): Uint8Array {
  if (pooled + 16 > pool.length) {
    pool = randomBytes(POOL_BYTES);
    pooled = 0;
  }
  const bytes = pool.subarray(pooled, pooled + 16);
  pooled += 16;
  return bytes;
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
