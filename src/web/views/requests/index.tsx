// The Requests tab of a sandbox: the live list of captured HTTP requests and, when one is chosen, its view.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, errorText, query } from '../../api.ts';
import { useLive, type LiveEvent } from '../../live.ts';
import { navigate, paths } from '../../router.ts';
import { Empty } from '../../ui/Empty.tsx';
import { Link } from '../../ui/Link.tsx';
import { useSandboxContext } from '../sandboxContext.ts';
import { useKeysetList } from '../mail/keysetList.ts';
import { RequestList } from './RequestList.tsx';
import { RequestView } from './RequestView.tsx';
import { downloadText } from './download.ts';
import { harLog } from './har.ts';
import {
  matchesQuery,
  requestPath,
  requestsPath,
  type RequestDetail,
  type RequestPage,
  type RequestSummary,
} from './types.ts';
import '../mail/mail.css';
import './requests.css';

const PAGE = 50;
// Details read at once while exporting: enough to be quick, few enough to leave the server for others.
const EXPORT_PARALLEL = 6;

export function RequestsPane({ sandboxId, requestId }: { sandboxId: string; requestId?: string }) {
  const sandbox = useSandboxContext()?.sandbox;
  const captureUrl = sandbox?.captureUrl ?? '';
  const [q, setQ] = useState('');
  const [exporting, setExporting] = useState<string | null>(null);
  const [exportError, setExportError] = useState<string | null>(null);
  const load = useCallback(
    (cursor: string | null) =>
      api<RequestPage>('GET', requestsPath(sandboxId) + query({ q: q.trim(), limit: PAGE, cursor })),
    [sandboxId, q],
  );
  const list = useKeysetList<RequestSummary>(load, JSON.stringify([sandboxId, q]));

  const removed = useCallback(
    (id: string) => {
      list.update((items) => items.filter((r) => r.id !== id));
      if (id === requestId) navigate(paths.requests(sandboxId), { replace: true });
    },
    [list.update, requestId, sandboxId],
  );

  const live = useLive(sandboxId, (event: LiveEvent) => {
    switch (event.event) {
      case 'request.received': {
        const { sandboxId: _sid, ...summary } = event.data;
        if (!matchesQuery(summary, q)) return;
        list.update((items) => (items.some((r) => r.id === summary.id) ? items : [summary, ...items]));
        return;
      }
      case 'request.updated':
        list.update((items) =>
          items.map((r) => (r.id === event.data.id ? { ...r, isRead: event.data.isRead } : r)),
        );
        return;
      case 'request.deleted':
        removed(event.data.id);
        return;
      case 'requests.cleared':
        list.update(() => []);
        if (requestId !== undefined) navigate(paths.requests(sandboxId), { replace: true });
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

  const exportAll = async () => {
    setExportError(null);
    try {
      // Every request of the stream, not only the loaded pages: walk the cursor to the end, then read each detail.
      const summaries: RequestSummary[] = [];
      let cursor: string | null = null;
      do {
        setExporting(`Listing requests… ${summaries.length}`);
        const page: RequestPage = await api<RequestPage>(
          'GET',
          requestsPath(sandboxId) + query({ limit: 200, cursor }),
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
          details[at] = await api<RequestDetail>('GET', requestPath(sandboxId, summaries[at]!.id));
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
    <div class={`items-pane${requestId === undefined ? '' : ' has-open'}`}>
      <RequestList
        sandboxId={sandboxId}
        openId={requestId}
        list={list}
        q={q}
        onQuery={setQ}
        onExportAll={exportAll}
        exporting={exporting}
      />
      <div class={`detail-col${requestId === undefined && list.items.length === 0 ? ' is-empty' : ''}`}>
        {exportError !== null && (
          <p class="error" role="alert">
            {exportError}
          </p>
        )}
        {requestId !== undefined && (
          <Link class="back-link" href={paths.requests(sandboxId)}>
            ← All requests
          </Link>
        )}
        {requestId !== undefined ? (
          <RequestView
            key={requestId}
            sandboxId={sandboxId}
            requestId={requestId}
            captureUrl={captureUrl}
            onDeleted={removed}
          />
        ) : list.loading && list.items.length === 0 ? null : list.items.length === 0 ? (
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
        ) : (
          <Empty title="Choose a request">
            <p>j and k move through the list, Enter opens, / searches.</p>
          </Empty>
        )}
      </div>
    </div>
  );
}
