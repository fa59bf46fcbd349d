// One run of a prepared statement as postgres wire bytes (Bind, Describe portal, Execute, Sync), in one allocation.
// Why it exists and when it goes: the store map, src/core/store/README.md.

/** A parameter as PGlite's serializers leave it: text, bytes (sent in binary format) or null. */
export type WireValue = string | Uint8Array | null;

/** Describe the unnamed portal, execute it with no row limit, sync: the same 22 bytes every run. */
const TAIL = Buffer.from([
  ...[0x44, 0, 0, 0, 6, 0x50, 0], // 'D' len 6 'P' ""
  ...[0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0], // 'E' len 9 "" 0
  ...[0x53, 0, 0, 0, 4], // 'S' len 4
]);

/**
 * The messages that run prepared statement `statement` with `values` on the unnamed portal, results in text.
 * The same bytes as PGlite's `serialize.bind` followed by describe, execute and sync (bindMessage.test.ts checks
 * that), written once into a buffer of the exact size: PGlite's writer starts at 256 bytes and grows by copying,
 * copies each byte value twice more and measures each string in a JavaScript loop, which made serializing a
 * batch of captures a tenth of the embedded store's time per statement.
 */
export function runPreparedMessages(statement: string, values: readonly WireValue[]): Buffer {
  const count = values.length;
  const lengths = new Array<number>(count);
  // Type, length, unnamed portal, name and its terminator, two counts, a format per value, no result formats.
  let size = 1 + 4 + 1 + Buffer.byteLength(statement) + 1 + 2 + 2 * count + 2 + 2;
  for (let i = 0; i < count; i++) {
    const value = values[i] ?? null;
    const length =
      value === null ? -1 : typeof value === 'string' ? Buffer.byteLength(value) : value.byteLength;
    lengths[i] = length;
    size += 4 + Math.max(length, 0);
  }
  const out = Buffer.allocUnsafe(size + TAIL.byteLength);
  let at = out.writeUInt8(0x42, 0); // 'B'
  at = out.writeInt32BE(size - 1, at);
  at = out.writeUInt8(0, at);
  at += out.write(statement, at, 'utf8');
  at = out.writeUInt8(0, at);
  at = out.writeUInt16BE(count, at);
  for (const value of values) at = out.writeInt16BE(value instanceof Uint8Array ? 1 : 0, at);
  at = out.writeUInt16BE(count, at);
  for (let i = 0; i < count; i++) {
    const value = values[i] ?? null;
    at = out.writeInt32BE(lengths[i] ?? -1, at);
    if (typeof value === 'string') at += out.write(value, at, 'utf8');
    else if (value !== null) {
      out.set(value, at);
      at += value.byteLength;
    }
  }
  at = out.writeInt16BE(0, at);
  TAIL.copy(out, at);
  return out;
}
