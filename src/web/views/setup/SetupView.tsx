// The Setup tab: connection settings with copy buttons, app snippets, and managing the sandbox.
import { useState } from 'preact/hooks';
import { client, errorText, ok, type Sandbox } from '../../api.ts';
import { navigate, paths } from '../../router.ts';
import { ConfirmDialog } from '../../ui/ConfirmDialog.tsx';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { ErrorMessage } from '../../ui/Empty.tsx';
import { Field, FormActions } from '../../ui/Field.tsx';
import { useSandboxContext } from '../sandboxContext.ts';
import { formatTags, parseTags } from '../tags.ts';
import { SetupSnippets } from './SetupSnippets.tsx';

export function SetupView() {
  const context = useSandboxContext();
  if (!context) return null;
  const { sandbox } = context;
  // [shown label, label in the copy button's name ("Copy password"), value]
  const settings: [string, string, string][] = [
    ['SMTP host', 'SMTP host', sandbox.smtpHost],
    ['Port', 'port', String(sandbox.smtpPort)],
    ['Username', 'username', sandbox.smtpUsername],
    ['Password', 'password', sandbox.smtpPassword],
    ['Email address', 'email address', sandbox.emailAddress],
    ['Capture URL', 'capture URL', sandbox.captureUrl],
  ];
  return (
    <div class="setup">
      <section aria-labelledby="settings-heading">
        <h2 id="settings-heading">Connection settings</h2>
        <p class="hint">
          SMTP needs STARTTLS before AUTH; the development certificate is self-signed. Any address at{' '}
          <code>{sandbox.emailDomain}</code> is captured, and so is every request to the capture URL.
        </p>
        <dl class="settings">
          {settings.map(([label, copyLabel, value]) => (
            <div key={label} class="setting">
              <dt>{label}</dt>
              <dd>
                <code>{value}</code>
                <CopyButton value={value} label={copyLabel} />
              </dd>
            </div>
          ))}
        </dl>
      </section>
      <SetupSnippets sandbox={sandbox} />
      <Manage sandbox={sandbox} setSandbox={context.setSandbox} />
    </div>
  );
}

type Editing = 'none' | 'rename' | 'tags' | 'reset' | 'delete';

function Manage({ sandbox, setSandbox }: { sandbox: Sandbox; setSandbox: (s: Sandbox) => void }) {
  const [editing, setEditing] = useState<Editing>('none');
  const [name, setName] = useState(sandbox.name);
  const [tags, setTags] = useState(formatTags(sandbox.tags));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const params = { path: { id: sandbox.id } };

  const open = (what: Editing) => {
    setEditing(what);
    setError(null);
    setDone(null);
    setName(sandbox.name);
    setTags(formatTags(sandbox.tags));
  };

  const run = async (action: () => Promise<string | null>) => {
    setBusy(true);
    setError(null);
    try {
      const message = await action();
      setEditing('none');
      setDone(message);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const rename = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      setSandbox(
        await ok(client.PUT('/sandboxes/{id}', { params, body: { name: name.trim(), tags: sandbox.tags } })),
      );
      return 'Renamed.';
    });
  };

  const saveTags = (event: Event) => {
    event.preventDefault();
    const parsed = parseTags(tags);
    if ('error' in parsed) {
      setError(parsed.error);
      return;
    }
    void run(async () => {
      setSandbox(
        await ok(client.PUT('/sandboxes/{id}', { params, body: { name: sandbox.name, tags: parsed.tags } })),
      );
      return 'Tags saved.';
    });
  };

  return (
    <section aria-labelledby="manage-heading" class="manage">
      <h2 id="manage-heading">Manage</h2>
      <div class="actions">
        <button type="button" aria-expanded={editing === 'rename'} onClick={() => open('rename')}>
          Rename
        </button>
        <button type="button" aria-expanded={editing === 'tags'} onClick={() => open('tags')}>
          Edit tags
        </button>
        <button type="button" onClick={() => open('reset')}>
          Reset secret
        </button>
        <button type="button" class="danger" onClick={() => open('delete')}>
          Delete sandbox
        </button>
      </div>
      {done && (
        <p role="status" class="ok">
          {done}
        </p>
      )}
      {editing === 'rename' && (
        <form class="panel inline-form" onSubmit={rename}>
          <Field id="rename-name" label="Name" required value={name} onValue={setName} autoFocus />
          <FormActions onCancel={() => setEditing('none')} busy={busy} submitLabel="Save name" />
        </form>
      )}
      {editing === 'tags' && (
        <form class="panel inline-form" onSubmit={saveTags}>
          <Field
            id="edit-tags"
            label="Tags"
            hint="key=value, comma separated; the list replaces the current tags"
            value={tags}
            placeholder="env=staging, team=web"
            onValue={setTags}
            autoFocus
          />
          <FormActions onCancel={() => setEditing('none')} busy={busy} submitLabel="Save tags" />
        </form>
      )}
      {error && <ErrorMessage>{error}</ErrorMessage>}
      <ConfirmDialog
        open={editing === 'reset'}
        title="Reset the SMTP secret?"
        confirmLabel="Reset secret"
        busy={busy}
        onCancel={() => setEditing('none')}
        onConfirm={() =>
          void run(async () => {
            setSandbox(await ok(client.POST('/sandboxes/{id}/secret/reset', { params })));
            return 'New password issued: apps using the old one can no longer send.';
          })
        }
      >
        <p>Apps sending with the current password are refused until they use the new one.</p>
        {error && <ErrorMessage>{error}</ErrorMessage>}
      </ConfirmDialog>
      <ConfirmDialog
        open={editing === 'delete'}
        title={`Delete "${sandbox.name}"?`}
        confirmLabel="Delete"
        danger
        busy={busy}
        onCancel={() => setEditing('none')}
        onConfirm={() =>
          void run(async () => {
            await client.DELETE('/sandboxes/{id}', { params });
            navigate(paths.sandboxes());
            return null;
          })
        }
      >
        <p>Every mail and request it captured is deleted with it. This cannot be undone.</p>
        {error && <ErrorMessage>{error}</ErrorMessage>}
      </ConfirmDialog>
    </section>
  );
}
