// The Requests tab of a sandbox: the live list of captured HTTP requests and, when one is chosen, its view.
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { client, errorText, ok } from '../../api.ts';
import { navigate, paths } from '../../router.ts';
import { Empty } from '../../ui/Empty.tsx';
import { useSandboxContext } from '../sandboxContext.ts';
import { useBulkActions } from '../shared/bulkActions.tsx';
import { ItemsPane } from '../shared/ItemsPane.tsx';
import { useKeysetList } from '../shared/keysetList.ts';
import { useLiveItems } from '../shared/liveItems.ts';
import { useListSearch } from '../shared/SearchBox.tsx';
import { RequestList } from './RequestList.tsx';
import { RequestView } from './RequestView.tsx';
import { downloadText } from './download.ts';
import { harLog } from './har.ts';
import type { RequestDetail, RequestPage, RequestSummary } from './types.ts';
import '../mail/mail.css';
import './requests.css';

const PAGE = 50;
// Details read at once while exporting: enough to be quick, few enough to leave the server for others.
const EXPORT_PARALLEL = 6;

export function RequestsPane({ sandboxId, requestId }: { sandboxId: string; requestId?: string }) {
  const sandbox = useSandboxContext()?.sandbox;
  const captureUrl = sandbox?.captureUrl ?? '';
  const searchState = useListSearch();
  // The search box's text, sent as `search=` (the search language; src/core/search).
  const [q, setQ] = useState(searchState.search);
  const [exporting, setExporting] = useState<string | null>(null);
  const [exportError, setExportError] = useState<string | null>(null);
  const [bulkError, setBulkError] = useState<string | null>(null);
  const load = useCallback(
    (cursor: string | null) =>
      searchState.guard(
        ok(
          client.GET('/sandboxes/{sandboxId}/requests', {
            params: {
              path: { sandboxId },
              query: { search: q.trim() || undefined, limit: PAGE, cursor: cursor ?? undefined },
            },
          }),
        ),
      ),
    [sandboxId, q, searchState.guard],
  );
  const list = useKeysetList<RequestSummary>(load, JSON.stringify([sandboxId, q]));

  const open = useMemo(() => list.items.find((r) => r.id === requestId), [list.items, requestId]);
  const setRead = useCallback(
    (id: string, isRead: boolean) =>
      list.update((items) => items.map((r) => (r.id === id && r.isRead !== isRead ? { ...r, isRead } : r))),
    [list.update],
  );

  // Opening a request is reading it, as with mail. Done here rather than in the view, which does not know the
  // row's flag: a request not loaded in the list (a deep link to an old one) is marked read as well.
  const openRead = open?.isRead;
  useEffect(() => {
    if (requestId === undefined || openRead === true) return;
    let current = true;
    client
      .PATCH('/sandboxes/{sandboxId}/requests/{requestId}', {
        params: { path: { sandboxId, requestId } },
        body: { isRead: true },
      })
      .then(() => current && setRead(requestId, true))
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [sandboxId, requestId]);

  const bulk = useBulkActions({
    stream: 'requests',
    sandboxId,
    list,
    onGone: (gone) => {
      if (open !== undefined && gone(open)) navigate(paths.requests(sandboxId), { replace: true });
    },
    onError: setBulkError,
  });

  const removed = useCallback(
    (id: string) => {
      list.update((items) => items.filter((r) => r.id !== id));
      if (id === requestId) navigate(paths.requests(sandboxId), { replace: true });
    },
    [list.update, requestId, sandboxId],
  );

  useLiveItems(sandboxId, 'request', list, {
    received: (event) => {
      if (event.event !== 'request.received') return undefined;
      const { sandboxId: _sid, ...summary } = event.data;
      if (q.trim() === '') return summary;
      searchState.refreshSoon(list.refreshHead);
      return undefined;
    },
    updated: setRead,
    deleted: removed,
    cleared: () => {
      list.update(() => []);
      if (requestId !== undefined) navigate(paths.requests(sandboxId), { replace: true });
    },
  });

  const exportAll = async () => {
    setExportError(null);
    try {
      // Every request of the stream, not only the loaded pages: walk the cursor to the end, then read each detail.
      const summaries: RequestSummary[] = [];
      let cursor: string | null = null;
      do {
        setExporting(`Listing requests… ${summaries.length}`);
        const page: RequestPage = await ok(
          client.GET('/sandboxes/{sandboxId}/requests', {
            params: { path: { sandboxId }, query: { limit: 200, cursor: cursor ?? undefined } },
          }),
        );
        summaries.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor !== null);
      const details: RequestDetail[] = new Array(summaries.length);
      let next = 0;
      let done = 0;
      const worker = async () => {
        while (next < summaries.length) {
          const at = next++;
          const requestId = summaries[at]!.id;
          details[at] = await ok(
            client.GET('/sandboxes/{sandboxId}/requests/{requestId}', {
              params: { path: { sandboxId, requestId } },
            }),
          );
          done++;
          if (done % 10 === 0) setExporting(`Reading requests… ${done} of ${summaries.length}`);
        }
      };
      await Promise.all(Array.from({ length: EXPORT_PARALLEL }, worker));
      // HAR lists entries oldest first, as a browser records them.
      details.reverse();
      downloadText(
        `sandbox-${sandboxId}.har`,
        JSON.stringify(harLog(details, captureUrl), null, 2),
        'application/json',
      );
    } catch (err) {
      setExportError(`Export failed: ${errorText(err)}`);
    } finally {
      setExporting(null);
    }
  };

  return (
    <>
      <ItemsPane
        column={
          <RequestList
            sandboxId={sandboxId}
            openId={requestId}
            list={bulk.shown}
            bulk={bulk}
            q={q}
            onQuery={setQ}
            searchMistake={searchState.mistake}
            onExportAll={exportAll}
            exporting={exporting}
          />
        }
        view={
          requestId === undefined ? undefined : (
            <RequestView
              key={requestId}
              sandboxId={sandboxId}
              requestId={requestId}
              captureUrl={captureUrl}
              onDeleted={removed}
            />
          )
        }
        count={bulk.shown.items.length}
        loading={list.loading}
        error={exportError ?? bulkError}
        backHref={paths.requests(sandboxId)}
        backLabel="All requests"
        empty={
          <Empty title={q === '' ? 'No requests yet.' : 'No request matches this search.'}>
            {q === '' && captureUrl !== '' && (
              <>
                <p>Anything sent to the capture URL is recorded here as it arrives:</p>
                <pre
                  class="source"
                  tabIndex={0}
                >{`curl -X POST ${captureUrl}/hooks/test -H 'Content-Type: application/json' -d '{"hello":"world"}'`}</pre>
              </>
            )}
          </Empty>
        }
        chooseTitle="Choose a request"
      />
      {bulk.overlays}
    </>
  );
}
