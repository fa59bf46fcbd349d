// One captured request: what answered it, its query and headers as sent, its body, the reply sent, and
// curl/raw/HAR exports.
import { useEffect, useState } from 'preact/hooks';
import { client, errorText, ok } from '../../api.ts';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { ErrorMessage, Loading } from '../../ui/Empty.tsx';
import { useBusyAction } from '../shared/busyAction.ts';
import { ItemDetail } from '../shared/ItemDetail.tsx';
import { NameValueTable } from '../shared/NameValueTable.tsx';
import { RequestBody } from './RequestBody.tsx';
import { ReplayForm } from './ReplayForm.tsx';
import { RequestReply } from './RequestReply.tsx';
import { curlCommand, needsRawBody, rawBody } from './curl.ts';
import { downloadText, downloadUrl } from './download.ts';
import { harLog } from './har.ts';
import { requestPath, type RequestDetail } from './types.ts';

// Past this a curl command line is no use to paste; the raw download is the way to replay it.
const CURL_BODY_LIMIT = 2 * 1024 * 1024;

export function RequestView({
  sandboxId,
  requestId,
  captureUrl,
  onDeleted,
}: {
  sandboxId: string;
  requestId: string;
  captureUrl: string;
  onDeleted: (id: string) => void;
}) {
  const [detail, setDetail] = useState<RequestDetail | null>(null);
  // The body exactly as sent, read from the raw request when the detail's body is decoded, cut or binary.
  const [sentBody, setSentBody] = useState<Uint8Array | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { busy, run } = useBusyAction(setError);
  const base = requestPath(sandboxId, requestId);

  useEffect(() => {
    const controller = new AbortController();
    setDetail(null);
    setSentBody(null);
    setError(null);
    ok(
      client.GET('/sandboxes/{sandboxId}/requests/{requestId}', {
        params: { path: { sandboxId, requestId } },
        signal: controller.signal,
      }),
    )
      .then(async (d) => {
        if (controller.signal.aborted) return;
        setDetail(d);
        if (!needsRawBody(d) || d.sizeBytes > CURL_BODY_LIMIT) return;
        const res = await fetch(`/api/v1${base}/raw`, {
          credentials: 'same-origin',
          signal: controller.signal,
        });
        if (res.ok) setSentBody(rawBody(new Uint8Array(await res.arrayBuffer())));
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) setError(errorText(err));
      });
    return () => controller.abort();
  }, [base]);

  if (error !== null) return <ErrorMessage>{error}</ErrorMessage>;
  if (detail === null) return <Loading label="Loading request…" />;

  const title = `${detail.method} ${detail.path}`;
  const curlBody = needsRawBody(detail) ? sentBody : detail.body;
  const curlReady = !needsRawBody(detail) || sentBody !== null;
  const remove = () =>
    run(
      async () => {
        await client.DELETE('/sandboxes/{sandboxId}/requests/{requestId}', {
          params: { path: { sandboxId, requestId } },
        });
        onDeleted(requestId);
      },
      { closes: true },
    );

  return (
    <ItemDetail
      titleId="request-title"
      title={title}
      titleClass="req-title"
      actions={
        <>
          {curlReady ? (
            <CopyButton
              value={curlCommand(detail, captureUrl, curlBody)}
              label="as curl"
              text="Copy as curl"
            />
          ) : (
            <button type="button" disabled title="The body is too large for a command line; use Download raw">
              Copy as curl
            </button>
          )}
          <button type="button" onClick={() => downloadUrl(`/api/v1${base}/raw`, `${detail.id}.http`)}>
            Download raw
          </button>
          <button
            type="button"
            onClick={() =>
              downloadText(
                `request-${detail.id}.har`,
                JSON.stringify(harLog([detail], captureUrl), null, 2),
                'application/json',
              )
            }
          >
            Export HAR
          </button>
        </>
      }
      busy={busy}
      onDelete={remove}
      meta={
        <>
          <dt>Answered</dt>
          <dd>
            {detail.mockStatusCode} by{' '}
            {detail.mockName === null ? 'the default reply' : `rule “${detail.mockName}”`}
          </dd>
          <dt>From</dt>
          <dd>{detail.sourceIp ?? 'unknown'}</dd>
        </>
      }
      receivedAt={detail.receivedAt}
      sizeBytes={detail.sizeBytes}
    >
      <NameValueTable caption="Query" rows={detail.queryParams} empty="No query string." />
      <NameValueTable caption="Headers" rows={detail.headers} empty="No headers." />
      {detail.redactedCookies.length > 0 && (
        <p class="note">
          Removed before storing: the dashboard's session cookie ({detail.redactedCookies.join(', ')}), which
          the browser sent because cookies ignore ports. The other cookies are as sent.
        </p>
      )}
      <RequestBody detail={detail} filesBase={`/api/v1${base}/files`} />
      <RequestReply reply={detail.response} />
      <ReplayForm key={requestId} sandboxId={sandboxId} requestId={requestId} />
    </ItemDetail>
  );
}
