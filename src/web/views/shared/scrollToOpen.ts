// The open row of a list is scrolled into view when it becomes the open one, so a message opened from a link
// (or a reload deep in the list) shows where it sits instead of leaving the list at its top.
import type { RefObject } from 'preact';
import { useEffect } from 'preact/hooks';

export function useScrollToOpen(row: RefObject<HTMLElement | null>, open: boolean): void {
  useEffect(() => {
    const el = row.current;
    if (!open || el === null) return;
    // A row already in view stays where it is (a click never moves the list); one out of view comes to the
    // middle, clear of the sticky bars at either edge.
    const box = el.getBoundingClientRect();
    if (box.top >= 0 && box.bottom <= window.innerHeight) return;
    el.scrollIntoView({ block: 'center' });
  }, [open]);
}
