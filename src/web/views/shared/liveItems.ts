// The live stream of one sandbox applied to its list of mail or of requests, including what the stream missed.
import { useEffect, useRef } from 'preact/hooks';
import { useLive, type LiveEvent, type LiveStatus } from '../../live.ts';
import type { KeysetList } from './keysetList.ts';

// Besides `received` (whose data differs by kind) each kind's events carry the same data.
const NAMES = {
  message: { updated: 'message.updated', deleted: 'message.deleted', cleared: 'messages.cleared' },
  request: { updated: 'request.updated', deleted: 'request.deleted', cleared: 'requests.cleared' },
} as const;

export function useLiveItems<T extends { id: string }>(
  sandboxId: string,
  kind: keyof typeof NAMES,
  list: KeysetList<T>,
  on: {
    /** The item a `received` event of this kind brings, when it passes the list's filters; else undefined. */
    received: (event: LiveEvent) => T | undefined;
    updated: (id: string, isRead: boolean) => void;
    deleted: (id: string) => void;
    cleared: () => void;
  },
): LiveStatus {
  const names = NAMES[kind];
  const live = useLive(sandboxId, (event) => {
    if (event.event === 'reset') {
      list.reload();
    } else if (event.event === names.updated) {
      on.updated(event.data.id, event.data.isRead);
    } else if (event.event === names.deleted) {
      on.deleted(event.data.id);
    } else if (event.event === names.cleared) {
      on.cleared();
    } else {
      const item = on.received(event);
      if (item !== undefined) list.add(item);
    }
  });

  // The list and the stream start apart, and a stream reopened after giving up starts afresh: whatever
  // arrived in between is read from the first page each time the stream (re)opens.
  const wasOpen = useRef(false);
  const { refreshHead } = list;
  useEffect(() => {
    if (live === 'open' && !wasOpen.current) refreshHead();
    wasOpen.current = live === 'open';
  }, [live, refreshHead]);

  return live;
}
