// Stream positions: (transaction id, sequence) of an arrival or change, written as "<xid>.<seq>" in event ids.
// Compared as numbers; both parts grow without bound, so they stay bigint in memory.

export interface Position {
  xid: bigint;
  seq: bigint;
}

const FORMAT = /^(\d{1,20})\.(\d{1,20})$/;

export function formatPosition(p: Position): string {
  return `${p.xid}.${p.seq}`;
}

/** undefined when `text` is not an id this service hands out. */
export function parsePosition(text: string): Position | undefined {
  const m = FORMAT.exec(text.trim());
  if (m === null) return undefined;
  return { xid: BigInt(m[1] as string), seq: BigInt(m[2] as string) };
}

export function comparePositions(a: Position, b: Position): number {
  if (a.xid !== b.xid) return a.xid < b.xid ? -1 : 1;
  if (a.seq !== b.seq) return a.seq < b.seq ? -1 : 1;
  return 0;
}

export const isAfter = (a: Position, b: Position): boolean => comparePositions(a, b) > 0;
