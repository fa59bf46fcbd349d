// Keeps a long list's DOM bounded: past a few hundred loaded rows only those near the viewport are rendered,
// with padding standing in for the rest (rows are one fixed height: every line is a single clipped line).
import type { RefObject } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** Below this every loaded row is rendered; lists this short cost nothing worth saving. */
const ALL_BELOW = 300;
/** Rows rendered beyond each edge of the visible part, so fast scrolling and j/k rarely reach an edge. */
const OVERSCAN = 100;

export interface RowWindow {
  start: number;
  end: number;
  padTop: number;
  padBottom: number;
}

export function useRowWindow(list: RefObject<HTMLElement | null>, count: number): RowWindow {
  const [range, setRange] = useState({ start: 0, end: Math.min(count, ALL_BELOW), rowHeight: 0 });

  useEffect(() => {
    const compute = () => {
      const el = list.current;
      if (el === null || count <= ALL_BELOW) {
        setRange((r) =>
          r.start === 0 && r.end === count ? r : { start: 0, end: count, rowHeight: r.rowHeight },
        );
        return;
      }
      const row = el.querySelector('li');
      const rowHeight = row === null ? 0 : row.getBoundingClientRect().height;
      if (rowHeight <= 0) return;
      // One formula for both layouts: the list's box scrolling (wide screens) or the page scrolling (phones).
      // Row i sits at the list's top plus i rows: the top padding stands in for the rows before the window.
      const contentTop = el.getBoundingClientRect().top;
      const box = el.closest('.items-scroll')?.getBoundingClientRect();
      const clipTop = Math.max(box?.top ?? 0, 0);
      const clipBottom = Math.min(box?.bottom ?? window.innerHeight, window.innerHeight);
      const first = Math.floor((clipTop - contentTop) / rowHeight);
      const last = Math.ceil((clipBottom - contentTop) / rowHeight);
      const start = Math.max(0, Math.min(count, first - OVERSCAN));
      const end = Math.max(start, Math.min(count, last + OVERSCAN));
      setRange((r) =>
        r.start === start && r.end === end && r.rowHeight === rowHeight ? r : { start, end, rowHeight },
      );
    };
    compute();
    let frame = 0;
    const onScroll = () => {
      if (frame === 0) frame = requestAnimationFrame(() => ((frame = 0), compute()));
    };
    // Capture sees the list's own scroll as well as the page's.
    document.addEventListener('scroll', onScroll, { capture: true, passive: true });
    window.addEventListener('resize', onScroll);
    return () => {
      cancelAnimationFrame(frame);
      document.removeEventListener('scroll', onScroll, { capture: true });
      window.removeEventListener('resize', onScroll);
    };
  }, [list, count]);

  const start = Math.min(range.start, count);
  const end = Math.min(Math.max(range.end, start), count);
  return {
    start,
    end,
    padTop: start * range.rowHeight,
    padBottom: (count - end) * range.rowHeight,
  };
}
