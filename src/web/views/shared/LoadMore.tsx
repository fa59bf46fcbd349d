// The end of an infinitely scrolling list: asks for the next page as it comes near the viewport.
import { useEffect, useRef } from 'preact/hooks';

export function LoadMore({
  onVisible,
  loading,
  label,
}: {
  onVisible: () => void;
  loading: boolean;
  label: string;
}) {
  const ref = useRef<HTMLButtonElement>(null);
  const callback = useRef(onVisible);
  callback.current = onVisible;
  // Observing anew after each page reports the sentinel's current state, so a page that left it on screen
  // fetches the next one too (an observer only reports changes).
  useEffect(() => {
    const el = ref.current;
    if (el === null || loading) return;
    // A margin below the viewport fetches the next page before the reader reaches the end.
    // Inside a list that scrolls itself the margin must apply to that list's box, not to the viewport.
    const scroller = el.closest<HTMLElement>('.items-scroll');
    const root =
      scroller !== null && /auto|scroll/.test(getComputedStyle(scroller).overflowY) ? scroller : null;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) callback.current();
      },
      { root, rootMargin: '600px 0px' },
    );
    observer.observe(el);
    return () => observer.disconnect();
  }, [loading]);
  // A real button too, for keyboards and for browsers that scroll without the observer firing.
  return (
    <button ref={ref} type="button" class="load-more" onClick={() => onVisible()} disabled={loading}>
      {loading ? 'Loading…' : label}
    </button>
  );
}
