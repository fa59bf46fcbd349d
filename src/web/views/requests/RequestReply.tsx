// The reply sandtrap sent to a captured request (status, headers and body as they went on the wire), shown
// under the request so the person sees what the app received.
import { bytes } from '../../ui/time.ts';
import { NameValueTable } from '../shared/NameValueTable.tsx';
import { base64Bytes, hexDump } from './hex.ts';
import type { RequestDetail } from './types.ts';

/** What a body view needs of an answer: the reply sandtrap sent, or the one a replay target sent back. */
type Reply = Pick<
  NonNullable<RequestDetail['response']>,
  'body' | 'bodyEncoding' | 'bodyTruncated' | 'headers'
>;

export function RequestReply({ reply }: { reply: RequestDetail['response'] }) {
  return (
    <section class="req-body" aria-labelledby="reply-heading">
      <h3 id="reply-heading">Reply sent</h3>
      {reply === null ? (
        <p class="note">Not recorded: this request was captured before sandtrap kept the replies it sent.</p>
      ) : (
        <>
          <p>
            <span class={`status s${String(reply.statusCode).charAt(0)}`}>{reply.statusCode}</span>
          </p>
          {reply.note !== null && <p class="note">{reply.note}</p>}
          <NameValueTable caption="Reply headers" rows={reply.headers} empty="No headers." />
          {reply.bodyTruncated && (
            <p class="note">
              The first {bytes(64 * 1024)} of {bytes(reply.sizeBytes)} sent are kept.
            </p>
          )}
          <ReplyBody reply={reply} />
        </>
      )}
    </section>
  );
}

export function ReplyBody({ reply }: { reply: Reply }) {
  if (reply.body === null) return <p class="note">No body.</p>;
  if (reply.bodyEncoding === 'base64') {
    return (
      <pre class="source hex" tabIndex={0}>
        {hexDump(base64Bytes(reply.body))}
      </pre>
    );
  }
  return (
    <pre class="source" tabIndex={0}>
      {pretty(reply)}
    </pre>
  );
}

/** JSON replies indented for reading; anything else (or JSON that does not parse) exactly as sent. */
function pretty(reply: Reply): string {
  const type = reply.headers.find((h) => h.name.toLowerCase() === 'content-type')?.value ?? '';
  if (reply.bodyTruncated || !/json/i.test(type)) return reply.body ?? '';
  try {
    return JSON.stringify(JSON.parse(reply.body ?? ''), null, 2);
  } catch {
    return reply.body ?? '';
  }
}
