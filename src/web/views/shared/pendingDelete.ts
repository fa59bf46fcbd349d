// A delete that can be undone for a few seconds: its rows vanish at once, the server is told only when the
// window ends, the view goes away (another tab, another sandbox) or the page is left.
//
// Why not delete at once and re-create on Undo: the API cannot restore a deleted item (its id, receipt time
// and raw source are gone), so an "undo" after the fact would lose data. Holding the call back is the only
// honest undo: until it is sent nothing has changed on the server, and Undo just shows the rows again.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { errorText } from '../../api.ts';

/** How long Undo is offered. */
export const UNDO_MS = 6000;

export interface PendingDelete<T> {
  /** What the toast says ("Deleted 37 messages."). */
  label: string;
  /** It empties the stream up to a point, so older pages are not read while it waits. */
  clearsAll: boolean;
  /** The rows this delete takes away, hidden while it waits. */
  hides: (item: T) => boolean;
  /** Sends the delete; `keepalive` when the page is being left, so the request outlives it. */
  commit: (keepalive: boolean) => Promise<void>;
}

export interface PendingDeletes<T> {
  pending: PendingDelete<T> | null;
  /** Starts a delete's undo window; one already waiting is sent first. */
  schedule: (next: PendingDelete<T>) => void;
  undo: () => void;
  /** Sends the waiting delete now. */
  flush: () => void;
}

export function usePendingDelete<T>(
  /** What the rows belong to (the sandbox): a waiting delete is sent when it changes, as when the view goes. */
  scope: string,
  on: {
    /** The delete went through: take its rows out of the list for good. */
    done: (hides: (item: T) => boolean) => void;
    failed: (text: string) => void;
  },
): PendingDeletes<T> {
  const [pending, setPending] = useState<PendingDelete<T> | null>(null);
  const current = useRef<PendingDelete<T> | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const handlers = useRef(on);
  handlers.current = on;

  const send = useCallback((keepalive: boolean) => {
    clearTimeout(timer.current);
    const job = current.current;
    current.current = null;
    if (job === null) return;
    job
      .commit(keepalive)
      .then(() => handlers.current.done(job.hides))
      .catch((err: unknown) => handlers.current.failed(`Delete failed: ${errorText(err)}`))
      .finally(() => setPending((p) => (p === job ? null : p)));
  }, []);

  const schedule = useCallback(
    (next: PendingDelete<T>) => {
      send(false);
      current.current = next;
      setPending(next);
      timer.current = setTimeout(() => send(false), UNDO_MS);
    },
    [send],
  );

  const undo = useCallback(() => {
    clearTimeout(timer.current);
    current.current = null;
    setPending(null);
  }, []);

  const flush = useCallback(() => send(false), [send]);

  // Leaving the page (closing the tab, reloading, following a link out) sends the delete with keepalive;
  // unmounting (the router moved elsewhere) or another sandbox's list taking this one's place sends it as
  // well: what the reader saw vanish stays deleted, and its hiding rule never applies to other rows.
  useEffect(() => {
    const leave = () => send(true);
    window.addEventListener('pagehide', leave);
    return () => {
      window.removeEventListener('pagehide', leave);
      send(true);
    };
  }, [send, scope]);

  return { pending, schedule, undo, flush };
}
