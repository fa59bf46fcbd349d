// Which rule answers a given method and path, rendered by the server as the capture host would; uses the edited list.
import { useState } from 'preact/hooks';
import { ApiError, client, errorText, ok, type Schemas } from '../../api.ts';
import { mapApiErrors, METHODS, toInputs, type FieldErrors, type RuleDraft } from './drafts.ts';

/** The body of POST /sandboxes/{id}/mocks/preview. */
type MockPreview = Schemas['MockPreview'];

export function PreviewPanel({
  sandboxId,
  drafts,
  dirty,
  onErrors,
}: {
  sandboxId: string;
  drafts: RuleDraft[];
  dirty: boolean;
  onErrors: (errors: FieldErrors) => void;
}) {
  const [method, setMethod] = useState('GET');
  const [path, setPath] = useState('/');
  const [result, setResult] = useState<MockPreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const preview = async (event: Event) => {
    event.preventDefault();
    const inputs = toInputs(drafts);
    if ('errors' in inputs) {
      onErrors(inputs.errors);
      setResult(null);
      setError('Fix the rules marked above first.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const target = path.trim().startsWith('/') ? path.trim() : `/${path.trim()}`;
      setResult(
        await ok(
          client.POST('/sandboxes/{id}/mocks/preview', {
            params: { path: { id: sandboxId } },
            body: {
              method,
              path: target,
              // Unsaved edits are what the person is looking at, so they are what the preview judges.
              ...(dirty ? { mocks: inputs.mocks } : {}),
            },
          }),
        ),
      );
    } catch (err) {
      setResult(null);
      if (
        err instanceof ApiError &&
        err.status === 400 &&
        err.problem.errors?.some((e) => e.path.startsWith('mocks'))
      ) {
        onErrors(mapApiErrors(err.problem.errors, errorText(err)));
        setError('Fix the rules marked above first.');
      } else setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="panel rules-preview" aria-labelledby="preview-heading">
      <h2 id="preview-heading">Preview</h2>
      <form class="preview" onSubmit={preview}>
        <div class="field">
          <label for="preview-method">
            <span class="visually-hidden">Preview </span>Method
          </label>
          <select id="preview-method" value={method} onChange={(e) => setMethod(e.currentTarget.value)}>
            {METHODS.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="preview-path">
            <span class="visually-hidden">Preview </span>Path
          </label>
          <input
            id="preview-path"
            value={path}
            placeholder="/orders/42?expand=items"
            spellcheck={false}
            onInput={(e) => setPath(e.currentTarget.value)}
          />
        </div>
        <button type="submit" disabled={busy}>
          Preview
        </button>
        <div role="status" class="preview-result">
          {error && <p class="error">{error}</p>}
          {result && <PreviewResult result={result} edited={dirty} />}
        </div>
      </form>
    </section>
  );
}

function PreviewResult({ result, edited }: { result: MockPreview; edited: boolean }) {
  const who =
    result.index === null
      ? 'No rule matches: the default reply answers.'
      : `Rule ${result.index + 1}${result.rule?.name ? ` "${result.rule.name}"` : ''}${result.rule?.isFallback ? ' (fallback)' : ''} answers${edited ? ' (unsaved rules)' : ''}.`;
  return (
    <div class="preview-answer">
      <p>
        <strong>{who}</strong>
      </p>
      <pre class="code" tabIndex={0}>
        <code>
          {`HTTP ${result.statusCode}\n`}
          {result.headers.map((h) => `${h.name}: ${h.value}\n`).join('')}
          {result.body ? `\n${result.body}` : ''}
        </code>
      </pre>
    </div>
  );
}
