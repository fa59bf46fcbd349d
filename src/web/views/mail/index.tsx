// The Mail tab of a sandbox: the live message list and, when one is chosen, the message view beside it.
import { useCallback, useEffect, useRef, useMemo, useState } from 'preact/hooks';
import { api, errorText, query } from '../../api.ts';
import { useLive, type LiveEvent } from '../../live.ts';
import { navigate, paths } from '../../router.ts';
import { Empty } from '../../ui/Empty.tsx';
import { Link } from '../../ui/Link.tsx';
import { SetupSnippets } from '../setup/SetupSnippets.tsx';
import { useKeysetList } from './keysetList.ts';
import { MessageList } from './MessageList.tsx';
import { MessageView } from './MessageView.tsx';
import {
  matchesFilters,
  messagesPath,
  type MailFilters,
  type MessagePage,
  type MessageSummary,
} from './types.ts';
import './mail.css';

const PAGE = 50;

export function MailPane({ sandboxId, messageId }: { sandboxId: string; messageId?: string }) {
  const [filters, setFilters] = useState<MailFilters>({ q: '', unreadOnly: false, to: '' });
  const [clearing, setClearing] = useState(false);
  const [clearError, setClearError] = useState<string | null>(null);
  const key = JSON.stringify([sandboxId, filters]);
  const load = useCallback(
    (cursor: string | null) =>
      api<MessagePage>(
        'GET',
        messagesPath(sandboxId) +
          query({
            q: filters.q.trim(),
            capturedFor: filters.to.trim(),
            isRead: filters.unreadOnly ? false : undefined,
            limit: PAGE,
            cursor,
          }),
      ),
    [sandboxId, filters],
  );
  const list = useKeysetList<MessageSummary>(load, key);

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

  const live = useLive(sandboxId, (event: LiveEvent) => {
    switch (event.event) {
      case 'message.received': {
        const { sandboxId: _sid, ...summary } = event.data;
        if (!matchesFilters(summary, filters)) return;
        list.update((items) => (items.some((m) => m.id === summary.id) ? items : [summary, ...items]));
        return;
      }
      case 'message.updated':
        setRead(event.data.id, event.data.isRead);
        return;
      case 'message.deleted':
        removed(event.data.id);
        return;
      case 'messages.cleared':
        list.update(() => []);
        if (messageId !== undefined) navigate(paths.sandbox(sandboxId), { replace: true });
        return;
      case 'reset':
        list.reload();
        return;
      default:
        return;
    }
  });

  // The list and the stream start apart, and a stream reopened after giving up starts afresh: whatever
  // arrived in between is read from the first page each time the stream (re)opens.
  const wasOpen = useRef(false);
  useEffect(() => {
    if (live === 'open' && !wasOpen.current) list.refreshHead();
    wasOpen.current = live === 'open';
  }, [live, list.refreshHead]);

  const clear = async () => {
    setClearing(true);
    setClearError(null);
    try {
      await api('DELETE', messagesPath(sandboxId));
      list.update(() => []);
      if (messageId !== undefined) navigate(paths.sandbox(sandboxId), { replace: true });
    } catch (err) {
      setClearError(errorText(err));
    } finally {
      setClearing(false);
    }
  };

  const open = useMemo(() => list.items.find((m) => m.id === messageId), [list.items, messageId]);
  const filtered = filters.q !== '' || filters.to !== '' || filters.unreadOnly;

  return (
    <div class={`items-pane${messageId === undefined ? '' : ' has-open'}`}>
      <MessageList
        sandboxId={sandboxId}
        openId={messageId}
        list={list}
        filters={filters}
        onFilters={setFilters}
        onClear={clear}
        clearing={clearing}
      />
      <div class={`detail-col${messageId === undefined && list.items.length === 0 ? ' is-empty' : ''}`}>
        {clearError !== null && (
          <p class="error" role="alert">
            {clearError}
          </p>
        )}
        {messageId !== undefined && (
          <Link class="back-link" href={paths.sandbox(sandboxId)}>
            ← All mail
          </Link>
        )}
        {messageId !== undefined ? (
          <MessageView
            key={messageId}
            sandboxId={sandboxId}
            messageId={messageId}
            isRead={open?.isRead}
            onRead={setRead}
            onDeleted={removed}
          />
        ) : list.loading && list.items.length === 0 ? null : list.items.length === 0 ? (
          <>
            <Empty title={filtered ? 'No mail matches these filters.' : 'No mail yet.'}>
              {!filtered && <p>Mail sent to this sandbox over SMTP appears here as it arrives.</p>}
            </Empty>
            {!filtered && <SetupSnippets />}
          </>
        ) : (
          <Empty title="Choose a message">
            <p>j and k move through the list, Enter opens, / searches.</p>
          </Empty>
        )}
      </div>
    </div>
  );
}
