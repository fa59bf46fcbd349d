// The events of the live stream, as core hands them to adapters: one per committed arrival or change.
import type { MessageSummary } from '../messages.ts';
import type { RequestSummary } from '../requests.ts';
import type { Sandbox } from '../sandboxes.ts';

/** A sandbox as streams show it: never its SMTP password. */
export type PublicSandbox = Omit<Sandbox, 'smtpPassword'>;

export type ResetReason = 'unknown_id' | 'too_old' | 'too_many_missed' | 'slow_consumer';

export type LiveEventData =
  | { type: 'message.received'; data: MessageSummary & { sandboxId: string } }
  | { type: 'message.updated'; data: { id: string; sandboxId: string; isRead: boolean } }
  | { type: 'message.deleted'; data: { id: string; sandboxId: string } }
  | { type: 'messages.cleared'; data: { sandboxId: string } }
  | { type: 'request.received'; data: RequestSummary & { sandboxId: string } }
  | { type: 'request.updated'; data: { id: string; sandboxId: string; isRead: boolean } }
  | { type: 'request.deleted'; data: { id: string; sandboxId: string } }
  | { type: 'requests.cleared'; data: { sandboxId: string } }
  | { type: 'sandbox.created' | 'sandbox.updated'; data: PublicSandbox & { sandboxId: string } }
  /** `reason: 'expired'`: told at the moment of expiry, before any sweep removed the sandbox. */
  | { type: 'sandbox.deleted'; data: { id: string; sandboxId: string; reason?: 'expired' } };

/** A stored event: where it sits in the stream and whose it is. */
export type LiveEvent = LiveEventData & {
  /** The stream position as an opaque id (eventIds.ts), sent in `id:` and taken back as Last-Event-ID. */
  id: string;
  workspaceId: string;
  sandboxId: string;
};

/** Tells the client its lists are stale: reload them, then continue from this event's id. */
export interface ResetEvent {
  type: 'reset';
  id: string;
  data: { reason: ResetReason; message: string };
}

export type StreamEvent = LiveEvent | ResetEvent;

/** Changes written to the journal by the core function that makes them (arrivals are rows of their own). */
export type JournaledChange = Exclude<LiveEventData, { type: 'message.received' | 'request.received' }>;
