// Client-side routes on the history API, so every view has a URL that survives a reload.
import { useEffect, useState } from 'preact/hooks';

export type SandboxTab = 'mail' | 'requests' | 'rules' | 'setup';

export type Route =
  | { name: 'sandboxes' }
  | { name: 'sandbox'; sandboxId: string; tab: SandboxTab; messageId?: string; requestId?: string }
  | { name: 'connections' }
  | { name: 'webhooks' }
  | { name: 'consent'; requestId: string }
  | { name: 'notFound'; path: string };

/** Matches a path against the dashboard's routes. */
export function parseRoute(path: string): Route {
  const parts = path.split('/').filter(Boolean).map(decodeSegment);
  if (parts.length === 0) return { name: 'sandboxes' };
  if (parts[0] === 'connections' && parts.length === 1) return { name: 'connections' };
  if (parts[0] === 'webhooks' && parts.length === 1) return { name: 'webhooks' };
  if (parts[0] === 'oauth' && parts[1] === 'consent' && parts[2] && parts.length === 3)
    return { name: 'consent', requestId: parts[2] };
  if (parts[0] !== 's' || !parts[1]) return { name: 'notFound', path };
  const sandboxId = parts[1];
  const [section, id, ...rest] = parts.slice(2);
  if (rest.length > 0) return { name: 'notFound', path };
  if (section === undefined) return { name: 'sandbox', sandboxId, tab: 'mail' };
  if (section === 'messages') {
    return id
      ? { name: 'sandbox', sandboxId, tab: 'mail', messageId: id }
      : { name: 'sandbox', sandboxId, tab: 'mail' };
  }
  if (section === 'requests') {
    return id
      ? { name: 'sandbox', sandboxId, tab: 'requests', requestId: id }
      : { name: 'sandbox', sandboxId, tab: 'requests' };
  }
  if ((section === 'rules' || section === 'setup') && id === undefined)
    return { name: 'sandbox', sandboxId, tab: section };
  return { name: 'notFound', path };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Paths of the dashboard's views, so no component spells a URL by hand. */
export const paths = {
  sandboxes: () => '/',
  sandbox: (sandboxId: string) => `/s/${enc(sandboxId)}`,
  message: (sandboxId: string, messageId: string) => `/s/${enc(sandboxId)}/messages/${enc(messageId)}`,
  requests: (sandboxId: string) => `/s/${enc(sandboxId)}/requests`,
  request: (sandboxId: string, requestId: string) => `/s/${enc(sandboxId)}/requests/${enc(requestId)}`,
  rules: (sandboxId: string) => `/s/${enc(sandboxId)}/rules`,
  setup: (sandboxId: string) => `/s/${enc(sandboxId)}/setup`,
  connections: () => '/connections',
  webhooks: () => '/webhooks',
  consent: (requestId: string) => `/oauth/consent/${enc(requestId)}`,
};

function enc(segment: string): string {
  return encodeURIComponent(segment);
}

/**
 * The route one level up, where Esc goes: a message to its list, a tab to the sandbox, a sandbox to the list.
 * The consent page has none: a stray Esc must not leave a person's pending decision behind.
 */
export function parentPath(route: Route): string | null {
  if (route.name === 'consent') return null;
  if (route.name !== 'sandbox') return route.name === 'sandboxes' ? null : paths.sandboxes();
  if (route.messageId) return paths.sandbox(route.sandboxId);
  if (route.requestId) return paths.requests(route.sandboxId);
  return paths.sandboxes();
}

const listeners = new Set<() => void>();

function notify(): void {
  for (const listener of listeners) listener();
}

/**
 * Asked instead of leaving while a view holds unsaved work; it decides (a dialog) and calls `proceed` to leave.
 * Only one view edits at a time, so there is one slot.
 */
export type LeaveGuard = (proceed: () => void) => void;

let leaveGuard: LeaveGuard | null = null;
// The URL in view, so a guarded Back can put it back while the person decides.
let shownPath = location.pathname + location.search;

/** Installs `guard` until the returned function is called (a view's effect cleanup). */
export function setLeaveGuard(guard: LeaveGuard): () => void {
  leaveGuard = guard;
  return () => {
    if (leaveGuard === guard) leaveGuard = null;
  };
}

/** Goes to `path` in the dashboard without a page load; `force` skips the leave guard (it already agreed). */
export function navigate(to: string, options: { replace?: boolean; force?: boolean } = {}): void {
  const path = withListSearch(to);
  const current = location.pathname + location.search;
  if (path === current) return;
  if (leaveGuard && !options.force) {
    leaveGuard(() => navigate(path, { ...options, force: true }));
    return;
  }
  if (options.replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  shownPath = path;
  notify();
  if (!options.replace) window.scrollTo(0, 0);
}

window.addEventListener('popstate', () => {
  const target = location.pathname + location.search;
  if (leaveGuard && target !== shownPath) {
    // The browser has already moved the URL: show the page's own again until the guard lets the person go.
    history.pushState(null, '', shownPath);
    leaveGuard(() => navigate(target, { force: true }));
    return;
  }
  shownPath = target;
  notify();
});

/** The list a path shows: a sandbox's mail (its messages) or requests; undefined elsewhere. */
function listOf(path: string): string | undefined {
  const route = parseRoute(path);
  if (route.name !== 'sandbox' || (route.tab !== 'mail' && route.tab !== 'requests')) return undefined;
  return `${route.sandboxId} ${route.tab}`;
}

/**
 * `path` with the list's search (`?search=`, views/shared/SearchBox.tsx) carried over while moving within
 * that list (opening a message, back to the list), so a reload there keeps the search.
 */
function withListSearch(path: string): string {
  if (path.includes('?')) return path;
  const search = new URLSearchParams(location.search).get('search');
  if (search === null) return path;
  const list = listOf(path);
  if (list === undefined || list !== listOf(location.pathname)) return path;
  return `${path}?${new URLSearchParams({ search }).toString()}`;
}

/** The current path; re-renders the caller on every navigation. */
export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    listeners.add(update);
    update();
    return () => void listeners.delete(update);
  }, []);
  return path;
}

/** Whether a click should be left to the browser (new tab, download, modified click). */
export function isPlainClick(event: MouseEvent): boolean {
  return event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey;
}
