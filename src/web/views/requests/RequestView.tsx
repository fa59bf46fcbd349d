// One captured request: what answered it, its query and headers as sent, its body, and curl/raw/HAR exports.
import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../../api.ts';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { ErrorMessage, Loading } from '../../ui/Empty.tsx';
import { bytes, fullTime } from '../../ui/time.ts';
import { NameValueTable } from './NameValueTable.tsx';
import { RequestBody } from './RequestBody.tsx';
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
  const [busy, setBusy] = useState(false);
  const base = requestPath(sandboxId, requestId);

  useEffect(() => {
    const controller = new AbortController();
    setDetail(null);
    setSentBody(null);
    setError(null);
    api<RequestDetail>('GET', base)
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
  const remove = async () => {
    setBusy(true);
    try {
      await api('DELETE', base);
      onDeleted(requestId);
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };

  return (
    <article class="detail" aria-labelledby="request-title">
      <header class="detail-head">
        <h2 id="request-title" class="req-title">
          {title}
        </h2>
        <div class="detail-actions">
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
          <button type="button" class="danger" disabled={busy} onClick={remove}>
            Delete
          </button>
        </div>
      </header>
      <dl class="meta">
        <dt>Answered</dt>
        <dd>
          {detail.mockStatusCode} by{' '}
          {detail.mockName === null ? 'the default reply' : `rule “${detail.mockName}”`}
        </dd>
        <dt>From</dt>
        <dd>{detail.sourceIp ?? 'unknown'}</dd>
        <dt>Received</dt>
        <dd>
          <time dateTime={detail.receivedAt}>{fullTime(detail.receivedAt)}</time> · {bytes(detail.sizeBytes)}
        </dd>
      </dl>
      <NameValueTable caption="Query" rows={detail.queryParams} empty="No query string." />
      <NameValueTable caption="Headers" rows={detail.headers} empty="No headers." />
      <RequestBody detail={detail} filesBase={`/api/v1${base}/files`} />
    </article>
  );
}
