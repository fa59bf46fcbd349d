// Stream positions: (transaction id, sequence) of an arrival or change, the order of every stream. Compared
// as numbers; both parts grow without bound, so they stay bigint in memory. Clients see them only as opaque
// ids (eventIds.ts).

export interface Position {
  xid: bigint;
  seq: bigint;
}

export function comparePositions(a: Position, b: Position): number {
  if (a.xid !== b.xid) return a.xid < b.xid ? -1 : 1;
  if (a.seq !== b.seq) return a.seq < b.seq ? -1 : 1;
  return 0;
}
