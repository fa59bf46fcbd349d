// The HTML part rendered in a sandboxed iframe (no scripts) at phone, tablet or full width, as tall as the mail.
import { useEffect, useRef, useState } from 'preact/hooks';

const WIDTHS = [
  { id: 'phone', label: 'Phone', px: 375 },
  { id: 'tablet', label: 'Tablet', px: 768 },
  { id: 'full', label: 'Full', px: null },
] as const;

/** Below this the frame would show a sliver while the mail loads. */
const MIN_HEIGHT = 120;

/**
 * Sizes the frame to its document from the parent: the sandbox keeps the frame's origin (allow-same-origin) but
 * never allows scripts, so the parent can read the height while nothing in the mail can run. A ResizeObserver on
 * the mail's root follows late images and width changes; the frame never scrolls on its own.
 */
function useContentHeight(frame: { current: HTMLIFrameElement | null }, src: string, width: string) {
  const [height, setHeight] = useState<number | null>(null);
  useEffect(() => {
    const el = frame.current;
    if (el === null) return;
    let observer: ResizeObserver | undefined;
    const measure = () => {
      const root = el.contentDocument?.documentElement;
      if (root == null) return;
      // The frame's own border is inside its height (border-box): add it, or 2 px would scroll inside.
      const border = el.offsetHeight - el.clientHeight;
      setHeight(Math.max(MIN_HEIGHT, Math.ceil(root.getBoundingClientRect().height) + border));
    };
    const attach = () => {
      observer?.disconnect();
      const root = el.contentDocument?.documentElement;
      if (root == null) return;
      observer = new ResizeObserver(measure);
      observer.observe(root);
      measure();
    };
    el.addEventListener('load', attach);
    if (el.contentDocument?.readyState === 'complete') attach();
    return () => {
      el.removeEventListener('load', attach);
      observer?.disconnect();
    };
  }, [src, width]);
  return height;
}

export function HtmlFrame({ src }: { src: string }) {
  const [width, setWidth] = useState<(typeof WIDTHS)[number]['id']>('full');
  const frame = useRef<HTMLIFrameElement>(null);
  const height = useContentHeight(frame, src, width);
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
        {/* The server's CSP sandboxes the document the same way; popups are allowed so links open in a new
            tab. allow-same-origin without allow-scripts only lets the parent measure it (see useContentHeight). */}
        <iframe
          ref={frame}
          title="Message HTML"
          src={src}
          sandbox="allow-same-origin allow-popups allow-popups-to-escape-sandbox"
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
