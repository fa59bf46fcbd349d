// The Rules tab: the sandbox's ordered mock rules, edited locally, validated by the API, previewed and saved.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, client, errorText, ok } from '../../api.ts';
import { ErrorMessage } from '../../ui/Empty.tsx';
import { useSandboxContext } from '../sandboxContext.ts';
import { emptyDraft, mapApiErrors, toDraft, toInputs, type FieldErrors, type RuleDraft } from './drafts.ts';
import { PreviewPanel } from './PreviewPanel.tsx';
import { METHODS, RuleFieldset } from './RuleFieldset.tsx';

const NO_ERRORS: FieldErrors = { fields: new Map(), general: [] };

export function RulesEditor() {
  const context = useSandboxContext();
  const sandbox = context?.sandbox;
  const saved = useMemo(() => JSON.stringify(sandbox?.mocks ?? []), [sandbox]);
  const [drafts, setDrafts] = useState<RuleDraft[]>(() => (sandbox?.mocks ?? []).map(toDraft));
  const [baseline, setBaseline] = useState(saved);
  const [errors, setErrors] = useState<FieldErrors>(NO_ERRORS);
  const [status, setStatus] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [dirty, setDirty] = useState(false);
  const firstError = useRef(false);

  // Rules saved elsewhere (another tab, an agent over MCP) replace the list unless there are unsaved edits here.
  useEffect(() => {
    if (saved === baseline) return;
    setBaseline(saved);
    if (!dirty) setDrafts((sandbox?.mocks ?? []).map(toDraft));
    else setStatus('The rules were changed elsewhere; saving will replace them with this list.');
  }, [saved]);

  // Moves focus to the first field in error after a failed save, so keyboard and screen reader users land on it.
  useEffect(() => {
    if (!firstError.current) return;
    firstError.current = false;
    document.querySelector<HTMLElement>('.rules [aria-invalid="true"]')?.focus();
  }, [errors]);

  if (!context || !sandbox) return null;

  const update = (next: RuleDraft[]) => {
    setDrafts(next);
    setDirty(true);
    setStatus(null);
  };

  const showErrors = (found: FieldErrors) => {
    setErrors(found);
    firstError.current = true;
  };

  const save = async () => {
    const inputs = toInputs(drafts);
    if ('errors' in inputs) {
      showErrors(inputs.errors);
      return;
    }
    setBusy(true);
    setStatus(null);
    try {
      const updated = await ok(
        client.PUT('/sandboxes/{id}/mocks', {
          params: { path: { id: sandbox.id } },
          body: { mocks: inputs.mocks },
        }),
      );
      setErrors(NO_ERRORS);
      setDirty(false);
      const next = JSON.stringify(updated.mocks);
      setBaseline(next);
      setDrafts(updated.mocks.map(toDraft));
      context.setSandbox(updated);
      setStatus(`Saved ${updated.mocks.length} ${updated.mocks.length === 1 ? 'rule' : 'rules'}.`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 400)
        showErrors(mapApiErrors(err.problem.errors, errorText(err)));
      else setErrors({ fields: new Map(), general: [errorText(err)] });
    } finally {
      setBusy(false);
    }
  };

  const discard = () => {
    setDrafts(sandbox.mocks.map(toDraft));
    setErrors(NO_ERRORS);
    setDirty(false);
    setStatus(null);
  };

  const move = (index: number, step: -1 | 1) => {
    const next = [...drafts];
    const [rule] = next.splice(index, 1);
    next.splice(index + step, 0, rule!);
    update(next);
    // Errors name positions, which just changed.
    setErrors(NO_ERRORS);
  };

  return (
    <div class="rules-editor">
      <p class="hint">
        Requests to <code>{sandbox.captureUrl}</code> are answered by the first rule whose method and pattern
        match, else by the fallback rule, else with <code>200 {'{}'}</code>. Bodies and header values may use
        templates such as <code>{'{{uuid}}'}</code>, <code>{'{{path.id}}'}</code> or{' '}
        <code>{'{{body.name|json}}'}</code>.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
        aria-label="Mock rules"
      >
        <div class="rules">
          {drafts.length === 0 && (
            <p class="empty">No rules: every request is answered 200 with an empty JSON object.</p>
          )}
          {drafts.map((draft, index) => (
            <RuleFieldset
              key={draft.key}
              draft={draft}
              index={index}
              count={drafts.length}
              errors={errors}
              onChange={(changed) => update(drafts.map((d) => (d.key === changed.key ? changed : d)))}
              onRemove={() => {
                update(drafts.filter((d) => d.key !== draft.key));
                setErrors(NO_ERRORS);
              }}
              onMove={(step) => move(index, step)}
            />
          ))}
        </div>
        {errors.general.map((message) => (
          <ErrorMessage key={message}>{message}</ErrorMessage>
        ))}
        <div class="rules-bar">
          <button type="button" onClick={() => update([...drafts, emptyDraft()])}>
            Add rule
          </button>
          <button type="submit" class="primary" disabled={busy}>
            Save rules
          </button>
          {dirty && (
            <button type="button" onClick={discard}>
              Discard changes
            </button>
          )}
          <span role="status" class="muted">
            {busy ? 'Saving…' : (status ?? (dirty ? 'Unsaved changes' : ''))}
          </span>
        </div>
      </form>
      <datalist id="rule-methods">
        {METHODS.map((method) => (
          <option key={method} value={method} />
        ))}
      </datalist>
      <PreviewPanel sandboxId={sandbox.id} drafts={drafts} dirty={dirty} onErrors={showErrors} />
    </div>
  );
}
