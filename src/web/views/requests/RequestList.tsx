// The captured requests of a sandbox: search, newest first, what each was answered, infinite scroll.
import { Link } from '../../ui/Link.tsx';
import { Time } from '../../ui/Time.tsx';
import { paths } from '../../router.ts';
import { ItemsColumn } from '../shared/ItemsColumn.tsx';
import { SearchBox } from '../shared/SearchBox.tsx';
import type { KeysetList } from '../shared/keysetList.ts';
import type { RequestSummary } from './types.ts';

export function RequestList({
  sandboxId,
  openId,
  list,
  q,
  onQuery,
  onExportAll,
  exporting,
}: {
  sandboxId: string;
  openId: string | undefined;
  list: KeysetList<RequestSummary>;
  q: string;
  onQuery: (q: string) => void;
  onExportAll: () => void;
  exporting: string | null;
}) {
  return (
    <ItemsColumn
      list={list}
      label="Requests"
      moreLabel="Load older requests"
      row={(r) => <RequestRow key={r.id} sandboxId={sandboxId} request={r} open={r.id === openId} />}
    >
      <form class="items-toolbar" role="search" onSubmit={(e) => e.preventDefault()}>
        <SearchBox label="Search requests" initial={q} onSearch={onQuery} />
      </form>
      <div class="items-bar">
        <span class="items-count" role="status">
          {exporting ??
            (list.items.length === 0 ? '' : `${list.items.length}${list.hasMore ? '+' : ''} shown`)}
        </span>
        <button type="button" onClick={onExportAll} disabled={exporting !== null || list.items.length === 0}>
          Export all as HAR
        </button>
      </div>
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
}: {
  sandboxId: string;
  request: RequestSummary;
  open: boolean;
}) {
  // The link's text is its name, "METHOD /path"; it stretches over the whole row.
  return (
    <li class={`item${open ? ' open' : ''}`}>
      <span class="item-line">
        <Link
          class="item-link req-line"
          href={paths.request(sandboxId, r.id)}
          aria-current={open ? 'page' : undefined}
        >
          <span class={`method m-${r.method.toLowerCase()}`}>{r.method}</span>{' '}
          <span class="req-path">{r.path}</span>
        </Link>
        <Time iso={r.receivedAt} />
      </span>
      <span class="item-preview">
        {r.query ? <span class="req-query">?{r.query} · </span> : null}
        <span class={`status ${statusClass(r.mockStatusCode)}`}>{r.mockStatusCode}</span>{' '}
        {r.mockName ?? 'default reply'} · {r.sourceIp ?? 'unknown source'}
      </span>
    </li>
  );
}
