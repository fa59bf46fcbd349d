// Webhooks: the workspace's outgoing webhooks (target, scope, events), a form adding one that shows its signing
// secret once, a test ping, each webhook's recent deliveries, and deleting one.
import { useEffect, useRef, useState } from 'preact/hooks';
import { client, errorText, ok, type Schemas } from '../../api.ts';
import { ConfirmDialog } from '../../ui/ConfirmDialog.tsx';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { Empty, ErrorMessage, Loading } from '../../ui/Empty.tsx';
import { Field, FormActions } from '../../ui/Field.tsx';
import { Time } from '../../ui/Time.tsx';
import './webhooks.css';

type Webhook = Schemas['Webhook'];
type EventType = Schemas['WebhookEventType'];
type Delivery = Schemas['WebhookDelivery'];

/** The live event vocabulary, the arrivals first (what most receivers want). */
const EVENT_TYPES: EventType[] = [
  'message.received',
  'request.received',
  'message.updated',
  'message.deleted',
  'messages.cleared',
  'request.updated',
  'request.deleted',
  'requests.cleared',
  'sandbox.created',
  'sandbox.updated',
  'sandbox.deleted',
];

export function WebhooksPage() {
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [sandboxes, setSandboxes] = useState<Schemas['Sandbox'][]>([]);
  const [error, setError] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [confirming, setConfirming] = useState<Webhook | null>(null);
  const [busy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);

  const load = async () => {
    try {
      setHooks((await ok(client.GET('/webhooks', { params: { query: { limit: 100 } } }))).items);
      setError(null);
    } catch (err) {
      setError(errorText(err));
    }
  };

  useEffect(() => {
    document.title = 'Webhooks · sandtrap';
    void load();
    // Names for the scope column and the form's choice; a workspace with more than 100 shows ids past those.
    void ok(client.GET('/sandboxes', { params: { query: { limit: 100 } } }))
      .then((page) => setSandboxes(page.items))
      .catch(() => undefined);
  }, []);

  const remove = async (hook: Webhook) => {
    setBusy(true);
    try {
      await client.DELETE('/webhooks/{id}', { params: { path: { id: hook.id } } });
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
      setConfirming(null);
    }
    await load();
    heading.current?.focus();
  };

  const sandboxName = (id: string | null) =>
    id === null ? 'every sandbox' : (sandboxes.find((s) => s.id === id)?.name ?? id);

  return (
    <>
      <div class="page-head">
        <h1 ref={heading} tabIndex={-1}>
          Webhooks
        </h1>
        {!adding && (
          <button type="button" class="primary" onClick={() => setAdding(true)}>
            New webhook
          </button>
        )}
      </div>
      <p class="hint webhooks-intro">
        Each event is POSTed to the target, signed per Standard Webhooks (<code>webhook-id</code>,{' '}
        <code>webhook-timestamp</code>, <code>webhook-signature</code>), and retried with backoff for 24 hours
        until it answers 2xx. Captures never wait for a target.
      </p>
      {secret && (
        <div class="panel secret-once" role="status">
          <p>
            Webhook to <code>{secret.url}</code> created. Its signing secret is shown this once:
          </p>
          <p class="secret-row">
            <code>{secret.secret}</code>
            <CopyButton value={secret.secret} label="signing secret" />
          </p>
          <button type="button" onClick={() => setSecret(null)}>
            Done
          </button>
        </div>
      )}
      {adding && (
        <NewWebhookForm
          sandboxes={sandboxes}
          onCancel={() => setAdding(false)}
          onCreated={(created) => {
            setAdding(false);
            setSecret({ url: created.url, secret: created.secret });
            void load();
          }}
        />
      )}
      {error && <ErrorMessage>{error}</ErrorMessage>}
      {hooks === null ? (
        !error && <Loading label="Loading webhooks…" />
      ) : hooks.length === 0 ? (
        !adding && (
          <Empty title="No webhooks yet.">
            <p>
              Add one to have sandtrap POST each arrival (a mail, a captured request) or sandbox change to a
              URL of yours, such as a CI job's listener or a chat hook.
            </p>
          </Empty>
        )
      ) : (
        <ul class="webhooks" aria-label="Webhooks">
          {hooks.map((hook) => (
            <WebhookCard
              key={hook.id}
              hook={hook}
              scope={sandboxName(hook.sandboxId)}
              onDelete={() => setConfirming(hook)}
            />
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={confirming !== null}
        title="Delete this webhook?"
        confirmLabel="Delete"
        danger
        busy={busy}
        onConfirm={() => confirming && void remove(confirming)}
        onCancel={() => setConfirming(null)}
      >
        <p>
          Nothing more is sent to <code>{confirming?.url}</code>, including retries still pending.
        </p>
      </ConfirmDialog>
    </>
  );
}

function NewWebhookForm({
  sandboxes,
  onCreated,
  onCancel,
}: {
  sandboxes: Schemas['Sandbox'][];
  onCreated: (hook: Schemas['CreatedWebhook']) => void;
  onCancel: () => void;
}) {
  const [url, setUrl] = useState('');
  const [sandboxId, setSandboxId] = useState('');
  const [events, setEvents] = useState<EventType[]>(['message.received', 'request.received']);
  const [description, setDescription] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body: Schemas['CreateWebhook'] = {
        url: url.trim(),
        events,
        sandboxId: sandboxId === '' ? null : sandboxId,
        description: description.trim() === '' ? null : description.trim(),
      };
      onCreated(await ok(client.POST('/webhooks', { body })));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const toggle = (type: EventType, on: boolean) =>
    setEvents((now) => (on ? [...now, type] : now.filter((t) => t !== type)));

  return (
    <form class="panel" onSubmit={submit} aria-label="New webhook">
      <Field
        id="hook-url"
        label="Target URL"
        required
        autoFocus
        placeholder="https://ci.example.com/sandtrap-hook"
        value={url}
        onValue={setUrl}
      />
      <div class="field">
        <label for="hook-sandbox">Sandbox</label>
        <select id="hook-sandbox" value={sandboxId} onChange={(e) => setSandboxId(e.currentTarget.value)}>
          <option value="">Every sandbox in the workspace</option>
          {sandboxes.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </select>
      </div>
      <fieldset class="field hook-events">
        <legend>Events</legend>
        {EVENT_TYPES.map((type) => (
          <label key={type} class="check">
            <input
              type="checkbox"
              checked={events.includes(type)}
              onChange={(e) => toggle(type, e.currentTarget.checked)}
            />
            <code>{type}</code>
          </label>
        ))}
      </fieldset>
      <Field id="hook-description" label="Description" value={description} onValue={setDescription} />
      {error && <ErrorMessage>{error}</ErrorMessage>}
      <FormActions onCancel={onCancel} busy={busy} submitLabel="Create" />
    </form>
  );
}

function WebhookCard({ hook, scope, onDelete }: { hook: Webhook; scope: string; onDelete: () => void }) {
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const titleId = `hook-${hook.id}`;
  const path = { params: { path: { id: hook.id } } };

  const showDeliveries = async () => {
    try {
      setDeliveries(
        (
          await ok(
            client.GET('/webhooks/{id}/deliveries', {
              params: { path: { id: hook.id }, query: { limit: 20 } },
            }),
          )
        ).items,
      );
      setError(null);
    } catch (err) {
      setError(errorText(err));
    }
  };

  const ping = async () => {
    try {
      const sent = await ok(client.POST('/webhooks/{id}/ping', path));
      setNote(`Ping queued as ${sent.messageId}.`);
      setError(null);
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <li class="card webhook" aria-labelledby={titleId}>
      <h2 id={titleId} class="card-title">
        <code>{hook.url}</code>
      </h2>
      {hook.description && <p class="hint">{hook.description}</p>}
      <dl class="hook-facts">
        <div>
          <dt>Sandbox</dt>
          <dd>{scope}</dd>
        </div>
        <div>
          <dt>Events</dt>
          <dd>{hook.events.join(', ')}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <Time iso={hook.createdAt} />
          </dd>
        </div>
      </dl>
      <div class="actions">
        <button type="button" onClick={() => void ping()}>
          Send ping
        </button>
        <button type="button" onClick={() => void showDeliveries()}>
          {deliveries === null ? 'Show deliveries' : 'Refresh deliveries'}
        </button>
        <button type="button" class="danger" onClick={onDelete}>
          Delete<span class="visually-hidden"> webhook to {hook.url}</span>
        </button>
      </div>
      <p role="status" class="ok note">
        {note}
      </p>
      {error && <ErrorMessage>{error}</ErrorMessage>}
      {deliveries !== null && <DeliveryTable deliveries={deliveries} />}
    </li>
  );
}

function DeliveryTable({ deliveries }: { deliveries: Delivery[] }) {
  if (deliveries.length === 0) return <p class="hint">No deliveries yet.</p>;
  return (
    <div class="table-scroll">
      <table class="deliveries">
        <caption class="visually-hidden">Recent deliveries, newest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Event</th>
            <th scope="col">Attempt</th>
            <th scope="col">Outcome</th>
            <th scope="col">Status</th>
            <th scope="col">Time</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => (
            <tr key={d.id} title={d.error ?? d.responseExcerpt ?? undefined}>
              <td>
                <Time iso={d.at} />
              </td>
              <td>
                <code>{d.eventType}</code>
              </td>
              <td>{d.attempt}</td>
              <td>
                <span
                  class={
                    d.outcome === 'delivered'
                      ? 'badge ok'
                      : d.outcome === 'failed'
                        ? 'badge danger'
                        : 'badge warn'
                  }
                >
                  {d.outcome}
                </span>
              </td>
              <td>{d.statusCode ?? '—'}</td>
              <td>{d.durationMs} ms</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
