// One message: its code, the actions on it, and the tabs showing it every way (HTML, text, source, headers...).
import { useEffect, useState } from 'preact/hooks';
import { client, errorText, ok } from '../../api.ts';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { ErrorMessage, Loading } from '../../ui/Empty.tsx';
import { LocalTabs } from '../../ui/Tabs.tsx';
import { navigate } from '../../router.ts';
import { useBusyAction } from '../shared/busyAction.ts';
import { HtmlFrame } from './HtmlFrame.tsx';
import { HeadersTable } from './HeadersTable.tsx';
import { RawSource } from './RawSource.tsx';
import { LinksList } from './LinksList.tsx';
import { Attachments } from './Attachments.tsx';
import { ChecksTab } from './ChecksTab.tsx';
import { MessageHeader } from './MessageHeader.tsx';
import { ScrollingTabs } from './ScrollingTabs.tsx';
import { messagePath, type MessageDetail } from './types.ts';

const TABS = [
  { id: 'html', label: 'HTML' },
  { id: 'text', label: 'Text' },
  { id: 'source', label: 'HTML source' },
  { id: 'headers', label: 'Headers' },
  { id: 'raw', label: 'Raw' },
  { id: 'links', label: 'Links' },
  { id: 'attachments', label: 'Attachments' },
  { id: 'checks', label: 'Checks' },
];

/** The view asked for in the URL (`?view=headers`), so a reload or a shared link opens the same one. */
function viewInUrl(): string | undefined {
  const view = new URLSearchParams(location.search).get('view');
  return TABS.some((t) => t.id === view) ? (view as string) : undefined;
}

/** Puts the open view in the URL in place (no history entry), keeping the list's search beside it. */
function showView(view: string): void {
  const query = new URLSearchParams(location.search);
  query.set('view', view);
  navigate(`${location.pathname}?${query.toString()}`, { replace: true });
}

export function MessageView({
  sandboxId,
  messageId,
  isRead,
  onRead,
  onDeleted,
}: {
  sandboxId: string;
  messageId: string;
  /** The read flag as the list knows it (live), overriding the one loaded with the detail. */
  isRead: boolean | undefined;
  onRead: (id: string, isRead: boolean) => void;
  onDeleted: (id: string) => void;
}) {
  const [detail, setDetail] = useState<MessageDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tab, setTab] = useState('html');
  const { busy, run } = useBusyAction(setError);

  const params = { path: { sandboxId, messageId } };

  useEffect(() => {
    let current = true;
    setDetail(null);
    setError(null);
    ok(client.GET('/sandboxes/{sandboxId}/messages/{messageId}', { params }))
      .then((d) => {
        if (!current) return;
        setDetail(d);
        const asked = viewInUrl();
        setTab(
          asked !== undefined && (asked !== 'html' || d.htmlBody !== null)
            ? asked
            : d.htmlBody !== null
              ? 'html'
              : 'text',
        );
        // Opening a message is reading it.
        if (!d.isRead) {
          client
            .PATCH('/sandboxes/{sandboxId}/messages/{messageId}', { params, body: { isRead: true } })
            .then(() => current && onRead(messageId, true))
            .catch(() => undefined);
        }
      })
      .catch((err: unknown) => current && setError(errorText(err)));
    return () => {
      current = false;
    };
  }, [sandboxId, messageId]);

  // On a phone the sandbox's own header fills the first screen; opening a message brings the message up under
  // the app bar, so the mail itself is in view rather than a screen of chrome.
  useEffect(() => {
    if (detail === null || !matchMedia('(max-width: 860px)').matches) return;
    document.getElementById('message-subject')?.closest('article')?.scrollIntoView({ block: 'start' });
  }, [detail?.id]);

  if (error !== null) return <ErrorMessage>{error}</ErrorMessage>;
  if (detail === null) return <Loading label="Loading message…" />;

  const read = isRead ?? detail.isRead;
  const subject = detail.subject === null || detail.subject === '' ? '(no subject)' : detail.subject;
  const code = detail.otp.code;
  // Several likely codes and no winner: show them all rather than pick one for the reader.
  const candidates = code === null && detail.otp.status === 'ambiguous' ? detail.otp.candidates : [];

  const setRead = (value: boolean) =>
    run(async () => {
      await client.PATCH('/sandboxes/{sandboxId}/messages/{messageId}', { params, body: { isRead: value } });
      onRead(messageId, value);
    });
  const remove = () =>
    run(
      async () => {
        await client.DELETE('/sandboxes/{sandboxId}/messages/{messageId}', { params });
        onDeleted(messageId);
      },
      { closes: true },
    );

  return (
    <article class="detail message-detail" aria-labelledby="message-subject">
      <MessageHeader
        detail={detail}
        subject={subject}
        actions={
          <>
            <button type="button" disabled={busy} onClick={() => setRead(!read)}>
              {read ? 'Mark unread' : 'Mark read'}
            </button>
            <button type="button" class="danger" disabled={busy} onClick={remove}>
              Delete
            </button>
          </>
        }
      />
      {detail.parseError !== null && (
        <p class="note">
          This message could not be read whole: {detail.parseError}. The Raw tab has every byte.
        </p>
      )}
      {code !== null && (
        // Only the output is named "Code", so a search by that label finds exactly the code.
        <div class="code-box">
          <span id="code-label" class="code-label">
            Code
          </span>
          <output class="otp-code" aria-labelledby="code-label">
            {code}
          </output>
          <CopyButton value={code} label="code" />
        </div>
      )}
      {candidates.length > 0 && (
        <div class="code-box">
          <span class="code-label">Possible codes</span>
          {candidates.map((c) => (
            <span key={c.code} class="candidate">
              <span class="otp-code small">{c.code}</span>
              <CopyButton value={c.code} label={`code ${c.code}`} />
            </span>
          ))}
        </div>
      )}
      <ScrollingTabs selected={tab}>
        <LocalTabs
          items={TABS}
          selected={tab}
          onSelect={(view) => {
            setTab(view);
            showView(view);
          }}
          label="Message views"
          idPrefix="msg"
        >
          <TabContent tab={tab} detail={detail} sandboxId={sandboxId} />
        </LocalTabs>
      </ScrollingTabs>
    </article>
  );
}

function TabContent({ tab, detail, sandboxId }: { tab: string; detail: MessageDetail; sandboxId: string }) {
  const base = messagePath(sandboxId, detail.id);
  switch (tab) {
    case 'html':
      return detail.htmlBody === null ? (
        <p class="note">This message has no HTML part; see Text.</p>
      ) : (
        <HtmlFrame src={`/api/v1${base}/html`} />
      );
    case 'text':
      return detail.textBody === null ? (
        <p class="note">This message has no text part; see HTML.</p>
      ) : (
        <pre class="body-text" tabIndex={0}>
          {detail.textBody}
        </pre>
      );
    case 'source':
      return detail.htmlBody === null ? (
        <p class="note">This message has no HTML part.</p>
      ) : (
        <pre class="source" tabIndex={0}>
          {detail.htmlBody}
        </pre>
      );
    case 'headers':
      return <HeadersTable headers={detail.headers} />;
    case 'raw':
      return <RawSource url={`/api/v1${base}/raw`} size={detail.sizeBytes} />;
    case 'links':
      return <LinksList links={detail.links} />;
    case 'attachments':
      return <Attachments base={`/api/v1${base}`} attachments={detail.attachments} />;
    case 'checks':
      return <ChecksTab sandboxId={sandboxId} messageId={detail.id} />;
    default:
      return null;
  }
}
