// The Mail tab of a sandbox: the live message list and, when one is chosen, the message view beside it.
import { useCallback, useMemo, useState } from 'preact/hooks';
import { client, ok } from '../../api.ts';
import { navigate, paths } from '../../router.ts';
import { Empty } from '../../ui/Empty.tsx';
import { SetupSnippets } from '../setup/SetupSnippets.tsx';
import { useBulkActions } from '../shared/bulkActions.tsx';
import { ItemsPane } from '../shared/ItemsPane.tsx';
import { useKeysetList } from '../shared/keysetList.ts';
import { useLiveItems } from '../shared/liveItems.ts';
import { useListSearch } from '../shared/SearchBox.tsx';
import { MessageList } from './MessageList.tsx';
import { MessageView } from './MessageView.tsx';
import { matchesFilters, type MailFilters, type MessageSummary } from './types.ts';
import './mail.css';

const PAGE = 50;

export function MailPane({ sandboxId, messageId }: { sandboxId: string; messageId?: string }) {
  const searchState = useListSearch();
  // `q` holds the search box's text, sent as `search=` (the search language; src/core/search).
  const [filters, setFilters] = useState<MailFilters>({ q: searchState.search, unreadOnly: false, to: '' });
  const [bulkError, setBulkError] = useState<string | null>(null);
  const key = JSON.stringify([sandboxId, filters]);
  const load = useCallback(
    (cursor: string | null) =>
      searchState.guard(
        ok(
          client.GET('/sandboxes/{sandboxId}/messages', {
            params: {
              path: { sandboxId },
              query: {
                search: filters.q.trim() || undefined,
                capturedFor: filters.to.trim() || undefined,
                isRead: filters.unreadOnly ? false : undefined,
                limit: PAGE,
                cursor: cursor ?? undefined,
              },
            },
          }),
        ),
      ),
    [sandboxId, filters, searchState.guard],
  );
  const list = useKeysetList<MessageSummary>(load, key);
  const open = useMemo(() => list.items.find((m) => m.id === messageId), [list.items, messageId]);

  const setRead = useCallback(
    (id: string, isRead: boolean) =>
      list.update((items) =>
        // Under "unread only" a message read stays until the next reload, so the open row does not vanish.
        items.map((m) => (m.id === id && m.isRead !== isRead ? { ...m, isRead } : m)),
      ),
    [list.update],
  );
  const removed = useCallback(
    (id: string) => {
      list.update((items) => items.filter((m) => m.id !== id));
      if (id === messageId) navigate(paths.sandbox(sandboxId), { replace: true });
    },
    [list.update, messageId, sandboxId],
  );

  const emptied = useCallback(() => {
    list.update(() => []);
    if (messageId !== undefined) navigate(paths.sandbox(sandboxId), { replace: true });
  }, [list.update, messageId, sandboxId]);

  const bulk = useBulkActions({
    stream: 'messages',
    sandboxId,
    list,
    onGone: (gone) => {
      if (open !== undefined && gone(open)) navigate(paths.sandbox(sandboxId), { replace: true });
    },
    onError: setBulkError,
  });

  useLiveItems(sandboxId, 'message', list, {
    received: (event) => {
      if (event.event !== 'message.received') return undefined;
      const { sandboxId: _sid, ...summary } = event.data;
      if (filters.q.trim() !== '') {
        searchState.refreshSoon(list.refreshHead);
        return undefined;
      }
      return matchesFilters(summary, filters) ? summary : undefined;
    },
    updated: setRead,
    deleted: removed,
    cleared: emptied,
  });

  const filtered = filters.q !== '' || filters.to !== '' || filters.unreadOnly;

  return (
    <>
      <ItemsPane
        column={
          <MessageList
            sandboxId={sandboxId}
            openId={messageId}
            list={bulk.shown}
            bulk={bulk}
            filters={filters}
            onFilters={setFilters}
            searchMistake={searchState.mistake}
          />
        }
        view={
          messageId === undefined ? undefined : (
            <MessageView
              key={messageId}
              sandboxId={sandboxId}
              messageId={messageId}
              isRead={open?.isRead}
              onRead={setRead}
              onDeleted={removed}
            />
          )
        }
        count={bulk.shown.items.length}
        loading={list.loading}
        error={bulkError}
        backHref={paths.sandbox(sandboxId)}
        backLabel="All mail"
        empty={
          <>
            <Empty title={filtered ? 'No mail matches these filters.' : 'No mail yet.'}>
              {!filtered && <p>Mail sent to this sandbox over SMTP appears here as it arrives.</p>}
            </Empty>
            {!filtered && <SetupSnippets />}
          </>
        }
        chooseTitle="Choose a message"
      />
      {bulk.overlays}
    </>
  );
}
