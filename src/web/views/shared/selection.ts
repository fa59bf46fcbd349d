// The rows ticked in a list (mail, requests): a click toggles one, a shift-click ticks the range from the last
// one clicked, and select-all covers the loaded rows. Ids no longer loaded drop out on their own.
import { useCallback, useMemo, useRef, useState } from 'preact/hooks';

export interface Selection {
  /** Ticked ids that are still loaded, in list order. */
  ids: string[];
  has: (id: string) => boolean;
  /** A row's checkbox was clicked; with shift the rows between it and the last one clicked take its new state. */
  toggle: (id: string, shift: boolean) => void;
  /** Ticks every loaded row, or none when all are ticked. */
  toggleAll: () => void;
  clear: () => void;
}

export function useSelection(loaded: readonly { id: string }[]): Selection {
  const [ticked, setTicked] = useState<ReadonlySet<string>>(new Set());
  const anchor = useRef<string | null>(null);
  const order = useMemo(() => loaded.map((item) => item.id), [loaded]);
  const ids = useMemo(() => order.filter((id) => ticked.has(id)), [order, ticked]);

  const toggle = useCallback(
    (id: string, shift: boolean) => {
      setTicked((old) => {
        const next = new Set(old);
        const on = !old.has(id);
        const from = anchor.current === null ? -1 : order.indexOf(anchor.current);
        const to = order.indexOf(id);
        if (shift && from !== -1 && to !== -1) {
          for (let i = Math.min(from, to); i <= Math.max(from, to); i++) {
            if (on) next.add(order[i]!);
            else next.delete(order[i]!);
          }
        } else if (on) next.add(id);
        else next.delete(id);
        return next;
      });
      anchor.current = id;
    },
    [order],
  );

  const toggleAll = useCallback(() => {
    setTicked((old) => (order.length > 0 && order.every((id) => old.has(id)) ? new Set() : new Set(order)));
  }, [order]);

  const clear = useCallback(() => {
    setTicked(new Set());
    anchor.current = null;
  }, []);

  const has = useCallback((id: string) => ticked.has(id), [ticked]);
  return { ids, has, toggle, toggleAll, clear };
}
