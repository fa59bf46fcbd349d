// The mail list of a sandbox: search and filters, newest first, unread marked, infinite scroll, rows ticked
// for bulk actions, mark all read and Clear mail.
import { useRef } from 'preact/hooks';
import { Link } from '../../ui/Link.tsx';
import { Time } from '../../ui/Time.tsx';
import { paths } from '../../router.ts';
import type { BulkActions } from '../shared/bulkActions.tsx';
import { BulkBar } from '../shared/BulkBar.tsx';
import { ItemsColumn } from '../shared/ItemsColumn.tsx';
import { RowCheck } from '../shared/RowCheck.tsx';
import { MAIL_OPERATORS, SearchBox } from '../shared/SearchBox.tsx';
import type { KeysetList } from '../shared/keysetList.ts';
import { parseAddress } from './addresses.ts';
import type { MailFilters, MessageSummary } from './types.ts';
import { useScrollToOpen } from '../shared/scrollToOpen.ts';

export function MessageList({
  sandboxId,
  openId,
  list,
  bulk,
  filters,
  onFilters,
  searchMistake,
}: {
  sandboxId: string;
  openId: string | undefined;
  /** The rows shown (bulk.shown): those a waiting delete takes away are left out. */
  list: KeysetList<MessageSummary>;
  bulk: BulkActions<MessageSummary>;
  filters: MailFilters;
  onFilters: (f: MailFilters) => void;
  /** What the server found wrong with the search, shown at the box. */
  searchMistake: string | null;
}) {
  const unread = list.items.filter((m) => !m.isRead).length;
  const { selection } = bulk;

  return (
    <ItemsColumn
      list={list}
      label="Messages"
      moreLabel="Load older mail"
      row={(m) => (
        <MessageRow
          key={m.id}
          sandboxId={sandboxId}
          message={m}
          open={m.id === openId}
          ticked={selection.has(m.id)}
          onTick={(shift) => selection.toggle(m.id, shift)}
        />
      )}
    >
      <form class="items-toolbar" role="search" onSubmit={(e) => e.preventDefault()}>
        <SearchBox
          label="Search mail"
          initial={filters.q}
          onSearch={(q) => onFilters({ ...filters, q })}
          mistake={searchMistake}
          operators={MAIL_OPERATORS}
        />
        <input
          type="search"
          aria-label="Captured for address"
          // Short enough to show whole in the narrowest toolbar ("To address (exact)" was cut at 1440 px wide);
          // the title says what the field matches.
          placeholder="To address"
          title="Only mail captured for exactly this address"
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
      <BulkBar
        loaded={list.items.length}
        selection={selection}
        noun="messages"
        status={
          list.items.length === 0
            ? ''
            : `${list.items.length}${list.hasMore ? '+' : ''} shown${unread > 0 ? `, ${unread} unread` : ''}`
        }
        busy={bulk.busy}
        onMark={bulk.mark}
        onDelete={bulk.deleteSelected}
      >
        <button type="button" onClick={bulk.markAll} disabled={bulk.busy || list.items.length === 0}>
          Mark all read
        </button>
        <button type="button" onClick={bulk.askClear} disabled={bulk.busy || list.items.length === 0}>
          Clear mail
        </button>
      </BulkBar>
    </ItemsColumn>
  );
}

function MessageRow({
  sandboxId,
  message: m,
  open,
  ticked,
  onTick,
}: {
  sandboxId: string;
  message: MessageSummary;
  open: boolean;
  ticked: boolean;
  onTick: (shift: boolean) => void;
}) {
  const subject = m.subject === null || m.subject === '' ? '(no subject)' : m.subject;
  const parsed = parseAddress(m.from);
  // The display name in the row, the address on hover; a From that names no mailbox shows as written.
  const sender = { name: parsed.name || parsed.address || m.from, address: parsed.address || m.from };
  const classes = ['item', m.isRead ? '' : 'unread', open ? 'open' : '', ticked ? 'ticked' : '']
    .filter(Boolean)
    .join(' ');
  // The link holds only the subject (its name, "Unread: " first when unread); it stretches over the whole row.
  // The sender's line reads first on screen, though the subject link comes first for assistive technology.
  const row = useRef<HTMLLIElement>(null);
  useScrollToOpen(row, open);
  return (
    <li class={classes} ref={row}>
      <RowCheck label={`Select ${subject}`} checked={ticked} onTick={onTick} />
      <span class="item-body">
        <span class="item-line item-main">
          <Link
            class="item-link"
            href={paths.message(sandboxId, m.id)}
            aria-current={open ? 'page' : undefined}
          >
            {!m.isRead && <span class="visually-hidden">Unread: </span>}
            {subject}
          </Link>
          <span class="item-preview">
            {m.attachmentCount ? (
              <span class="item-attach">
                {m.attachmentCount === 1 ? '1 attachment' : `${m.attachmentCount} attachments`} ·{' '}
              </span>
            ) : null}
            {m.preview}
          </span>
        </span>
        <span class="item-line item-head">
          <span class="item-from" title={sender.address}>
            {sender.name}
          </span>
          <Time iso={m.receivedAt} />
        </span>
      </span>
    </li>
  );
}
