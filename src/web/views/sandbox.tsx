// The sandbox page: its name, live state and the Mail, Requests, Rules and Setup tabs.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, client, errorText, ok, type Sandbox } from '../api.ts';
import { useLive } from '../live.ts';
import { navigate, paths, type Route } from '../router.ts';
import { ErrorMessage, Loading } from '../ui/Empty.tsx';
import { Link } from '../ui/Link.tsx';
import { LiveDot } from '../ui/LiveDot.tsx';
import { Tabs } from '../ui/Tabs.tsx';
import { Time } from '../ui/Time.tsx';
import { ArrivalToggles, autoOpenOn, autoOpenPath } from './arrivals.tsx';
import { MailPane } from './mail/index.tsx';
import { RequestsPane } from './requests/index.tsx';
import { RulesEditor } from './rules/RulesEditor.tsx';
import { SandboxContext } from './sandboxContext.ts';
import { SetupView } from './setup/SetupView.tsx';

type SandboxRoute = Extract<Route, { name: 'sandbox' }>;

export function SandboxPage({ route }: { route: SandboxRoute }) {
  const { sandboxId } = route;
  const [sandbox, setSandbox] = useState<Sandbox | null>(null);
  const [error, setError] = useState<{ gone: boolean; text: string } | null>(null);

  const reload = useCallback(async () => {
    try {
      setSandbox(await ok(client.GET('/sandboxes/{id}', { params: { path: { id: sandboxId } } })));
      setError(null);
    } catch (err) {
      const gone = err instanceof ApiError && (err.status === 404 || err.status === 400);
      setError({
        gone,
        text: gone
          ? 'This sandbox does not exist: it was deleted, it expired, or the link is wrong.'
          : errorText(err),
      });
    }
  }, [sandboxId]);

  useEffect(() => {
    setSandbox(null);
    setError(null);
    void reload();
  }, [reload]);

  const live = useLive(sandboxId, (event) => {
    // The live view of a sandbox leaves out the SMTP password, so a change is read back whole.
    if (event.event === 'sandbox.updated' || event.event === 'reset') void reload();
    else if (event.event === 'message.received' || event.event === 'request.received') {
      // Auto-open follows the tab in view, so a request arriving never pulls the person off their mail.
      const open = autoOpenOn(sandboxId) ? autoOpenPath(event, route.tab) : null;
      if (open !== null) navigate(open);
    } else if (event.event === 'sandbox.deleted') {
      setError({
        gone: true,
        text: 'This sandbox was just deleted (or it expired), with everything it captured.',
      });
    }
  });

  if (error && (error.gone || !sandbox)) {
    return (
      <>
        <h1>{error.gone ? 'Sandbox not found' : 'Could not load the sandbox'}</h1>
        <ErrorMessage>{error.text}</ErrorMessage>
        <p>
          {error.gone ? null : (
            <>
              <button type="button" onClick={() => void reload()}>
                Try again
              </button>{' '}
            </>
          )}
          <Link href={paths.sandboxes()}>Back to the sandboxes</Link>
        </p>
      </>
    );
  }
  if (!sandbox) return <Loading label="Loading the sandbox…" />;

  const tabs = [
    { id: 'mail', label: 'Mail', href: paths.sandbox(sandboxId) },
    { id: 'requests', label: 'Requests', href: paths.requests(sandboxId) },
    { id: 'rules', label: 'Rules', href: paths.rules(sandboxId) },
    { id: 'setup', label: 'Setup', href: paths.setup(sandboxId) },
  ];

  return (
    <SandboxContext.Provider value={{ sandbox, setSandbox, reload }}>
      <div class="page-head">
        <h1>{sandbox.name}</h1>
        <LiveDot status={live} />
        {sandbox.isEphemeral && sandbox.expiresAt && (
          <span class="badge warn">
            expires <Time iso={sandbox.expiresAt} />
          </span>
        )}
        <ArrivalToggles sandboxId={sandboxId} sandboxName={sandbox.name} />
        <code class="muted address" title="Any address at this domain lands here">
          {sandbox.emailAddress}
        </code>
      </div>
      {error && <ErrorMessage>{error.text}</ErrorMessage>}
      <Tabs items={tabs} selected={route.tab} label="Sandbox views" />
      <div id="tabpanel" role="tabpanel" aria-labelledby={`tab-${route.tab}`} class="tabpanel">
        {route.tab === 'mail' && <MailPane sandboxId={sandboxId} messageId={route.messageId} />}
        {route.tab === 'requests' && <RequestsPane sandboxId={sandboxId} requestId={route.requestId} />}
        {route.tab === 'rules' && <RulesEditor key={sandboxId} />}
        {route.tab === 'setup' && <SetupView />}
      </div>
    </SandboxContext.Provider>
  );
}
