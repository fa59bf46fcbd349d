// The list column of a tab (mail, requests): its toolbar, the loaded items windowed, a retry on error, more on scroll.
import type { ComponentChildren, VNode } from 'preact';
import { useRef } from 'preact/hooks';
import { LoadMore } from './LoadMore.tsx';
import { useRowWindow } from './rowWindow.ts';
import type { KeysetList } from './keysetList.ts';

export function ItemsColumn<T extends { id: string }>({
  list,
  label,
  moreLabel,
  row,
  children,
}: {
  list: KeysetList<T>;
  /** The list's accessible name ("Messages", "Requests"), which keyboard.ts also finds it by. */
  label: string;
  moreLabel: string;
  row: (item: T) => VNode;
  /** The toolbar and the bar above the list. */
  children: ComponentChildren;
}) {
  const listRef = useRef<HTMLUListElement>(null);
  const rows = useRowWindow(listRef, list.items.length);
  return (
    <div class="items-col">
      {children}
      {list.error !== null && (
        <p class="error" role="alert">
          {list.error}{' '}
          <button type="button" onClick={list.reload}>
            Retry
          </button>
        </p>
      )}
      <div class="items-scroll">
        <ul
          ref={listRef}
          class="items"
          aria-label={label}
          style={{ paddingTop: `${rows.padTop}px`, paddingBottom: `${rows.padBottom}px` }}
        >
          {list.items.slice(rows.start, rows.end).map((item) => row(item))}
        </ul>
        {list.hasMore && <LoadMore onVisible={list.loadMore} loading={list.loading} label={moreLabel} />}
      </div>
    </div>
  );
}
