// The bar above a list (mail, requests): select-all and the count, then either the list's own actions or,
// with rows ticked, what can be done to them (mark read or unread, delete).
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { Selection } from './selection.ts';

export function BulkBar({
  loaded,
  selection,
  noun,
  status,
  busy,
  onMark,
  onDelete,
  children,
}: {
  /** Rows loaded (and not hidden by a delete waiting for its undo window). */
  loaded: number;
  selection: Selection;
  /** Plural name of the rows: "messages", "requests". */
  noun: string;
  /** The count line shown when nothing is ticked. */
  status: string;
  busy: boolean;
  onMark: (isRead: boolean) => void;
  onDelete: () => void;
  /** The list's own actions, shown when nothing is ticked. */
  children: ComponentChildren;
}) {
  const ticked = selection.ids.length;
  const all = useRef<HTMLInputElement>(null);
  // "Some ticked" has no attribute: the mixed state is a DOM property.
  useEffect(() => {
    if (all.current !== null) all.current.indeterminate = ticked > 0 && ticked < loaded;
  }, [ticked, loaded]);
  return (
    <div class="items-bar">
      <label class="check select-all">
        <input
          ref={all}
          type="checkbox"
          checked={loaded > 0 && ticked === loaded}
          disabled={loaded === 0}
          onChange={selection.toggleAll}
          aria-label={`Select all shown ${noun}`}
        />
      </label>
      {ticked === 0 ? (
        <>
          <span class="items-count" role="status">
            {status}
          </span>
          <span class="items-actions">{children}</span>
        </>
      ) : (
        <>
          <span class="items-count" role="status">{`${ticked} selected`}</span>
          <span class="items-actions" role="group" aria-label={`Selected ${noun}`}>
            <button type="button" disabled={busy} onClick={() => onMark(true)}>
              Mark read
            </button>
            <button type="button" disabled={busy} onClick={() => onMark(false)}>
              Mark unread
            </button>
            <button type="button" class="danger" disabled={busy} onClick={onDelete}>
              Delete selected
            </button>
          </span>
        </>
      )}
    </div>
  );
}
