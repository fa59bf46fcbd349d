// The Checks tab of a message: HTML compatibility by feature, the spam-style score with each rule explained,
// and the link check, which fetches the message's links only when the button is pressed.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { client, errorText, ok, type Schemas } from '../../api.ts';
import { ErrorMessage, Loading } from '../../ui/Empty.tsx';
import './checks.css';

type HtmlReport = Schemas['HtmlCheckReport'];
type SpamReport = Schemas['SpamCheckReport'];
type LinkReport = Schemas['LinkCheckReport'];

export function ChecksTab({ sandboxId, messageId }: { sandboxId: string; messageId: string }) {
  const params = { path: { sandboxId, messageId } };
  const [html, setHtml] = useState<HtmlReport | null>(null);
  const [spam, setSpam] = useState<SpamReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    setHtml(null);
    setSpam(null);
    setError(null);
    Promise.all([
      ok(client.GET('/sandboxes/{sandboxId}/messages/{messageId}/checks/spam', { params })),
      ok(client.GET('/sandboxes/{sandboxId}/messages/{messageId}/checks/html', { params })),
    ])
      .then(([s, h]) => {
        if (!current) return;
        setSpam(s);
        setHtml(h);
      })
      .catch((err: unknown) => current && setError(errorText(err)));
    return () => {
      current = false;
    };
  }, [sandboxId, messageId]);

  if (error !== null) return <ErrorMessage>{error}</ErrorMessage>;
  if (html === null || spam === null) return <Loading label="Running checks…" />;
  return (
    <div class="checks">
      <SpamSection report={spam} />
      <HtmlSection report={html} />
      <LinkSection sandboxId={sandboxId} messageId={messageId} />
    </div>
  );
}

