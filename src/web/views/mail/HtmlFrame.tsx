// The HTML part rendered in a sandboxed iframe (no scripts, no same-origin access) at phone, tablet or full width.
import { useState } from 'preact/hooks';

const WIDTHS = [
  { id: 'phone', label: 'Phone', px: 375 },
  { id: 'tablet', label: 'Tablet', px: 768 },
  { id: 'full', label: 'Full', px: null },
] as const;

export function HtmlFrame({ src }: { src: string }) {
  const [width, setWidth] = useState<(typeof WIDTHS)[number]['id']>('full');
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
        {/* The server's CSP sandboxes the document too; popups are allowed so links open in a new tab. */}
        <iframe
          title="Message HTML"
          src={src}
          sandbox="allow-popups allow-popups-to-escape-sandbox"
          referrerpolicy="no-referrer"
          class="html-frame"
          style={px === null ? undefined : { width: `${px}px` }}
        />
      </div>
    </div>
  );
}
