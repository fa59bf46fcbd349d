// The HTML part rendered in a sandboxed, opaque-origin iframe at phone, tablet or full width, as tall as the mail.
import { useEffect, useRef, useState } from 'preact/hooks';

const WIDTHS = [
  { id: 'phone', label: 'Phone', px: 375 },
  { id: 'tablet', label: 'Tablet', px: 768 },
  { id: 'full', label: 'Full', px: null },
] as const;

/** Below this the frame would show a sliver while the mail loads. */
const MIN_HEIGHT = 120;
/** Taller than any real mail (a hostile one could report anything): past it, the rest is cut. */
const MAX_HEIGHT = 200_000;

/**
 * Sizes the frame to the mail's height as the frame reports it. The frame is an opaque origin (no
 * allow-same-origin), so the parent cannot read its document; the server's page carries one script, allowed by
 * its hash alone, that posts `{ sandtrapFrameHeight }` whenever the mail's size changes (late images, a new
 * width). Only messages from this frame's window count, and only as a number; the frame never scrolls on its own.
 */
function useContentHeight(frame: { current: HTMLIFrameElement | null }) {
  const [height, setHeight] = useState<number | null>(null);
  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      const el = frame.current;
      if (el === null || event.source !== el.contentWindow) return;
      const reported: unknown = (event.data as { sandtrapFrameHeight?: unknown } | null)?.sandtrapFrameHeight;
      if (typeof reported !== 'number' || !Number.isFinite(reported)) return;
      // The frame's own border is inside its height (border-box): add it, or 2 px would scroll inside.
      const border = el.offsetHeight - el.clientHeight;
      setHeight(Math.max(MIN_HEIGHT, Math.min(MAX_HEIGHT, Math.ceil(reported)) + border));
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, []);
  return height;
}

export function HtmlFrame({ src }: { src: string }) {
  const [width, setWidth] = useState<(typeof WIDTHS)[number]['id']>('full');
  const frame = useRef<HTMLIFrameElement>(null);
  const height = useContentHeight(frame);
  const px = WIDTHS.find((w) => w.id === width)?.px ?? null;
  return (
    <div class="html-view">
      <div class="widths" role="group" aria-label="Preview width">
        {WIDTHS.map((w) => (
          <button key={w.id} type="button" aria-pressed={width === w.id} onClick={() => setWidth(w.id)}>
            {w.label}
          </button>
        ))}
      </div>
      <div class="frame-wrap">
        {/* The server's CSP sandboxes the document the same way and lets only its height script run (see
            useContentHeight); popups are allowed so links open in a new tab. No allow-same-origin, ever. */}
        <iframe
          ref={frame}
          title="Message HTML"
          src={src}
          sandbox="allow-scripts allow-popups allow-popups-to-escape-sandbox"
          referrerpolicy="no-referrer"
          scrolling="no"
          class="html-frame"
          data-width={width}
          style={{
            ...(px === null ? {} : { width: `${px}px`, minWidth: `${px}px` }),
            ...(height === null ? {} : { height: `${height}px` }),
          }}
        />
      </div>
    </div>
  );
}
