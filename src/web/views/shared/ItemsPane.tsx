// A tab of items (mail, requests): the list column beside the detail column, which shows the open item or,
// with none open, what the list has to say.
import type { ComponentChildren, VNode } from 'preact';
import { Empty } from '../../ui/Empty.tsx';
import { Link } from '../../ui/Link.tsx';

export function ItemsPane({
  column,
  view,
  count,
  loading,
  error,
  backHref,
  backLabel,
  empty,
  chooseTitle,
}: {
  column: VNode;
  /** The open item's view; undefined when none is open. */
  view: VNode | undefined;
  /** Loaded items, and whether a page is being read: an empty list says so only once it is read. */
  count: number;
  loading: boolean;
  /** A failed action on the whole list. */
  error: string | null;
  backHref: string;
  backLabel: string;
  /** What an empty list shows. */
  empty: ComponentChildren;
  chooseTitle: string;
}) {
  const open = view !== undefined;
  return (
    <div class={`items-pane${open ? ' has-open' : ''}`}>
      {column}
      <div class={`detail-col${!open && count === 0 ? ' is-empty' : ''}`}>
        {error !== null && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {open && (
          <Link class="back-link" href={backHref}>
            {`← ${backLabel}`}
          </Link>
        )}
        {open ? (
          view
        ) : loading && count === 0 ? null : count === 0 ? (
          empty
        ) : (
          <Empty title={chooseTitle}>
            <p>j and k move through the list, Enter opens, / searches.</p>
          </Empty>
        )}
      </div>
    </div>
  );
}
