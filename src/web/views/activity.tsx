// Counts, unread counts and last arrival of the listed sandboxes, read from /sandboxes/activity and kept
// current by the workspace event stream the list already holds open.
import { useEffect, useRef, useState } from 'preact/hooks';
import { client, ok, type Schemas } from '../api.ts';
import { useLive } from '../live.ts';
import { Time } from '../ui/Time.tsx';

type Activity = Schemas['SandboxActivity'];
type Stream = Schemas['StreamActivity'];

// The endpoint takes at most 200 ids a call.
const BATCH = 200;
// A burst of arrivals (a test run sending fifty mails) costs one read, not fifty.
const SETTLE_MS = 300;

/**
 * The activity of each sandbox in `ids`. Refreshed when an arrival, read flag, delete or clear comes over
 * the workspace stream: the stream is already open for the list, so this costs no poll and lags by one
 * settle delay. Events carry no counts, so the counts are read again rather than worked out here.
 */
export function useActivity(ids: string[]): Map<string, Activity> {
  const [byId, setById] = useState<Map<string, Activity>>(new Map());
  const key = ids.join(',');
  const generation = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const refresh = async () => {
    const mine = ++generation.current;
    if (ids.length === 0) return;
    const next = new Map<string, Activity>();
    try {
      for (let i = 0; i < ids.length; i += BATCH) {
        const page = await ok(
          client.GET('/sandboxes/activity', {
            params: { query: { ids: ids.slice(i, i + BATCH).join(',') } },
          }),
        );
        for (const item of page.items) next.set(item.sandboxId, item);
      }
    } catch {
      // Counts are a convenience: a failed read keeps the last ones shown, the next event tries again.
      return;
    }
    if (mine === generation.current) setById(next);
  };
  const refreshRef = useRef(refresh);
  refreshRef.current = refresh;

  useEffect(() => {
    void refresh();
  }, [key]);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  useLive(null, (event) => {
    if (event.event.startsWith('sandbox.')) return;
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      void refreshRef.current();
    }, SETTLE_MS);
  });

  return byId;
}

function count(n: number): string {
  // The server stops counting at 10,000.
  return n >= 10_000 ? '10,000+' : n.toLocaleString('en');
}

function StreamCount({ stream, one, many }: { stream: Stream; one: string; many: string }) {
  return (
    <span class="activity-count">
      <strong>{count(stream.total)}</strong> {stream.total === 1 ? one : many}
      {stream.unread > 0 && <span class="unread-badge">{count(stream.unread)} unread</span>}
    </span>
  );
}

/** One card's line of activity; empty space of the same height while the counts load, so cards do not jump. */
export function ActivityLine({ activity }: { activity: Activity | undefined }) {
  if (!activity) return <p class="card-activity muted" aria-hidden="true" />;
  const last = [activity.messages.lastReceivedAt, activity.requests.lastReceivedAt]
    .filter((t): t is string => t !== null)
    .sort()
    .at(-1);
  return (
    <p class="card-activity">
      <StreamCount stream={activity.messages} one="message" many="messages" />
      <StreamCount stream={activity.requests} one="request" many="requests" />
      <span class="muted">
        {last ? (
          <>
            last arrival <Time iso={last} />
          </>
        ) : (
          'nothing caught yet'
        )}
      </span>
    </p>
  );
}
