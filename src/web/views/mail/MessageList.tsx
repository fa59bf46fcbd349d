// The mail list of a sandbox: search and filters, newest first, unread marked, infinite scroll, Clear mail.
import { Link } from '../../ui/Link.tsx';
import { Time } from '../../ui/Time.tsx';
import { paths } from '../../router.ts';
import { ItemsColumn } from '../shared/ItemsColumn.tsx';
import { SearchBox } from '../shared/SearchBox.tsx';
import type { KeysetList } from '../shared/keysetList.ts';
import type { MailFilters, MessageSummary } from './types.ts';

export function MessageList({
  sandboxId,
  openId,
  list,
  filters,
  onFilters,
  onClear,
  clearing,
}: {
  sandboxId: string;
  openId: string | undefined;
  list: KeysetList<MessageSummary>;
  filters: MailFilters;
  onFilters: (f: MailFilters) => void;
  onClear: () => void;
  clearing: boolean;
}) {
  const unread = list.items.filter((m) => !m.isRead).length;

  return (
    <ItemsColumn
      list={list}
      label="Messages"
      moreLabel="Load older mail"
      row={(m) => <MessageRow key={m.id} sandboxId={sandboxId} message={m} open={m.id === openId} />}
    >
      <form class="items-toolbar" role="search" onSubmit={(e) => e.preventDefault()}>
        <SearchBox label="Search mail" initial={filters.q} onSearch={(q) => onFilters({ ...filters, q })} />
        <input
          type="search"
          aria-label="Captured for address"
          placeholder="To address (exact)"
          value={filters.to}
          onChange={(e) => onFilters({ ...filters, to: e.currentTarget.value })}
        />
        <label class="check">
          <input
            type="checkbox"
            checked={filters.unreadOnly}
            onChange={(e) => onFilters({ ...filters, unreadOnly: e.currentTarget.checked })}
          />
          Unread only
        </label>
      </form>
      <div class="items-bar">
        <span class="items-count" aria-live="polite">
          {list.items.length === 0
            ? ''
            : `${list.items.length}${list.hasMore ? '+' : ''} shown${unread > 0 ? `, ${unread} unread` : ''}`}
        </span>
        <button type="button" onClick={onClear} disabled={clearing || list.items.length === 0}>
          Clear mail
        </button>
      </div>
    </ItemsColumn>
  );
}

function MessageRow({
  sandboxId,
  message: m,
  open,
}: {
  sandboxId: string;
  message: MessageSummary;
  open: boolean;
}) {
  const subject = m.subject === null || m.subject === '' ? '(no subject)' : m.subject;
  const classes = ['item', m.isRead ? '' : 'unread', open ? 'open' : ''].filter(Boolean).join(' ');
  // The link holds only the subject (its name, "Unread: " first when unread); it stretches over the whole row.
  return (
    <li class={classes}>
      <Link class="item-link" href={paths.message(sandboxId, m.id)} aria-current={open ? 'page' : undefined}>
        {!m.isRead && <span class="visually-hidden">Unread: </span>}
        {subject}
      </Link>
      <span class="item-line">
        <span class="item-from">{m.from}</span>
        <Time iso={m.receivedAt} />
      </span>
      <span class="item-preview">
        {m.attachmentCount ? (
          <span class="item-attach">
            {m.attachmentCount === 1 ? '1 attachment' : `${m.attachmentCount} attachments`} ·{' '}
          </span>
        ) : null}
        {m.preview}
      </span>
    </li>
  );
}
