// The Sandboxes page: search, the live list with infinite scroll, and the form creating a sandbox.
import { useEffect, useRef, useState } from 'preact/hooks';
import { client, errorText, ok, type Sandbox, type Schemas } from '../api.ts';
import { useLive } from '../live.ts';
import { navigate, paths } from '../router.ts';
import { Empty, ErrorMessage, Loading } from '../ui/Empty.tsx';
import { Field, FormActions } from '../ui/Field.tsx';
import { Link } from '../ui/Link.tsx';
import { LiveDot } from '../ui/LiveDot.tsx';
import { Time } from '../ui/Time.tsx';
import { ActivityLine, useActivity } from './activity.tsx';
import { searchFromUrl } from './shared/SearchBox.tsx';
import { parseTags } from './tags.ts';

type ListedSandbox = Schemas['LiveSandbox'] | Sandbox;
const PAGE = 50;

export function SandboxesPage() {
  // The search lives in the URL (`?search=`, as on the mail and request lists), so a reload or a shared link
  // shows the same sandboxes.
  const [q, setQ] = useState(searchFromUrl);
  const [items, setItems] = useState<ListedSandbox[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [status, setStatus] = useState<'loading' | 'idle' | 'more'>('loading');
  const [error, setError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const generation = useRef(0);
  const sentinel = useRef<HTMLDivElement>(null);

  const load = async (search: string, after: string | null) => {
    const mine = ++generation.current;
    setStatus(after ? 'more' : 'loading');
    try {
      const page = await ok(
        client.GET('/sandboxes', {
          params: { query: { q: search || undefined, limit: PAGE, cursor: after ?? undefined } },
        }),
      );
      if (mine !== generation.current) return;
      setItems((prev) =>
        after ? [...prev, ...page.items.filter((s) => !prev.some((p) => p.id === s.id))] : page.items,
      );
      setCursor(page.nextCursor);
      setError(null);
    } catch (err) {
      if (mine === generation.current) setError(errorText(err));
    } finally {
      if (mine === generation.current) setStatus('idle');
    }
  };

  // Debounced, so typing a name costs one query.
  useEffect(() => {
    const params = new URLSearchParams(location.search);
    if (q.trim() === '') params.delete('search');
    else params.set('search', q);
    const query = params.toString();
    // In place: one history entry per keystroke would make Back useless.
    history.replaceState(history.state, '', `${location.pathname}${query ? `?${query}` : ''}`);
    const timer = setTimeout(() => void load(q, null), q ? 200 : 0);
    return () => clearTimeout(timer);
  }, [q]);

  const activity = useActivity(items.map((s) => s.id));
  const live = useLive(null, (event) => {
    if (event.event === 'sandbox.created') {
      if (matches(event.data, q))
        setItems((prev) => [event.data, ...prev.filter((s) => s.id !== event.data.id)]);
    } else if (event.event === 'sandbox.updated') {
      setItems((prev) => prev.map((s) => (s.id === event.data.id ? event.data : s)));
    } else if (event.event === 'sandbox.deleted') {
      setItems((prev) => prev.filter((s) => s.id !== event.data.id));
    } else if (event.event === 'reset') {
      void load(q, null);
    }
  });

  useEffect(() => {
    const target = sentinel.current;
    if (!target || !cursor || status !== 'idle') return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) void load(q, cursor);
    });
    observer.observe(target);
    return () => observer.disconnect();
  }, [cursor, status, q]);

  return (
    <>
      <div class="page-head">
        <h1>Sandboxes</h1>
        <LiveDot status={live} />
        <button type="button" class="primary" aria-expanded={creating} onClick={() => setCreating(!creating)}>
          New sandbox
        </button>
      </div>
      {creating && (
        <NewSandboxForm
          onCancel={() => setCreating(false)}
          onCreated={(sandbox) => {
            setCreating(false);
            navigate(paths.setup(sandbox.id));
          }}
        />
      )}
      <div class="search">
        <label class="visually-hidden" for="sandbox-search">
          Search sandboxes
        </label>
        <input
          id="sandbox-search"
          type="search"
          placeholder="Search by name, id or tag  ( / )"
          value={q}
          onInput={(event) => setQ(event.currentTarget.value)}
        />
      </div>
      {error && <ErrorMessage>{error}</ErrorMessage>}
      {status === 'loading' && items.length === 0 ? (
        <Loading label="Loading sandboxes…" />
      ) : items.length === 0 && !error ? (
        q ? (
          <Empty title={`No sandbox matches "${q}".`} />
        ) : (
          <Empty title="No sandboxes yet.">
            <p>A sandbox catches the mail and HTTP requests of one app or test run. Create one to begin.</p>
          </Empty>
        )
      ) : (
        <ul class="cards" aria-label="Sandboxes" data-keylist>
          {catchAllFirst(items).map((sandbox) => (
            <SandboxCard
              key={sandbox.id}
              sandbox={sandbox}
              activity={activity.get(sandbox.id)}
              onTag={(text) => setQ(text)}
            />
          ))}
        </ul>
      )}
      {cursor && (
        <div ref={sentinel} class="more">
          <button type="button" disabled={status !== 'idle'} onClick={() => void load(q, cursor)}>
            {status === 'more' ? 'Loading…' : 'Load more'}
          </button>
        </div>
      )}
    </>
  );
}

