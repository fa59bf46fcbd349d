// Per-sandbox, opt-in reactions to arrivals: a browser notification, and opening the newest item. Both are
// remembered in this browser (localStorage), never on the server: they are one person's habit, not the team's.
import { useEffect, useState } from 'preact/hooks';
import { useLive, type LiveEvent } from '../live.ts';
import { navigate, parseRoute, paths } from '../router.ts';

type Pref = 'notify' | 'autoOpen';

const changes = new Set<() => void>();

function storageKey(pref: Pref, sandboxId: string): string {
  return `sandtrap.${pref}.${sandboxId}`;
}

/** The stored value: for `notify` the sandbox's name (the notification's title needs it), else "1". */
function readPref(pref: Pref, sandboxId: string): string | null {
  try {
    return localStorage.getItem(storageKey(pref, sandboxId));
  } catch {
    return null; // storage blocked (private mode, policy): the toggles then simply stay off
  }
}

function writePref(pref: Pref, sandboxId: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(storageKey(pref, sandboxId));
    else localStorage.setItem(storageKey(pref, sandboxId), value);
  } catch {
    return;
  }
  for (const listener of [...changes]) listener();
}

/** Whether any sandbox asks for notifications, so the workspace stream is opened only for someone who wants it. */
function anyNotify(): boolean {
  try {
    for (let i = 0; i < localStorage.length; i++) {
      if (localStorage.key(i)?.startsWith('sandtrap.notify.')) return true;
    }
  } catch {
    return false;
  }
  return false;
}

function usePrefs<T>(read: () => T): T {
  const [value, setValue] = useState(read);
  useEffect(() => {
    const update = () => setValue(read);
    changes.add(update);
    // Another tab of the dashboard toggling counts too.
    window.addEventListener('storage', update);
    update();
    return () => {
      changes.delete(update);
      window.removeEventListener('storage', update);
    };
  }, [read]);
  return value;
}

/** Whether the newest message or request of this sandbox should open as it arrives. */
export function autoOpenOn(sandboxId: string): boolean {
  return readPref('autoOpen', sandboxId) !== null;
}

/** The path to open for an arrival on the sandbox's tab in view (mail opens messages, requests requests). */
export function autoOpenPath(event: LiveEvent, tab: string): string | null {
  if (event.event === 'message.received' && tab === 'mail')
    return paths.message(event.data.sandboxId, event.data.id);
  if (event.event === 'request.received' && tab === 'requests')
    return paths.request(event.data.sandboxId, event.data.id);
  return null;
}

/** The two toggles in a sandbox's header. */
export function ArrivalToggles({ sandboxId, sandboxName }: { sandboxId: string; sandboxName: string }) {
  const notify = usePrefs(() => readPref('notify', sandboxId) !== null);
  const autoOpen = usePrefs(() => autoOpenOn(sandboxId));
  const [note, setNote] = useState<string | null>(null);

  const toggleNotify = async () => {
    setNote(null);
    if (notify) {
      writePref('notify', sandboxId, null);
      return;
    }
    if (typeof Notification === 'undefined') {
      setNote('This browser cannot show notifications.');
      return;
    }
    // Asked on the click itself: browsers ignore (or block) a permission prompt no one asked for.
    const permission =
      Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission();
    if (permission !== 'granted') {
      setNote('Notifications are blocked for this site; allow them in the browser settings.');
      return;
    }
    writePref('notify', sandboxId, sandboxName);
  };

  return (
    <div class="arrival-toggles">
      <button
        type="button"
        class="toggle"
        aria-pressed={notify}
        title="Show a browser notification when mail or a request arrives while you are not looking at this sandbox"
        onClick={() => void toggleNotify()}
      >
        Notify
      </button>
      <button
        type="button"
        class="toggle"
        aria-pressed={autoOpen}
        title="Open each new message (on Mail) or request (on Requests) as it arrives"
        onClick={() => writePref('autoOpen', sandboxId, autoOpen ? null : '1')}
      >
        Auto-open
      </button>
      {note && (
        <span class="hint" role="status">
          {note}
        </span>
      )}
    </div>
  );
}

/**
 * Shows a notification for each arrival in a sandbox that asked for them, when the person is not looking at
 * it: the tab is hidden, or the dashboard shows another page. Looking at the sandbox, the list itself shows
 * the arrival, so a notification would only repeat it.
 */
export function useArrivalNotifications(): void {
  const wanted = usePrefs(anyNotify);
  useLive(
    null,
    (event) => {
      if (event.event !== 'message.received' && event.event !== 'request.received') return;
      const { sandboxId } = event.data;
      const name = readPref('notify', sandboxId);
      if (name === null || typeof Notification === 'undefined' || Notification.permission !== 'granted')
        return;
      const route = parseRoute(location.pathname);
      const looking =
        document.visibilityState === 'visible' && route.name === 'sandbox' && route.sandboxId === sandboxId;
      if (looking) return;
      const isMail = event.event === 'message.received';
      const title = isMail ? `New mail in ${name}` : `New request in ${name}`;
      const body = isMail
        ? `${event.data.subject ?? '(no subject)'} — from ${event.data.from}`
        : `${event.data.method} ${event.data.path}`;
      const path = isMail ? paths.message(sandboxId, event.data.id) : paths.request(sandboxId, event.data.id);
      const shown = new Notification(title, { body, tag: `sandtrap-${event.data.id}` });
      shown.onclick = () => {
        window.focus();
        navigate(path);
        shown.close();
      };
    },
    wanted,
  );
}
