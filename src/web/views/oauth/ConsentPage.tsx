// The OAuth consent page: what an MCP client asks for and where it sends the person, then Approve or Deny, each
// answered by the server with the client's redirect URI (code or access_denied) that the page then follows.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, client, errorText, ok } from '../../api.ts';
import { paths } from '../../router.ts';
import { ErrorMessage, Loading } from '../../ui/Empty.tsx';
import { Link } from '../../ui/Link.tsx';
import { fullTime } from '../../ui/time.ts';
import { documentHost } from './client.ts';
import type { AuthorizationRequestView, Decision } from './types.ts';
import './oauth.css';

type State =
  | { kind: 'loading' }
  | { kind: 'open'; view: AuthorizationRequestView }
  | { kind: 'gone' }
  | { kind: 'failed'; text: string }
  | { kind: 'leaving'; decision: Decision; host: string };

// While the page's clock says expired but the server has not said so, it asks again this often.
const RECHECK_MS = 10_000;

export function ConsentPage({ requestId }: { requestId: string }) {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [busy, setBusy] = useState<Decision | null>(null);
  const [error, setError] = useState<string | null>(null);
  const params = { path: { requestId } };

  const load = async (quiet: boolean) => {
    if (!quiet) setState({ kind: 'loading' });
    try {
      const view = await ok(client.GET('/oauth/authorizations/{requestId}', { params }));
      setState((prev) => (prev.kind === 'leaving' ? prev : { kind: 'open', view }));
    } catch (err) {
      // 400 is an id no request can have (a mangled link): as closed as an unknown one.
      if (err instanceof ApiError && (err.status === 404 || err.status === 400)) setState({ kind: 'gone' });
      else if (!quiet) setState({ kind: 'failed', text: errorText(err) });
    }
  };

  useEffect(() => {
    void load(false);
  }, [requestId]);

  const view = state.kind === 'open' ? state.view : null;
  const secondsLeft = useSecondsLeft(view?.expiresAt);
  const expired = view !== null && secondsLeft <= 0;

  // The server decides when a request has expired: at zero on this clock, ask it (and keep asking).
  useEffect(() => {
    if (!expired) return;
    void load(true);
    const timer = setInterval(() => void load(true), RECHECK_MS);
    return () => clearInterval(timer);
  }, [expired]);

  useEffect(() => {
    if (view) document.title = `Connect ${view.client.name} · sandtrap`;
  }, [view?.client.name]);

  const decide = async (decision: Decision) => {
    if (!view) return;
    setBusy(decision);
    setError(null);
    try {
      const { redirectTo } = await ok(
        client.POST('/oauth/authorizations/{requestId}', { params, body: { decision } }),
      );
      setState({ kind: 'leaving', decision, host: view.redirectHost });
      location.assign(redirectTo);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) setState({ kind: 'gone' });
      else setError(errorText(err));
    } finally {
      setBusy(null);
    }
  };

  if (state.kind === 'loading') return <Loading label="Loading the authorization request…" />;
  if (state.kind === 'gone') return <Gone />;
  if (state.kind === 'failed') {
    return (
      <div class="consent-page">
        <h1>Could not load the authorization request</h1>
        <ErrorMessage>{state.text}</ErrorMessage>
        <p class="actions">
          <button type="button" onClick={() => void load(false)}>
            Try again
          </button>
          <Link href={paths.sandboxes()}>Go to the dashboard</Link>
        </p>
      </div>
    );
  }
  if (state.kind === 'leaving') {
    return (
      <div class="consent-page">
        <h1>{state.decision === 'approve' ? 'Approved' : 'Denied'}</h1>
        <p role="status">
          Sending you back to <strong>{state.host}</strong>… If nothing happens, switch back to the app.
        </p>
      </div>
    );
  }
  return (
    <ConsentCard
      view={state.view}
      secondsLeft={secondsLeft}
      busy={busy}
      error={error}
      onDecide={(decision) => void decide(decision)}
    />
  );
}

