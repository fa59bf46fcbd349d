// Wraps a tab strip that may be wider than a phone, marking while tabs lie past its right edge so a fade and
// an arrow say the strip scrolls, instead of tabs silently cut off. The selected tab is kept in view.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export function ScrollingTabs({ children, selected }: { children: ComponentChildren; selected: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState(false);

  useEffect(() => {
    const strip = ref.current?.querySelector<HTMLElement>('[role="tablist"]');
    if (!strip) return;
    // One pixel of slack: zoomed layouts leave fractions between scrollLeft and the scroll width.
    const measure = () => setMore(strip.scrollLeft + strip.clientWidth < strip.scrollWidth - 1);
    measure();
    strip.addEventListener('scroll', measure, { passive: true });
    const observer = new ResizeObserver(measure);
    observer.observe(strip);
    return () => {
      strip.removeEventListener('scroll', measure);
      observer.disconnect();
    };
  }, []);

  // A view opened from the URL (or by the arrow keys) may be a tab past the strip's edge: bring it in, moving
  // the strip only sideways (scrollIntoView would move the page too).
  useEffect(() => {
    const strip = ref.current?.querySelector<HTMLElement>('[role="tablist"]');
    const tab = strip?.querySelector<HTMLElement>('[role="tab"][aria-selected="true"]');
    if (!strip || !tab) return;
    // The tab's place along the strip's whole scroll width.
    const left = tab.getBoundingClientRect().left - strip.getBoundingClientRect().left + strip.scrollLeft;
    const right = left + tab.getBoundingClientRect().width;
    if (left < strip.scrollLeft) strip.scrollLeft = left;
    else if (right > strip.scrollLeft + strip.clientWidth) strip.scrollLeft = right - strip.clientWidth;
  }, [selected]);

  return (
    <div ref={ref} class={`tabs-scroller${more ? ' has-more' : ''}`}>
      {children}
      <span class="tabs-more" aria-hidden="true">
        ›
      </span>
    </div>
  );
}
