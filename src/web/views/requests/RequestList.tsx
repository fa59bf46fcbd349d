// The captured requests of a sandbox: search, newest first, what each was answered, unread marked, infinite
// scroll, rows ticked for bulk actions, mark all read, Clear requests and the HAR export.
import { useRef } from 'preact/hooks';
import { Link } from '../../ui/Link.tsx';
import { Time } from '../../ui/Time.tsx';
import { paths } from '../../router.ts';
import type { BulkActions } from '../shared/bulkActions.tsx';
import { BulkBar } from '../shared/BulkBar.tsx';
import { ItemsColumn } from '../shared/ItemsColumn.tsx';
import { RowCheck } from '../shared/RowCheck.tsx';
import { REQUEST_OPERATORS, SearchBox } from '../shared/SearchBox.tsx';
import type { KeysetList } from '../shared/keysetList.ts';
import type { RequestSummary } from './types.ts';
import { useScrollToOpen } from '../shared/scrollToOpen.ts';

export function RequestList({
  sandboxId,
  openId,
  list,
  bulk,
  q,
  onQuery,
  searchMistake,
  onExportAll,
  exporting,
}: {
  sandboxId: string;
  openId: string | undefined;
  /** The rows shown (bulk.shown): those a waiting delete takes away are left out. */
  list: KeysetList<RequestSummary>;
  bulk: BulkActions<RequestSummary>;
  q: string;
  onQuery: (q: string) => void;
  /** What the server found wrong with the search, shown at the box. */
  searchMistake: string | null;
  onExportAll: () => void;
  exporting: string | null;
}) {
  const { selection } = bulk;
  const unread = list.items.filter((r) => !r.isRead).length;
  return (
    <ItemsColumn
      list={list}
      label="Requests"
      moreLabel="Load older requests"
      row={(r) => (
        <RequestRow
          key={r.id}
          sandboxId={sandboxId}
          request={r}
          open={r.id === openId}
          ticked={selection.has(r.id)}
          onTick={(shift) => selection.toggle(r.id, shift)}
        />
      )}
    >
      <form class="items-toolbar" role="search" onSubmit={(e) => e.preventDefault()}>
        <SearchBox
          label="Search requests"
          initial={q}
          onSearch={onQuery}
          mistake={searchMistake}
          operators={REQUEST_OPERATORS}
        />
      </form>
      <BulkBar
        loaded={list.items.length}
        selection={selection}
        noun="requests"
        status={
          exporting ??
          (list.items.length === 0
            ? ''
            : `${list.items.length}${list.hasMore ? '+' : ''} shown${unread > 0 ? `, ${unread} unread` : ''}`)
        }
        busy={bulk.busy}
        onMark={bulk.mark}
        onDelete={bulk.deleteSelected}
      >
        <button type="button" onClick={bulk.markAll} disabled={bulk.busy || list.items.length === 0}>
          Mark all read
        </button>
        <button type="button" onClick={bulk.askClear} disabled={bulk.busy || list.items.length === 0}>
          Clear requests
        </button>
        <button type="button" onClick={onExportAll} disabled={exporting !== null || list.items.length === 0}>
          Export all as HAR
        </button>
      </BulkBar>
    </ItemsColumn>
  );
}

function statusClass(code: number): string {
  return code >= 500 ? 's5' : code >= 400 ? 's4' : code >= 300 ? 's3' : 's2';
}

function RequestRow({
  sandboxId,
  request: r,
  open,
  ticked,
  onTick,
}: {
  sandboxId: string;
  request: RequestSummary;
  open: boolean;
  ticked: boolean;
  onTick: (shift: boolean) => void;
}) {
  const classes = ['item', r.isRead ? '' : 'unread', open ? 'open' : '', ticked ? 'ticked' : '']
    .filter(Boolean)
    .join(' ');
  // The link's text is its name, "METHOD /path" (", unread" after it); it stretches over the whole row.
  // The query goes last on the second line, so a long one is cut short rather than the status and rule.
  const row = useRef<HTMLLIElement>(null);
  useScrollToOpen(row, open);
  return (
    <li class={classes} ref={row}>
      <RowCheck label={`Select ${r.method} ${r.path}`} checked={ticked} onTick={onTick} />
      <span class="item-body">
        <span class="item-line">
          <Link
            class="item-link req-line"
            href={paths.request(sandboxId, r.id)}
            aria-current={open ? 'page' : undefined}
          >
            <span class={`method m-${r.method.toLowerCase()}`}>{r.method}</span>{' '}
            <span class="req-path">{r.path}</span>
            {!r.isRead && <span class="visually-hidden">, unread</span>}
          </Link>
          <Time iso={r.receivedAt} />
        </span>
        <span class="item-preview">
          <span class={`status ${statusClass(r.mockStatusCode)}`}>{r.mockStatusCode}</span>{' '}
          {r.mockName ?? 'default reply'} · {r.sourceIp ?? 'unknown source'}
          {r.query ? <span class="req-query"> · ?{r.query}</span> : null}
        </span>
      </span>
    </li>
  );
}
