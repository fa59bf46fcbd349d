// Rows read from the store (arrivals and journaled changes) as typed stream events.
import { toSummary as toMessageSummary, type MessageSummary } from '../messages.ts';
import { toSummary as toRequestSummary, type RequestSummary } from '../requests.ts';
import type { StoredEventRow } from '../store/repos/liveEvents.ts';
import type { MessageSummaryRow } from '../store/repos/messages.ts';
import type { RequestSummaryRow } from '../store/repos/requests.ts';
import type { EventIds } from './eventIds.ts';
import type { Position } from './position.ts';
import type { LiveEvent, LiveEventData, PublicSandbox } from './types.ts';

const JOURNALED = new Set([
  'message.updated',
  'message.deleted',
  'messages.cleared',
  'request.updated',
  'request.deleted',
  'requests.cleared',
  'sandbox.created',
  'sandbox.updated',
  'sandbox.deleted',
]);

export const rowPosition = (row: Pick<StoredEventRow, 'xid' | 'seq'>): Position => ({
  xid: BigInt(row.xid),
  seq: BigInt(row.seq),
});

/** jsonb gives timestamps as text; the summaries carry Dates. */
const withDate = <T>(data: Record<string, unknown>, key: string): T =>
  ({ ...data, [key]: new Date(data[key] as string) }) as T;

function reviveSandbox(data: Record<string, unknown>): PublicSandbox & { sandboxId: string } {
  const s = data as Omit<PublicSandbox, 'createdAt' | 'expiresAt'> & {
    sandboxId: string;
    createdAt: string;
    expiresAt: string | null;
  };
  return {
    ...s,
    createdAt: new Date(s.createdAt),
    expiresAt: s.expiresAt === null ? null : new Date(s.expiresAt),
  };
}

function eventData(row: StoredEventRow): LiveEventData | undefined {
  const sandboxId = row.sandbox_id;
  if (row.source === 'message') {
    const summary: MessageSummary = toMessageSummary(withDate<MessageSummaryRow>(row.data, 'received_at'));
    return { type: 'message.received', data: { ...summary, sandboxId } };
  }
  if (row.source === 'request') {
    const summary: RequestSummary = toRequestSummary(withDate<RequestSummaryRow>(row.data, 'received_at'));
    return { type: 'request.received', data: { ...summary, sandboxId } };
  }
  // A kind written by a newer version of sandtrap than this process: skipped rather than misread.
  if (row.kind === null || !JOURNALED.has(row.kind)) return undefined;
  if (row.kind === 'sandbox.created' || row.kind === 'sandbox.updated') {
    return { type: row.kind, data: reviveSandbox(row.data) };
  }
  return { type: row.kind, data: row.data } as LiveEventData;
}

export function toLiveEvent(row: StoredEventRow, ids: EventIds): LiveEvent | undefined {
  const data = eventData(row);
  if (data === undefined) return undefined;
  return {
    ...data,
    id: ids.format(rowPosition(row)),
    workspaceId: row.workspace_id,
    sandboxId: row.sandbox_id,
  };
}