function ConsentCard({
  view,
  secondsLeft,
  busy,
  error,
  onDecide,
}: {
  view: AuthorizationRequestView;
  secondsLeft: number;
  busy: Decision | null;
  error: string | null;
  onDecide: (decision: Decision) => void;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Focus lands on the question, not on a button, so a stray Enter decides nothing.
  useEffect(() => heading.current?.focus(), [view.id]);
  const { client, workspace } = view;
  const registered = client.kind === 'registered';

  return (
    <div class="consent-page">
      <section class="consent" aria-labelledby="consent-title">
        <p class="consent-eyebrow">Authorization request</p>
        <h1 id="consent-title" ref={heading} tabIndex={-1}>
          Allow <span class="consent-client">{client.name}</span> to use sandtrap?
        </h1>
        <p class="consent-kind">
          {registered ? (
            <>
              <span class="badge warn">self-registered</span> The app registered itself with this sandtrap, so
              its name is only its own claim. Check where it sends you.
            </>
          ) : (
            <>
              <span class="badge">metadata document</span> Identified by its metadata document at{' '}
              <strong>{documentHost(client.clientId)}</strong>.
            </>
          )}
        </p>

        <div class="consent-redirect">
          <p class="consent-label">Sends you, and the authorization code, to</p>
          <p class="redirect-host">{view.redirectHost}</p>
          <code class="redirect-uri">{view.redirectUri}</code>
        </div>

        <dl class="consent-facts">
          <div>
            <dt>Workspace</dt>
            <dd>{workspace.name}</dd>
          </div>
          <div>
            <dt>Bound to key</dt>
            <dd>
              {view.approver.keyLabel}
              <span class="hint"> (revoking this key disconnects the app)</span>
            </dd>
          </div>
          <div>
            <dt>It can</dt>
            <dd>
              Use the MCP tools of workspace <strong>{workspace.name}</strong>: create and delete sandboxes,
              read captured mail and requests.
              <span class="hint consent-scope">Scope: {view.scope}</span>
            </dd>
          </div>
        </dl>

        <p class="hint consent-expiry">
          <time dateTime={view.expiresAt} title={fullTime(view.expiresAt)}>
            {secondsLeft > 0
              ? `This request expires in ${clock(secondsLeft)}.`
              : 'This request has expired: start again from the app.'}
          </time>
        </p>
        {error && <ErrorMessage>{error}</ErrorMessage>}
        <div class="actions consent-actions">
          <button type="button" disabled={busy !== null} onClick={() => onDecide('deny')}>
            {busy === 'deny' ? 'Denying…' : 'Deny'}
          </button>
          <button
            type="button"
            class="primary"
            disabled={busy !== null || secondsLeft <= 0}
            onClick={() => onDecide('approve')}
          >
            {busy === 'approve' ? 'Approving…' : 'Approve'}
          </button>
        </div>
      </section>
    </div>
  );
}

function Gone() {
  useEffect(() => {
    document.title = 'Authorization request closed · sandtrap';
  }, []);
  return (
    <div class="consent-page">
      <h1>This authorization request is closed</h1>
      <p>
        No open request has this address: it expired (a request stays open for 10 minutes), someone already
        approved or denied it, or the link is wrong. Start the connection again from the app.
      </p>
      <p>
        <Link href={paths.sandboxes()}>Go to the dashboard</Link>
      </p>
    </div>
  );
}

/** Whole seconds until `iso`, ticking each second; Infinity while there is none. */
function useSecondsLeft(iso: string | undefined): number {
  const left = () => (iso === undefined ? Infinity : Math.ceil((Date.parse(iso) - Date.now()) / 1000));
  const [seconds, setSeconds] = useState(left);
  useEffect(() => {
    setSeconds(left());
    if (iso === undefined) return;
    const timer = setInterval(() => setSeconds(left()), 1000);
    return () => clearInterval(timer);
  }, [iso]);
  return seconds;
}

function clock(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return `${m}:${String(s).padStart(2, '0')}`;
}
