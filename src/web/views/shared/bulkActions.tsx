// Acting on many rows of a list at once (mail or requests): the ticked rows marked read or unread or deleted,
// mark all read, and Clear, which asks first with the count; deletes wait out an undo window (pendingDelete.ts).
import type { VNode } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import { client, errorText, ok } from '../../api.ts';
import { ConfirmDialog } from '../../ui/ConfirmDialog.tsx';
import type { KeysetList } from './keysetList.ts';
import { usePendingDelete } from './pendingDelete.ts';
import { useSelection, type Selection } from './selection.ts';
import { UndoToast } from './UndoToast.tsx';

export type Stream = 'messages' | 'requests';

interface Row {
  id: string;
  isRead: boolean;
  receivedAt: string;
}

/** The API takes at most this many ids a call. */
const IDS_A_CALL = 500;

function chunks(ids: string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < ids.length; i += IDS_A_CALL) out.push(ids.slice(i, i + IDS_A_CALL));
  return out;
}

async function markRead(stream: Stream, sandboxId: string, body: { ids?: string[]; isRead: boolean }) {
  const params = { path: { sandboxId } };
  if (stream === 'messages') await ok(client.POST('/sandboxes/{sandboxId}/messages/read', { params, body }));
  else await ok(client.POST('/sandboxes/{sandboxId}/requests/read', { params, body }));
}

async function deleteMany(
  stream: Stream,
  sandboxId: string,
  body: { ids: string[] } | { upTo: string },
  keepalive: boolean,
) {
  const params = { path: { sandboxId } };
  if (stream === 'messages')
    await ok(client.POST('/sandboxes/{sandboxId}/messages/delete', { params, body, keepalive }));
  else await ok(client.POST('/sandboxes/{sandboxId}/requests/delete', { params, body, keepalive }));
}

/** The newest item of the whole stream (whatever the list's filters) and how many the stream holds. */
async function streamHead(stream: Stream, sandboxId: string): Promise<{ newest: Row | null; total: number }> {
  const params = { path: { sandboxId }, query: { limit: 1 } };
  const [page, activity] = await Promise.all([
    stream === 'messages'
      ? ok(client.GET('/sandboxes/{sandboxId}/messages', { params }))
      : ok(client.GET('/sandboxes/{sandboxId}/requests', { params })),
    ok(client.GET('/sandboxes/activity', { params: { query: { ids: sandboxId } } })),
  ]);
  const counts = activity.items.find((a) => a.sandboxId === sandboxId);
  return { newest: page.items[0] ?? null, total: counts?.[stream].total ?? page.items.length };
}

interface ClearAsk {
  /** Null while the count is being read. */
  total: number | null;
  newest: Row | null;
}

export interface BulkActions<T extends Row> {
  /** The list as shown: rows a waiting delete takes away are hidden, and no older page is read meanwhile. */
  shown: KeysetList<T>;
  selection: Selection;
  busy: boolean;
  mark: (isRead: boolean) => void;
  markAll: () => void;
  deleteSelected: () => void;
  askClear: () => void;
  /** The confirm dialog and the undo toast, rendered once by the pane. */
  overlays: VNode;
}

export function useBulkActions<T extends Row>({
  stream,
  sandboxId,
  list,
  onGone,
  onError,
}: {
  stream: Stream;
  sandboxId: string;
  list: KeysetList<T>;
  /** Rows just hidden or deleted: the pane closes the open one if it is among them. */
  onGone: (gone: (item: T) => boolean) => void;
  onError: (text: string | null) => void;
}): BulkActions<T> {
  const [busy, setBusy] = useState(false);
  const [clearAsk, setClearAsk] = useState<ClearAsk | null>(null);
  const noun = stream;
  const deletes = usePendingDelete<T>(sandboxId, {
    done: (hides) => list.update((items) => items.filter((item) => !hides(item))),
    failed: onError,
  });
  const hides = deletes.pending?.hides;
  const items = useMemo(
    () => (hides === undefined ? list.items : list.items.filter((item) => !hides(item))),
    [list.items, hides],
  );
  const clearing = deletes.pending?.clearsAll === true;
  const shown = useMemo(
    () => ({ ...list, items, hasMore: list.hasMore && !clearing }),
    [list, items, clearing],
  );
  const selection = useSelection(items);

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    onError(null);
    try {
      await action();
    } catch (err) {
      onError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const mark = (isRead: boolean) => {
    const ids = selection.ids;
    void run(async () => {
      for (const part of chunks(ids)) await markRead(stream, sandboxId, { ids: part, isRead });
      const set = new Set(ids);
      list.update((all) => all.map((r) => (set.has(r.id) && r.isRead !== isRead ? { ...r, isRead } : r)));
    });
  };

  const markAll = () =>
    void run(async () => {
      // Neither ids nor upTo: every item of the stream, loaded or not.
      await markRead(stream, sandboxId, { isRead: true });
      list.update((all) => all.map((r) => (r.isRead ? r : { ...r, isRead: true })));
    });

  const deleteSelected = () => {
    const ids = selection.ids;
    if (ids.length === 0) return;
    const set = new Set(ids);
    const gone = (item: T) => set.has(item.id);
    selection.clear();
    onError(null);
    deletes.schedule({
      clearsAll: false,
      label: `Deleted ${ids.length === 1 ? `1 ${noun.slice(0, -1)}` : `${ids.length} ${noun}`}.`,
      hides: gone,
      commit: async (keepalive) => {
        for (const part of chunks(ids)) await deleteMany(stream, sandboxId, { ids: part }, keepalive);
      },
    });
    onGone(gone);
  };

  const askClear = () => {
    setClearAsk({ total: null, newest: null });
    streamHead(stream, sandboxId)
      .then((head) => setClearAsk((ask) => (ask === null ? null : head)))
      .catch((err: unknown) => {
        setClearAsk(null);
        onError(errorText(err));
      });
  };

  const confirmClear = () => {
    const ask = clearAsk;
    setClearAsk(null);
    if (ask === null || ask.newest === null) return;
    const upTo = ask.newest;
    // Everything up to the newest item when the reader said yes; what arrives meanwhile is not theirs to lose.
    const gone = (item: T) =>
      item.receivedAt < upTo.receivedAt || (item.receivedAt === upTo.receivedAt && item.id <= upTo.id);
    selection.clear();
    onError(null);
    deletes.schedule({
      clearsAll: true,
      label: `Cleared ${ask.total ?? ''} ${noun}.`.replace('  ', ' '),
      hides: gone,
      commit: (keepalive) => deleteMany(stream, sandboxId, { upTo: upTo.id }, keepalive),
    });
    onGone(gone);
  };

  const total = clearAsk?.total;
  const overlays = (
    <>
      <ConfirmDialog
        open={clearAsk !== null}
        title={
          total === null || total === undefined
            ? `Delete all ${noun}?`
            : total === 1
              ? `Delete the 1 ${noun.slice(0, -1)}?`
              : `Delete all ${total} ${noun}?`
        }
        confirmLabel="Delete all"
        danger
        busy={clearAsk?.total === null}
        onConfirm={confirmClear}
        onCancel={() => setClearAsk(null)}
      >
        <p>
          {clearAsk?.newest === null && clearAsk.total !== null
            ? `There are no ${noun} to delete.`
            : `Every ${noun.slice(0, -1)} of this sandbox goes, not only those shown. You can undo for a few seconds.`}
        </p>
      </ConfirmDialog>
      <UndoToast label={deletes.pending?.label ?? null} onUndo={deletes.undo} />
    </>
  );

  return { shown, selection, busy, mark, markAll, deleteSelected, askClear, overlays };
}
