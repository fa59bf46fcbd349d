// A list read page by page with the API's keyset cursors, patched in place by live events.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { errorText } from '../../api.ts';

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface KeysetList<T> {
  items: T[];
  /** More pages exist beyond the loaded ones. */
  hasMore: boolean;
  loading: boolean;
  error: string | null;
  loadMore: () => void;
  reload: () => void;
  /** Applies a live change to the loaded items. */
  update: (change: (items: T[]) => T[]) => void;
  /** Puts a live item on top, unless it is loaded already. */
  add: (item: T) => void;
  /** Reads the first page again and puts any item not loaded yet on top (what a live stream may have missed). */
  refreshHead: () => void;
}

/**
 * `load` reads one page; `key` names the query (filters), and a new key starts over from the first page.
 * Only loaded pages are held, so a stream of 100,000 items costs what the reader scrolled through.
 */
export function useKeysetList<T extends { id: string }>(
  load: (cursor: string | null) => Promise<Page<T>>,
  key: string,
): KeysetList<T> {
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  // A page answered after the query changed belongs to the old query and is dropped.
  const generation = useRef(0);
  const busy = useRef(false);
  const loadRef = useRef(load);
  loadRef.current = load;

  const fetchPage = useCallback((from: string | null, replace: boolean) => {
    const gen = generation.current;
    busy.current = true;
    setLoading(true);
    loadRef
      .current(from)
      .then((page) => {
        if (gen !== generation.current) return;
        setItems((old) => (replace ? page.items : old.concat(page.items)));
        setCursor(page.nextCursor);
        setHasMore(page.nextCursor !== null);
        setError(null);
      })
      .catch((err: unknown) => {
        if (gen === generation.current) setError(errorText(err));
      })
      .finally(() => {
        if (gen !== generation.current) return;
        busy.current = false;
        setLoading(false);
      });
  }, []);

  const reload = useCallback(() => {
    generation.current++;
    fetchPage(null, true);
  }, [fetchPage]);

  useEffect(reload, [key, reload]);

  const loadMore = useCallback(() => {
    if (busy.current || !hasMore || cursor === null) return;
    fetchPage(cursor, false);
  }, [cursor, hasMore, fetchPage]);

  const refreshHead = useCallback(() => {
    const gen = generation.current;
    loadRef
      .current(null)
      .then((page) => {
        if (gen !== generation.current) return;
        setItems((old) => {
          const known = new Set(old.map((item) => item.id));
          const fresh = page.items.filter((item) => !known.has(item.id));
          return fresh.length === 0 ? old : fresh.concat(old);
        });
      })
      .catch(() => undefined);
  }, []);

  const add = useCallback(
    (item: T) => setItems((old) => (old.some((known) => known.id === item.id) ? old : [item, ...old])),
    [],
  );

  return { items, hasMore, loading, error, loadMore, reload, update: setItems, add, refreshHead };
}