/** The catch-all (SMTP_CATCH_ALL) leads the list: it is where an app with no credentials sends. */
function catchAllFirst(items: ListedSandbox[]): ListedSandbox[] {
  return [...items.filter((s) => s.catchAll === true), ...items.filter((s) => s.catchAll !== true)];
}

function matches(sandbox: ListedSandbox, q: string): boolean {
  if (!q) return true;
  const needle = q.toLowerCase();
  return [sandbox.name, sandbox.id, ...Object.keys(sandbox.tags), ...Object.values(sandbox.tags)].some(
    (text) => text.toLowerCase().includes(needle),
  );
}

function SandboxCard({
  sandbox,
  activity,
  onTag,
}: {
  sandbox: ListedSandbox;
  activity: Schemas['SandboxActivity'] | undefined;
  onTag: (text: string) => void;
}) {
  const tags = Object.entries(sandbox.tags);
  return (
    <li class={sandbox.catchAll === true ? 'card catch-all' : 'card'}>
      {/* The catch-all's badge shares the name's line: on a line of its own it pushed the card's activity
          line below its neighbours'. */}
      <div class="card-head">
        <Link href={paths.sandbox(sandbox.id)} class="card-title">
          {sandbox.name}
        </Link>
        {sandbox.catchAll === true && (
          <span
            class="badge"
            title="Mail sent to the inbound SMTP port, with no login, for any address outside the sandboxes' domains lands here"
          >
            catch-all: any address, no login
          </span>
        )}
      </div>
      <div class="card-meta">
        <code class="muted">{sandbox.emailAddress}</code>
        <span class="muted">
          created <Time iso={sandbox.createdAt} />
        </span>
        {sandbox.isEphemeral && sandbox.expiresAt && (
          <span class="badge warn">
            expires <Time iso={sandbox.expiresAt} />
          </span>
        )}
      </div>
      <ActivityLine activity={activity} />
      {tags.length > 0 && (
        <ul class="tags" aria-label="Tags">
          {tags.map(([key, value]) => (
            <li key={key}>
              <button
                type="button"
                class="tag"
                title={`Show sandboxes tagged ${key}${value ? `=${value}` : ''}`}
                onClick={() => onTag(value || key)}
              >
                {key}
                {value && <>={value}</>}
              </button>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

function NewSandboxForm({
  onCreated,
  onCancel,
}: {
  onCreated: (sandbox: Sandbox) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState('');
  const [ephemeral, setEphemeral] = useState(false);
  const [ttl, setTtl] = useState('60');
  const [tags, setTags] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const parsed = parseTags(tags);
    if ('error' in parsed) {
      setError(parsed.error);
      return;
    }
    const body: Schemas['CreateSandbox'] = { name: name.trim(), tags: parsed.tags };
    if (ephemeral) {
      body.ephemeral = true;
      body.ttlMinutes = Number(ttl);
    }
    setBusy(true);
    setError(null);
    try {
      onCreated(await ok(client.POST('/sandboxes', { body })));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="panel new-sandbox" onSubmit={submit} aria-label="New sandbox">
      <Field id="new-name" label="Name" required value={name} onValue={setName} autoFocus />
      <Field
        id="new-tags"
        label="Tags"
        hint="key=value, comma separated"
        placeholder="env=staging, team=web"
        value={tags}
        onValue={setTags}
      />
      <div class="field row">
        <input
          id="new-ephemeral"
          type="checkbox"
          checked={ephemeral}
          onChange={(e) => setEphemeral(e.currentTarget.checked)}
        />
        <label for="new-ephemeral">Ephemeral</label>
        <span class="hint">deleted with its captures when the TTL runs out</span>
      </div>
      <div class="field">
        <label for="new-ttl">TTL (minutes)</label>
        <input
          id="new-ttl"
          type="number"
          min={1}
          max={1440}
          value={ttl}
          aria-describedby="new-ttl-hint"
          onInput={(e) => {
            // A TTL only means something for an ephemeral sandbox, so typing one asks for it.
            setTtl(e.currentTarget.value);
            setEphemeral(true);
          }}
        />
        <span id="new-ttl-hint" class="hint">
          1 to 1440; used when Ephemeral is ticked
        </span>
      </div>
      {error && <ErrorMessage>{error}</ErrorMessage>}
      <FormActions onCancel={onCancel} busy={busy} submitLabel="Create" />
    </form>
  );
}
