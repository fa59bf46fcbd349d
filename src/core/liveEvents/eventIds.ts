// Event ids as clients see them: the stream position under a keyed permutation, so an id says nothing about
// other workspaces' activity (a global position would: the gap between two of a tenant's ids counts everyone
// else's events). One AES-256 block of (xid 8 bytes, seq 6 bytes, 2 zero bytes), base64url: 22 characters,
// the same id for the same position on every process of the store, and back to the exact position on resume.
// An id nobody handed out decrypts to zero check bytes only by chance (1 in 65,536), and then to a position
// far beyond the store's (the resume check answers `reset`); it never reaches another workspace's events,
// which the replay's scope keeps out whatever the position.
import { createCipheriv, createDecipheriv } from 'node:crypto';
import type { Position } from './position.ts';

export interface EventIds {
  format(p: Position): string;
  /** undefined when `text` is not an id this store hands out. */
  parse(text: string): Position | undefined;
}

const MAX_SEQ = 2n ** 48n;
const MAX_XID = 2n ** 64n;
const SHAPE = /^[A-Za-z0-9_-]{22}$/;

function aes(key: Buffer, block: Buffer, encrypt: boolean): Buffer {
  const c = encrypt ? createCipheriv('aes-256-ecb', key, null) : createDecipheriv('aes-256-ecb', key, null);
  c.setAutoPadding(false);
  return Buffer.concat([c.update(block), c.final()]);
}

export function eventIds(key: Buffer): EventIds {
  if (key.length !== 32) throw new Error('the event id key must be 32 bytes');
  return {
    format(p) {
      // The sequence would need 2^48 events to overflow six bytes; say so rather than hand out a wrong id.
      if (p.seq < 0n || p.seq >= MAX_SEQ || p.xid < 0n || p.xid >= MAX_XID) {
        throw new Error(`stream position ${p.xid}.${p.seq} is out of the id range`);
      }
      const block = Buffer.alloc(16);
      block.writeBigUInt64BE(p.xid, 0);
      block.writeUIntBE(Number(p.seq), 8, 6);
      return aes(key, block, true).toString('base64url');
    },
    parse(text) {
      const trimmed = text.trim();
      if (!SHAPE.test(trimmed)) return undefined;
      const bytes = Buffer.from(trimmed, 'base64url');
      // One spelling per id: the last character's unused bits must be zero.
      if (bytes.toString('base64url') !== trimmed) return undefined;
      const block = aes(key, bytes, false);
      if (block.readUInt16BE(14) !== 0) return undefined;
      return { xid: block.readBigUInt64BE(0), seq: BigInt(block.readUIntBE(8, 6)) };
    },
  };
}
