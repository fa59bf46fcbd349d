// The dashboard shell: session check, sign-in, header, and the view for the current route.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, errorText, onUnauthorized } from './api.ts';
import { closeAllStreams } from './live.ts';
import { navigate, parseRoute, paths, usePath } from './router.ts';
import { fetchSession, signOut, type SessionInfo } from './session.ts';
import { ErrorMessage, Loading } from './ui/Empty.tsx';
import { Link } from './ui/Link.tsx';
import { useKeyboard } from './ui/keyboard.ts';
import { useTitleCount } from './ui/titleCount.ts';
import { ConnectionsPage } from './views/oauth/ConnectionsPage.tsx';
import { ConsentPage } from './views/oauth/ConsentPage.tsx';
import { useArrivalNotifications } from './views/arrivals.tsx';
import { SandboxPage } from './views/sandbox.tsx';
import { SandboxesPage } from './views/sandboxes.tsx';
import { SignIn } from './views/signIn.tsx';
import { WebhooksPage } from './views/webhooks/WebhooksPage.tsx';

type State =
  | { kind: 'checking' }
  | { kind: 'signedOut'; ended?: boolean }
  | { kind: 'signedIn'; session: SessionInfo }
  | { kind: 'down'; message: string };

export function App() {
  const [state, setState] = useState<State>({ kind: 'checking' });

  const check = useCallback(() => {
    fetchSession()
      .then((session) => setState({ kind: 'signedIn', session }))
      .catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 401) setState({ kind: 'signedOut' });
        else setState({ kind: 'down', message: errorText(err) });
      });
  }, []);

  useEffect(check, [check]);
  useEffect(
    () =>
      onUnauthorized(() => {
        // A 401 mid-session means the key stopped working under the person (revoked, expired, or its
        // session ended elsewhere); unlike Sign out, which they chose, it needs saying on the sign-in page.
        closeAllStreams();
        setState({ kind: 'signedOut', ended: true });
      }),
    [],
  );

  if (state.kind === 'checking') return <Loading label="Checking your session…" />;
  if (state.kind === 'down') {
    return (
      <main class="page narrow">
        <h1>sandtrap</h1>
        <ErrorMessage>{state.message}</ErrorMessage>
        <button type="button" onClick={check}>
          Try again
        </button>
      </main>
    );
  }
  if (state.kind === 'signedOut') {
    // The consent page keeps its URL through sign-in, so the request is shown as soon as the session exists.
    const consent = parseRoute(location.pathname).name === 'consent';
    return (
      <SignIn
        intro={
          consent
            ? 'An app is asking to connect to this sandtrap. Sign in with an API key to see which app it is and approve or deny it.'
            : undefined
        }
        ended={state.ended === true}
        onSignedIn={(session) => setState({ kind: 'signedIn', session })}
      />
    );
  }
  return (
    <Shell
      session={state.session}
      onSignedOut={() => {
        closeAllStreams();
        setState({ kind: 'signedOut' });
      }}
    />
  );
}

function Shell({ session, onSignedOut }: { session: SessionInfo; onSignedOut: () => void }) {
  const path = usePath();
  const route = parseRoute(path);
  const [signOutError, setSignOutError] = useState<string | null>(null);
  useKeyboard(route);
  useTitleCount(route.name === 'sandbox' ? route.sandboxId : null);
  useArrivalNotifications();

  const doSignOut = async () => {
    try {
      await signOut();
      onSignedOut();
    } catch (err) {
      setSignOutError(errorText(err));
    }
  };

  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link href={paths.sandboxes()} class="brand" aria-label="sandtrap home">
          sandtrap
        </Link>
        <nav aria-label="Main">
          {/* Phones leave it to the brand, which goes to the same list: four links do not fit beside Sign out. */}
          <Link
            href={paths.sandboxes()}
            class="nav-home"
            aria-current={route.name === 'sandboxes' ? 'page' : undefined}
          >
            Sandboxes
          </Link>
          <Link href={paths.connections()} aria-current={route.name === 'connections' ? 'page' : undefined}>
            {/* Phones show "Apps"; the full name stays the link's accessible name. */}
            <span class="nav-full">Connected apps</span>
            <span class="nav-short" aria-hidden="true">
              Apps
            </span>
          </Link>
          <Link href={paths.webhooks()} aria-current={route.name === 'webhooks' ? 'page' : undefined}>
            <span class="nav-full">Webhooks</span>
            <span class="nav-short" aria-hidden="true">
              Hooks
            </span>
          </Link>
        </nav>
        <span class="key-label" title={`Signed in with key ${session.keyLabel}`}>
          {session.keyLabel}
        </span>
        <button type="button" onClick={doSignOut}>
          Sign out
        </button>
      </header>
      {signOutError && <ErrorMessage>{signOutError}</ErrorMessage>}
      <main id="main" class="page" tabIndex={-1}>
        {route.name === 'sandboxes' && <SandboxesPage />}
        {route.name === 'sandbox' && <SandboxPage route={route} />}
        {route.name === 'connections' && <ConnectionsPage />}
        {route.name === 'webhooks' && <WebhooksPage />}
        {route.name === 'consent' && <ConsentPage requestId={route.requestId} />}
        {route.name === 'notFound' && (
          <>
            <h1>Page not found</h1>
            <p>
              Nothing lives at <code>{route.path}</code>.{' '}
              <button type="button" class="link" onClick={() => navigate(paths.sandboxes())}>
                Go to the sandboxes
              </button>
            </p>
          </>
        )}
      </main>
    </>
  );
}
