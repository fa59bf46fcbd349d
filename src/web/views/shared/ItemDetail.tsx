// The frame of one item's view (a message, a request): heading, actions ending in Delete, facts, then the item.
import type { ComponentChildren } from 'preact';
import { bytes, fullTime } from '../../ui/time.ts';

export function ItemDetail({
  titleId,
  title,
  titleClass,
  actions,
  busy,
  onDelete,
  meta,
  receivedAt,
  sizeBytes,
  children,
}: {
  /** The heading's id, which names the article. */
  titleId: string;
  title: string;
  titleClass?: string;
  /** Buttons before Delete. */
  actions: ComponentChildren;
  busy: boolean;
  onDelete: () => void;
  /** Facts (dt/dd pairs) before the received time and size. */
  meta: ComponentChildren;
  receivedAt: string;
  sizeBytes: number;
  children: ComponentChildren;
}) {
  return (
    <article class="detail" aria-labelledby={titleId}>
      <header class="detail-head">
        <h2 id={titleId} class={titleClass}>
          {title}
        </h2>
        <div class="detail-actions">
          {actions}
          <button type="button" class="danger" disabled={busy} onClick={onDelete}>
            Delete
          </button>
        </div>
      </header>
      <dl class="meta">
        {meta}
        <dt>Received</dt>
        <dd>
          <time dateTime={receivedAt}>{fullTime(receivedAt)}</time> · {bytes(sizeBytes)}
        </dd>
      </dl>
      {children}
    </article>
  );
}