function SpamSection({ report }: { report: SpamReport }) {
  return (
    <section aria-labelledby="check-spam">
      <h3 id="check-spam">
        Spam score{' '}
        <span class={`score ${report.isSpam ? 'bad' : 'good'}`}>
          {report.score} / {report.threshold}
        </span>
      </h3>
      <p class="note">
        Offline rules, read as SpamAssassin scores: {report.threshold} or more would likely be filtered.
      </p>
      {report.hits.length === 0 ? (
        <p>No rule fired.</p>
      ) : (
        <table class="kv checks-table spam-table">
          <caption class="visually-hidden">Spam rules that fired</caption>
          <thead>
            <tr>
              <th scope="col">Score</th>
              <th scope="col">Rule</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {report.hits.map((h) => (
              <tr key={h.id}>
                <td class="num">{h.score.toFixed(1)}</td>
                <td class="rule-id">{h.id}</td>
                <td class="prose">{h.explanation}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function HtmlSection({ report }: { report: HtmlReport }) {
  if (!report.hasHtml) {
    return (
      <section aria-labelledby="check-html">
        <h3 id="check-html">HTML compatibility</h3>
        <p class="note">This message has no HTML part.</p>
      </section>
    );
  }
  const t = report.total;
  return (
    <section aria-labelledby="check-html">
      <h3 id="check-html">
        HTML compatibility <span class="score">{t.supported}% supported</span>
      </h3>
      <p class="note">
        {t.features} feature{t.features === 1 ? '' : 's'} not supported everywhere, across{' '}
        {report.clientsChecked} clients: {t.partial}% partial, {t.unsupported}% unsupported. Data:
        caniemail.com, {report.dataDate}.
      </p>
      <ul class="features">
        {report.features.map((f) => {
          const none = f.clients.filter((c) => c.support === 'none');
          const partial = f.clients.filter((c) => c.support === 'partial');
          return (
            <li key={f.title}>
              <details>
                <summary>
                  <span class="feature-title">{f.title}</span>
                  <span class="feature-score">
                    {f.score.supported}% · {none.length} unsupported · {partial.length} partial
                  </span>
                  {f.positions.length > 0 && (
                    <span class="feature-at">
                      line {f.positions.map((p) => `${p.line}:${p.column}`).join(', ')}
                    </span>
                  )}
                </summary>
                {none.length > 0 && <ClientList label="Not supported" clients={none} />}
                {partial.length > 0 && <ClientList label="Partly supported" clients={partial} />}
                {f.url !== null && (
                  <a href={f.url} target="_blank" rel="noopener noreferrer">
                    {f.title} on caniemail.com
                  </a>
                )}
              </details>
            </li>
          );
        })}
      </ul>
      {report.clientsSkipped.length > 0 && (
        <p class="note">Not judged (no data for a feature used): {report.clientsSkipped.join(', ')}.</p>
      )}
    </section>
  );
}

function ClientList({
  label,
  clients,
}: {
  label: string;
  clients: HtmlReport['features'][number]['clients'];
}) {
  return (
    <div class="client-list">
      <strong>{label}:</strong>
      <ul>
        {clients.map((c) => (
          <li key={c.client}>
            {c.name}
            {c.versions.length > 0 && <span class="muted"> ({c.versions.join(', ')})</span>}
            {c.notes.length > 0 && (
              <span class="muted">
                {' — '}
                <NoteText text={c.notes.join(' ')} />
              </span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

// caniemail writes its notes in Markdown: `code` spans and [text](url) links, a few to its own pages by path.
const NOTE_MARKUP = /`([^`]+)`|\[([^\]]+)\]\((https?:\/\/[^\s)]+|\/[^\s)]*)\)/g;

/** A caniemail note with its code spans as code and its links as links; anything else stays text. */
function NoteText({ text }: { text: string }) {
  const parts: ComponentChildren[] = [];
  let at = 0;
  for (const m of text.matchAll(NOTE_MARKUP)) {
    parts.push(text.slice(at, m.index));
    const [, code, label, href] = m;
    if (code !== undefined) parts.push(<code key={m.index}>{code}</code>);
    else {
      const url = href?.startsWith('/') ? `https://www.caniemail.com${href}` : href;
      parts.push(
        <a key={m.index} href={url} target="_blank" rel="noopener noreferrer">
          {label}
        </a>,
      );
    }
    at = m.index + m[0].length;
  }
  parts.push(text.slice(at));
  return <>{parts}</>;
}

const LINK_LABELS: Record<string, string> = {
  ok: 'OK',
  broken: 'Broken',
  refused: 'Refused',
  unreachable: 'Unreachable',
  skipped: 'Not checked',
};

function LinkSection({ sandboxId, messageId }: { sandboxId: string; messageId: string }) {
  const [report, setReport] = useState<LinkReport | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setReport(null);
    setError(null);
  }, [sandboxId, messageId]);
  const run = () => {
    setBusy(true);
    setError(null);
    const params = { path: { sandboxId, messageId } };
    ok(client.POST('/sandboxes/{sandboxId}/messages/{messageId}/checks/links', { params }))
      .then(setReport)
      .catch((err: unknown) => setError(errorText(err)))
      .finally(() => setBusy(false));
  };
  return (
    <section aria-labelledby="check-links">
      <h3 id="check-links">
        Link check{' '}
        {report !== null && (
          <span class={`score ${report.errors > 0 ? 'bad' : 'good'}`}>
            {report.errors} of {report.checked} with problems
          </span>
        )}
      </h3>
      <p class="note">
        Fetches each link from the server, under the same target rules as webhooks. Nothing is fetched until
        you press the button.
      </p>
      <p>
        <button type="button" class="primary" onClick={run} disabled={busy}>
          {busy ? 'Checking links…' : report === null ? 'Check links' : 'Check again'}
        </button>
      </p>
      {error !== null && <ErrorMessage>{error}</ErrorMessage>}
      {report !== null &&
        (report.links.length === 0 ? (
          <p>This message has no links.</p>
        ) : (
          <table class="kv checks-table">
            <caption class="visually-hidden">Link check results</caption>
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col">Link</th>
              </tr>
            </thead>
            <tbody>
              {report.links.map((l, i) => (
                <tr key={i}>
                  <td>
                    <span class={`link-status status-${l.status}`}>
                      {LINK_LABELS[l.status] ?? l.status}
                      {l.statusCode !== null && ` ${l.statusCode}`}
                    </span>
                  </td>
                  <td>
                    {l.text !== '' && l.text !== l.url && <div class="prose">{l.text}</div>}
                    <div>{l.url}</div>
                    {l.redirects.map((r, j) => (
                      <div key={j} class="muted">
                        {r.statusCode} → {j + 1 < l.redirects.length ? l.redirects[j + 1]?.url : l.finalUrl}
                      </div>
                    ))}
                    {l.reason !== null && <div class="prose reason">{l.reason}</div>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </section>
  );
}
