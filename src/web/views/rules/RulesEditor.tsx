// The Rules tab: the sandbox's ordered mock rules as a compact table, edited locally (drag or keys to reorder),
// validated by the API, previewed beside the table and saved; leaving with unsaved edits asks first.
import type { TargetedPointerEvent } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, client, errorText, ok } from '../../api.ts';
import { ErrorMessage } from '../../ui/Empty.tsx';
import { useLeaveGuard } from '../../ui/LeaveGuard.tsx';
import { useSandboxContext } from '../sandboxContext.ts';
import { emptyDraft, mapApiErrors, toDraft, toInputs, type FieldErrors, type RuleDraft } from './drafts.ts';
import { PreviewPanel } from './PreviewPanel.tsx';
import { detailHasError, ruleFieldId, RuleRow } from './RuleRow.tsx';
import './rules.css';

const NO_ERRORS: FieldErrors = { fields: new Map(), general: [] };
// How close to the window's top or bottom edge a drag scrolls the page, and by how much per pointer move.
const DRAG_EDGE_PX = 48;
const DRAG_SCROLL_PX = 16;

function ruleLabel(draft: RuleDraft): string {
  return draft.name.trim() ? `“${draft.name.trim()}”` : draft.pattern.trim() || 'The rule';
}

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
  const [open, setOpen] = useState<ReadonlySet<string>>(() => new Set());
  const [dragKey, setDragKey] = useState<string | null>(null);
  const firstError = useRef(false);
  // The control to focus once a move or an added rule has rendered (moving a node drops its focus).
  const focusAfter = useRef<{ id: string; fallback: string } | null>(null);
  const list = useRef<HTMLOListElement>(null);

  const leaveDialog = useLeaveGuard(
    dirty,
    'The rules have edits that are not saved. Leaving now discards them; Cancel keeps you here to save.',
  );

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

  useEffect(() => {
    const target = focusAfter.current;
    if (!target) return;
    focusAfter.current = null;
    const element = document.getElementById(target.id) as HTMLButtonElement | null;
    (element && !element.disabled ? element : document.getElementById(target.fallback))?.focus();
  }, [drafts]);

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
      setBaseline(JSON.stringify(updated.mocks));
      // The saved list comes back in the order sent: rows keep their keys, so open rows stay open.
      setDrafts(
        updated.mocks.map((rule, i) => {
          const draft = toDraft(rule);
          return drafts[i] ? { ...draft, key: drafts[i].key } : draft;
        }),
      );
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

  const announceMove = (draft: RuleDraft, to: number, count: number) =>
    setStatus(`${ruleLabel(draft)} moved to position ${to + 1} of ${count}. Unsaved changes.`);

  const move = (index: number, step: -1 | 1, focusId: string) => {
    const next = [...drafts];
    const [rule] = next.splice(index, 1);
    next.splice(index + step, 0, rule!);
    focusAfter.current = { id: focusId, fallback: ruleFieldId(rule!, 'handle') };
    update(next);
    // Errors name positions, which just changed.
    setErrors(NO_ERRORS);
    announceMove(rule!, index + step, next.length);
  };

  // Pointer drag on a row's handle: the row moves as the pointer passes the middle of its neighbours. Window
  // listeners, not pointer capture, because moving the row in the DOM would release a capture.
  const startDrag = (key: string, event: TargetedPointerEvent<HTMLButtonElement>) => {
    if (event.button !== 0 || !event.isPrimary) return;
    event.preventDefault();
    event.currentTarget.focus();
    const from = drafts.findIndex((d) => d.key === key);
    let to = from;
    setDragKey(key);
    const onPointerMove = (moveEvent: PointerEvent) => {
      const items = [...(list.current?.children ?? [])] as HTMLElement[];
      const others = items.filter((item) => item.dataset.ruleKey !== key);
      to = others.filter((item) => {
        const box = item.getBoundingClientRect();
        return (box.top + box.bottom) / 2 < moveEvent.clientY;
      }).length;
      const target = to;
      setDrafts((current) => {
        const at = current.findIndex((d) => d.key === key);
        if (at === -1 || at === target) return current;
        const next = [...current];
        const [rule] = next.splice(at, 1);
        next.splice(target, 0, rule!);
        return next;
      });
      if (moveEvent.clientY < DRAG_EDGE_PX) window.scrollBy(0, -DRAG_SCROLL_PX);
      else if (moveEvent.clientY > window.innerHeight - DRAG_EDGE_PX) window.scrollBy(0, DRAG_SCROLL_PX);
    };
    const onEnd = () => {
      window.removeEventListener('pointermove', onPointerMove);
      window.removeEventListener('pointerup', onEnd);
      window.removeEventListener('pointercancel', onEnd);
      setDragKey(null);
      if (to === from) return;
      setDirty(true);
      setErrors(NO_ERRORS);
      announceMove(drafts[from]!, to, drafts.length);
    };
    window.addEventListener('pointermove', onPointerMove);
    window.addEventListener('pointerup', onEnd);
    window.addEventListener('pointercancel', onEnd);
  };

  const toggle = (key: string) => {
    const next = new Set(open);
    if (!next.delete(key)) next.add(key);
    setOpen(next);
  };

  const add = () => {
    const draft = emptyDraft();
    setOpen(new Set(open).add(draft.key));
    focusAfter.current = { id: ruleFieldId(draft, 'method'), fallback: ruleFieldId(draft, 'handle') };
    update([...drafts, draft]);
  };

  return (
    <div class="rules-editor">
      <p class="hint">
        Requests to <code>{sandbox.captureUrl}</code> are answered by the first rule whose method and pattern
        match, else by the fallback rule, else with <code>200 {'{}'}</code>. Bodies and header values may use
        templates such as <code>{'{{uuid}}'}</code>, <code>{'{{path.id}}'}</code> or{' '}
        <code>{'{{body.name|json}}'}</code>.
      </p>
      <div class="rules-layout">
        <form
          class="rules-form"
          onSubmit={(event) => {
            event.preventDefault();
            void save();
          }}
          aria-label="Mock rules"
        >
          <div class={`rules-table${dragKey ? ' is-dragging' : ''}`}>
            {drafts.length > 0 && (
              // Each control has its own label; these headings are for the eye only.
              <div class="rules-head" aria-hidden="true">
                <span />
                <span>Method</span>
                <span>Pattern</span>
                <span>Status</span>
                <span>Name</span>
                <span>Details</span>
              </div>
            )}
            <ol class="rules" ref={list}>
              {drafts.map((draft, index) => (
                <RuleRow
                  key={draft.key}
                  draft={draft}
                  index={index}
                  count={drafts.length}
                  errors={errors}
                  open={open.has(draft.key) || detailHasError(errors, index)}
                  dragging={dragKey === draft.key}
                  onToggle={() => toggle(draft.key)}
                  onChange={(changed) => update(drafts.map((d) => (d.key === changed.key ? changed : d)))}
                  onRemove={() => {
                    update(drafts.filter((d) => d.key !== draft.key));
                    setErrors(NO_ERRORS);
                  }}
                  onMove={(step, focusId) => move(index, step, focusId)}
                  onDragStart={(event) => startDrag(draft.key, event)}
                />
              ))}
            </ol>
            {drafts.length === 0 && (
              <p class="empty">No rules: every request is answered 200 with an empty JSON object.</p>
            )}
          </div>
          <p class="visually-hidden" id="rules-reorder-hint">
            Drag to reorder, or press Arrow Up or Arrow Down here (Alt+Arrow Up or Down from any field of the
            rule).
          </p>
          {errors.general.map((message) => (
            <ErrorMessage key={message}>{message}</ErrorMessage>
          ))}
          <div class="rules-bar">
            <button type="button" onClick={add}>
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
        <PreviewPanel sandboxId={sandbox.id} drafts={drafts} dirty={dirty} onErrors={showErrors} />
      </div>
      {leaveDialog}
    </div>
  );
}
