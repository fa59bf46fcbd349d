// The sign-in page: the API key is sent once and exchanged for an HttpOnly session cookie; it is never stored here.
import { useState } from 'preact/hooks';
import { errorText } from '../api.ts';
import { signIn, type SessionInfo } from '../session.ts';

export function SignIn({
  onSignedIn,
  intro,
  ended = false,
}: {
  onSignedIn: (session: SessionInfo) => void;
  /** Why the person is asked to sign in, when they came for something other than the dashboard itself. */
  intro?: string | undefined;
  /** The API answered 401 during a session: the key was revoked or expired, not signed out on purpose. */
  ended?: boolean;
}) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const apiKey = key.trim();
    if (!apiKey) {
      setError('Paste an API key (it starts with stk_).');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const session = await signIn(apiKey);
      setKey('');
      onSignedIn(session);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="page narrow sign-in">
      <h1>Sign in to sandtrap</h1>
      {ended && !error && (
        <p class="notice warn" role="alert" id="session-ended">
          This key was revoked or has expired; paste another.
        </p>
      )}
      {intro && <p class="sign-in-intro">{intro}</p>}
      <form onSubmit={submit} noValidate>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="apiKey"
          type="password"
          autocomplete="off"
          spellcheck={false}
          placeholder="stk_…"
          value={key}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'sign-in-error key-help' : 'key-help'}
          onInput={(event) => setKey(event.currentTarget.value)}
          autoFocus
        />
        <p id="key-help" class="hint">
          The key <code>npm start</code> printed at first start, or one from <code>sandtrap keys create</code>
          . It is exchanged for a session cookie and not kept in the browser.
        </p>
        {error && (
          <p id="sign-in-error" class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
