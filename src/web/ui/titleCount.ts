// The tab title and favicon show how many unread mails the sandbox in view holds, kept current by live events.
import { useEffect, useRef, useState } from 'preact/hooks';
import { client, ok } from '../api.ts';
import { useLive } from '../live.ts';

// Counting is a page of unread summaries: past this the badge says "99+", which is all a badge can say.
const COUNT_LIMIT = 100;

export function useTitleCount(sandboxId: string | null): void {
  const [count, setCount] = useState<{ n: number; more: boolean }>({ n: 0, more: false });
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);

  const refresh = () => {
    if (!sandboxId) return;
    clearTimeout(timer.current);
    // Coalesced: a burst of arrivals costs one count.
    timer.current = setTimeout(() => {
      ok(
        client.GET('/sandboxes/{sandboxId}/messages', {
          params: { path: { sandboxId }, query: { isRead: false, limit: COUNT_LIMIT } },
        }),
      )
        .then((page) => setCount({ n: page.items.length, more: page.nextCursor !== null }))
        .catch(() => undefined);
    }, 150);
  };

  useEffect(() => {
    setCount({ n: 0, more: false });
    refresh();
    return () => clearTimeout(timer.current);
  }, [sandboxId]);

  useLive(sandboxId, (event) => {
    if (event.event.startsWith('message') || event.event === 'reset') refresh();
  });

  const label = count.n === 0 ? '' : count.more || count.n > 99 ? '99+' : String(count.n);
  useEffect(() => {
    document.title = label ? `(${label}) sandtrap` : 'sandtrap';
    setFavicon(label);
  }, [label]);
}

const faviconCache = new Map<string, string>();

/** Sets the tab icon, with `label` as a badge when it is not empty. */
export function setFavicon(label: string): void {
  let href = faviconCache.get(label);
  if (!href) {
    href = drawFavicon(label);
    faviconCache.set(label, href);
  }
  let link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
  if (!link) {
    link = document.createElement('link');
    link.rel = 'icon';
    document.head.append(link);
  }
  link.href = href;
}

/** A trap-shaped square, with a red count badge when there is unread mail; a data URL (the CSP allows data: images). */
function drawFavicon(label: string): string {
  const size = 64;
  const canvas = document.createElement('canvas');
  canvas.width = size;
  canvas.height = size;
  const ctx = canvas.getContext('2d');
  if (!ctx) return 'data:,';
  ctx.fillStyle = '#c2410c';
  ctx.beginPath();
  ctx.roundRect(4, 4, 56, 56, 12);
  ctx.fill();
  ctx.fillStyle = '#fff';
  ctx.font = 'bold 40px system-ui, sans-serif';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText('s', 32, 30);
  if (label) {
    const width = label.length > 1 ? 44 : 34;
    ctx.fillStyle = '#dc2626';
    ctx.beginPath();
    ctx.roundRect(size - width, size - 34, width, 34, 17);
    ctx.fill();
    ctx.fillStyle = '#fff';
    ctx.font = `bold ${label.length > 2 ? 20 : 26}px system-ui, sans-serif`;
    ctx.fillText(label, size - width / 2, size - 16);
  }
  return canvas.toDataURL('image/png');
}
