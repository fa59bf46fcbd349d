// Connected apps: the workspace's OAuth grants (which MCP client, bound to which key, when last used), each of
// which can be disconnected, ending its tokens at once.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, client, errorText, ok } from '../../api.ts';
import { ConfirmDialog } from '../../ui/ConfirmDialog.tsx';
import { Empty, ErrorMessage, Loading } from '../../ui/Empty.tsx';
import { Time } from '../../ui/Time.tsx';
import { clientKindLabel, documentHost } from './client.ts';
import type { Grant } from './types.ts';
import './oauth.css';

export function ConnectionsPage() {
  const [grants, setGrants] = useState<Grant[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<Grant | null>(null);
  const [busy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);

  const load = async () => {
    try {
      setGrants((await ok(client.GET('/oauth/grants'))).items);
      setError(null);
    } catch (err) {
      setError(errorText(err));
    }
  };

  useEffect(() => {
    document.title = 'Connected apps · sandtrap';
    void load();
  }, []);

  const disconnect = async (grant: Grant) => {
    setBusy(true);
    setNote(null);
    setError(null);
    try {
      await client.DELETE('/oauth/grants/{grantId}', { params: { path: { grantId: grant.id } } });
      setNote(`${grant.client.name} is disconnected.`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404)
        setNote(`${grant.client.name} was already disconnected.`);
      else setError(errorText(err));
    } finally {
      setBusy(false);
      setConfirming(null);
    }
    await load();
    // Its button is gone with it: focus goes back to the top of the list rather than to the page's start.
    heading.current?.focus();
  };

  return (
    <>
      <div class="page-head">
        <h1 ref={heading} tabIndex={-1}>
          Connected apps
        </h1>
      </div>
      <p class="hint connections-intro">
        MCP clients connected to this workspace through OAuth. Each is bound to the key that approved it:
        disconnecting it, or revoking that key, ends its access at once.
      </p>
      <p role="status" class="ok note">
        {note}
      </p>
      {error && <ErrorMessage>{error}</ErrorMessage>}
      {grants === null ? (
        !error && <Loading label="Loading connected apps…" />
      ) : grants.length === 0 ? (
        <NoConnections />
      ) : (
        <ul class="cards grants" aria-label="Connected apps">
          {grants.map((grant) => (
            <GrantCard key={grant.id} grant={grant} onDisconnect={() => setConfirming(grant)} />
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={confirming !== null}
        title={`Disconnect ${confirming?.client.name ?? 'this app'}?`}
        confirmLabel="Disconnect"
        danger
        busy={busy}
        onConfirm={() => confirming && void disconnect(confirming)}
        onCancel={() => setConfirming(null)}
      >
        <p>
          Its access and refresh tokens stop working now. To use sandtrap again the app has to ask, and
          someone has to approve it, again.
        </p>
      </ConfirmDialog>
    </>
  );
}

function GrantCard({ grant, onDisconnect }: { grant: Grant; onDisconnect: () => void }) {
  const { client } = grant;
  const titleId = `grant-${grant.id}`;
  return (
    <li class="card grant">
      <div class="grant-head">
        <h2 id={titleId} class="grant-name">
          {client.name}
        </h2>
        <span
          class={client.kind === 'registered' ? 'badge warn' : 'badge'}
          title={
            client.kind === 'metadata-document'
              ? `Identified by its metadata document at ${documentHost(client.clientId)}`
              : 'Registered itself with this sandtrap'
          }
        >
          {clientKindLabel(client.kind)}
        </span>
      </div>
      <dl class="grant-facts">
        {client.kind === 'metadata-document' && (
          <div>
            <dt>Document at</dt>
            <dd>{documentHost(client.clientId)}</dd>
          </div>
        )}
        <div>
          <dt>Sends to</dt>
          <dd>
            <code>{grant.redirectHost}</code>
          </dd>
        </div>
        <div>
          <dt>Key</dt>
          <dd>{grant.keyLabel}</dd>
        </div>
        <div>
          <dt>Connected</dt>
          <dd>
            <Time iso={grant.createdAt} />
          </dd>
        </div>
        <div>
          <dt>Last used</dt>
          <dd>{grant.lastUsedAt === null ? 'never' : <Time iso={grant.lastUsedAt} />}</dd>
        </div>
      </dl>
      <div class="actions">
        <button type="button" class="danger" onClick={onDisconnect}>
          Disconnect<span class="visually-hidden"> {client.name}</span>
        </button>
      </div>
    </li>
  );
}

function NoConnections() {
  const mcpUrl = `${location.origin}/mcp`;
  return (
    <Empty title="No connected apps yet.">
      <p>
        Hosted MCP clients (claude.ai, ChatGPT, Claude Desktop connectors) connect through OAuth: add{' '}
        <code>{mcpUrl}</code> as a custom connector, sign in here when the app sends you to this dashboard,
        and approve. The app is then listed here until you disconnect it.
      </p>
      <p>
        The README's section <q>Connecting hosted MCP clients (OAuth)</q> goes through it step by step. IDE
        clients that send an API key in a header (Claude Code, Cursor, VS Code) are not listed here.
      </p>
    </Empty>
  );
}
