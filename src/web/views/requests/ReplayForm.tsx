// Sends a captured request again, from the server, to a URL the person types, and shows the answer, or the
// target rule that refused the URL, under the form.
import { useState } from 'preact/hooks';
import { client, errorText, ok, type Schemas } from '../../api.ts';
import { ErrorMessage } from '../../ui/Empty.tsx';
import { bytes } from '../../ui/time.ts';
import { NameValueTable } from '../shared/NameValueTable.tsx';
import { ReplyBody } from './RequestReply.tsx';

type Result = Schemas['ReplayResult'];

export function ReplayForm({ sandboxId, requestId }: { sandboxId: string; requestId: string }) {
  const [url, setUrl] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Result | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setResult(null);
    setRefusal(null);
    try {
      setResult(
        await ok(
          client.POST('/sandboxes/{sandboxId}/requests/{requestId}/replay', {
            params: { path: { sandboxId, requestId } },
            body: { url: url.trim() },
          }),
        ),
      );
    } catch (err) {
      // A refused target is a 400 whose detail names the rule (private address, WEBHOOK_TARGETS, scheme).
      setRefusal(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="req-body replay" aria-labelledby="replay-heading">
      <h3 id="replay-heading">Replay</h3>
      <form class="replay-form" onSubmit={submit}>
        <label for="replay-url">Send this request again to</label>
        <div class="replay-row">
          <input
            id="replay-url"
            type="url"
            required
            placeholder="http://localhost:3000/webhooks"
            value={url}
            aria-describedby="replay-hint"
            aria-invalid={refusal ? true : undefined}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
          <button type="submit" class="primary" disabled={busy || url.trim() === ''}>
            {busy ? 'Sending…' : 'Send'}
          </button>
        </div>
        <span id="replay-hint" class="hint">
          Same method, headers and body; sent from the server, with the webhook target rules. Redirects are
          not followed.
        </span>
      </form>
      {refusal && (
        <ErrorMessage>
          <span class="replay-refused">Not sent: {refusal}</span>
        </ErrorMessage>
      )}
      <div aria-live="polite">{result && <ReplayAnswer result={result} />}</div>
    </section>
  );
}

function ReplayAnswer({ result }: { result: Result }) {
  return (
    <div class="replay-answer">
      <p>
        {result.statusCode === null ? (
          <span class="status s5">No answer</span>
        ) : (
          <span class={`status s${String(result.statusCode).charAt(0)}`}>{result.statusCode}</span>
        )}{' '}
        <span class="muted">
          {result.method} {result.url} · {result.durationMs} ms
        </span>
      </p>
      {result.error !== null && <p class="note">{result.error}</p>}
      {result.statusCode !== null && (
        <>
          <NameValueTable caption="Answer headers" rows={result.headers} empty="No headers." />
          {result.bodyTruncated && (
            <p class="note">
              The first {bytes(64 * 1024)} of {bytes(result.sizeBytes)} received are kept.
            </p>
          )}
          <ReplyBody reply={result} />
        </>
      )}
    </div>
  );
}
