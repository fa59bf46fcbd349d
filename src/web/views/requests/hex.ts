// A classic hex dump (offset, 16 bytes in hex, printable ASCII) of the start of a binary body.

export const HEX_LIMIT = 4096;

/** Decodes standard base64 into bytes; the API sends non-UTF-8 bodies this way. */
export function base64Bytes(b64: string): Uint8Array {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

export function hexDump(bytes: Uint8Array, limit = HEX_LIMIT): string {
  const end = Math.min(bytes.length, limit);
  const lines: string[] = [];
  for (let offset = 0; offset < end; offset += 16) {
    const row = bytes.subarray(offset, Math.min(offset + 16, end));
    let hex = '';
    let ascii = '';
    for (let i = 0; i < 16; i++) {
      const b = row[i];
      hex += b === undefined ? '   ' : `${b.toString(16).padStart(2, '0')} `;
      if (i === 7) hex += ' ';
      if (b !== undefined) ascii += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.';
    }
    lines.push(`${offset.toString(16).padStart(8, '0')}  ${hex} |${ascii}|`);
  }
  return lines.join('\n');
}
