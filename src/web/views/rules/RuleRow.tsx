// One mock rule as a compact table row ("Rule N": handle, method, pattern, status, name) that opens inline into
// its detail (headers, body, fallback, move and remove), with the API's errors beside the fields they name.
import type { ComponentChildren, TargetedKeyboardEvent, TargetedPointerEvent } from 'preact';
import { fieldKey, METHODS, type FieldErrors, type RuleDraft, type RuleField } from './drafts.ts';

/** The fields shown in the row itself; the others live in the detail. */
const ROW_FIELDS: { field: RuleField; label: string }[] = [
  { field: 'method', label: 'Method' },
  { field: 'pattern', label: 'Pattern' },
  { field: 'status', label: 'Status' },
  { field: 'name', label: 'Name' },
];

/** Controls of a row that are not fields but are focused again after a move. */
type RowControl = 'handle' | 'up' | 'down';

export function ruleFieldId(draft: RuleDraft, field: RuleField | RowControl): string {
  return `${draft.key}-${field}`;
}

/** Whether the detail must be open to show an error (the row's own fields show theirs under the row). */
export function detailHasError(errors: FieldErrors, index: number): boolean {
  return (['headers', 'body', 'isFallback'] as const).some((f) => errors.fields.has(fieldKey(index, f)));
}

export function RuleRow({
  draft,
  index,
  count,
  errors,
  open,
  dragging,
  onToggle,
  onChange,
  onRemove,
  onMove,
  onDragStart,
}: {
  draft: RuleDraft;
  index: number;
  count: number;
  errors: FieldErrors;
  open: boolean;
  dragging: boolean;
  onToggle: () => void;
  onChange: (draft: RuleDraft) => void;
  onRemove: () => void;
  /** Moves the rule one place; `focusId` is the control to focus again once it has moved. */
  onMove: (step: -1 | 1, focusId: string) => void;
  onDragStart: (event: TargetedPointerEvent<HTMLButtonElement>) => void;
}) {
  const id = (field: RuleField | RowControl) => ruleFieldId(draft, field);
  const error = (field: RuleField) => errors.fields.get(fieldKey(index, field));
  const set = (patch: Partial<RuleDraft>) => onChange({ ...draft, ...patch });
  const detailId = `${draft.key}-detail`;
  const number = index + 1;

  const aria = (name: RuleField, hint?: boolean) => {
    const message = error(name);
    const described = [hint ? `${id(name)}-hint` : '', message ? `${id(name)}-error` : '']
      .filter(Boolean)
      .join(' ');
    return {
      id: id(name),
      'aria-invalid': message ? true : undefined,
      'aria-describedby': described || undefined,
    };
  };

  const cell = (name: RuleField, label: string, control: ComponentChildren) => (
    <div class={`rule-cell rule-${name}`}>
      <label class="visually-hidden" for={id(name)}>
        {label}
      </label>
      {control}
    </div>
  );

  // Alt+Arrow moves the rule from any of its controls, so reordering never needs the mouse.
  const onKeyDown = (event: TargetedKeyboardEvent<HTMLElement>) => {
    const step = ({ ArrowUp: -1, ArrowDown: 1 } as const)[event.key as 'ArrowUp' | 'ArrowDown'];
    if (!step || !event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    const target = event.target as HTMLElement;
    if ((step === -1 && index > 0) || (step === 1 && index < count - 1))
      onMove(step, target.id || id('handle'));
  };

  const headerCount = draft.headers.split('\n').filter((line) => line.trim()).length;
  const summary = [
    headerCount > 0 ? `${headerCount} ${headerCount === 1 ? 'header' : 'headers'}` : '',
    draft.body ? 'body' : 'no body',
  ]
    .filter(Boolean)
    .join(' · ');
  const extraFields = Object.keys(draft.extra);
  const rowErrors = ROW_FIELDS.filter(({ field }) => error(field));

  return (
    <li
      class={`rule${draft.isFallback ? ' fallback' : ''}${dragging ? ' dragging' : ''}${open ? ' open' : ''}`}
      data-rule-key={draft.key}
    >
      <fieldset class="rule-row" onKeyDown={onKeyDown}>
        <legend class="visually-hidden">Rule {number}</legend>
        <button
          type="button"
          class="rule-handle"
          id={id('handle')}
          aria-label={`Reorder rule ${number}`}
          aria-describedby="rules-reorder-hint"
          aria-keyshortcuts="ArrowUp ArrowDown Alt+ArrowUp Alt+ArrowDown"
          onPointerDown={onDragStart}
          onKeyDown={(event) => {
            if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
            if (event.key === 'ArrowUp' && index > 0) onMove(-1, id('handle'));
            else if (event.key === 'ArrowDown' && index < count - 1) onMove(1, id('handle'));
            else return;
            event.preventDefault();
          }}
        >
          <svg viewBox="0 0 10 16" width="10" height="16" aria-hidden="true" focusable="false">
            {[3, 8, 13].map((y) => (
              <g key={y}>
                <circle cx="2.5" cy={y} r="1.5" />
                <circle cx="7.5" cy={y} r="1.5" />
              </g>
            ))}
          </svg>
        </button>
        {cell(
          'method',
          'Method',
          <select
            {...aria('method')}
            value={draft.method}
            // A fallback answers what no other rule matched, so it has no method or pattern of its own.
            disabled={draft.isFallback}
            onChange={(e) => set({ method: e.currentTarget.value })}
          >
            <option value="">Any</option>
            {METHODS.map((method) => (
              <option key={method} value={method}>
                {method}
              </option>
            ))}
            {/* A method saved elsewhere (over MCP, say) that the list lacks still shows as what it is. */}
            {draft.method && !METHODS.includes(draft.method) && (
              <option value={draft.method}>{draft.method}</option>
            )}
          </select>,
        )}
        {cell(
          'pattern',
          'Pattern',
          <input
            {...aria('pattern', true)}
            value={draft.pattern}
            placeholder={draft.isFallback ? 'any path (fallback)' : '/** (any path)'}
            disabled={draft.isFallback}
            spellcheck={false}
            autocapitalize="off"
            onInput={(e) => set({ pattern: e.currentTarget.value })}
          />,
        )}
        {cell(
          'status',
          'Status',
          <input
            {...aria('status')}
            inputMode="numeric"
            maxLength={3}
            value={draft.status}
            onInput={(e) => set({ status: e.currentTarget.value })}
          />,
        )}
        {cell(
          'name',
          'Name',
          <input
            {...aria('name')}
            value={draft.name}
            placeholder="name (optional)"
            onInput={(e) => set({ name: e.currentTarget.value })}
          />,
        )}
        <button
          type="button"
          class="rule-toggle"
          aria-expanded={open}
          aria-controls={open ? detailId : undefined}
          onClick={onToggle}
        >
          <svg viewBox="0 0 10 10" width="10" height="10" aria-hidden="true" focusable="false">
            <path d="M3 1.5 6.5 5 3 8.5" fill="none" stroke="currentColor" stroke-width="1.6" />
          </svg>
          {/* The summary is what shows; "Details" leads the name a screen reader announces. */}
          <span class="visually-hidden">Details: </span>
          <span class="rule-summary">
            {draft.isFallback && <span class="badge">fallback</span>}{' '}
            <span class="rule-summary-text">{summary}</span>
          </span>
        </button>
        <span class="visually-hidden" id={`${id('pattern')}-hint`}>
          Such as /orders/{'{id}'}, /files/** or regex:^/v[0-9]+/
        </span>
        {rowErrors.length > 0 && (
          <div class="rule-errors">
            {rowErrors.map(({ field, label }) => (
              <span key={field} class="error" role="alert" id={`${id(field)}-error`}>
                {label}: {error(field)}
              </span>
            ))}
          </div>
        )}
        {open && (
          <div class="rule-detail" id={detailId}>
            <div class="field rule-headers">
              <label for={id('headers')}>Headers</label>
              <textarea
                {...aria('headers', true)}
                rows={Math.min(8, Math.max(3, draft.headers.split('\n').length))}
                value={draft.headers}
                placeholder="Content-Type: application/json"
                spellcheck={false}
                onInput={(e) => set({ headers: e.currentTarget.value })}
              />
              <span class="hint" id={`${id('headers')}-hint`}>
                One “Name: value” per line; values may use templates
              </span>
              {error('headers') && (
                <span class="error" role="alert" id={`${id('headers')}-error`}>
                  {error('headers')}
                </span>
              )}
            </div>
            <div class="field rule-body">
              <label for={id('body')}>Body</label>
              <textarea
                {...aria('body')}
                rows={Math.min(12, Math.max(3, draft.body.split('\n').length))}
                value={draft.body}
                placeholder='{"id":"{{uuid}}","echo":{{body.name|json}}}'
                spellcheck={false}
                onInput={(e) => set({ body: e.currentTarget.value })}
              />
              {error('body') && (
                <span class="error" role="alert" id={`${id('body')}-error`}>
                  {error('body')}
                </span>
              )}
            </div>
            <div class="field row rule-fallback">
              <input
                type="checkbox"
                {...aria('isFallback')}
                checked={draft.isFallback}
                onChange={(e) =>
                  set(
                    e.currentTarget.checked
                      ? { isFallback: true, method: '', pattern: '' }
                      : { isFallback: false },
                  )
                }
              />
              <label for={id('isFallback')}>Fallback</label>
              <span class="hint">answers when no other rule matches (any method, any path)</span>
              {error('isFallback') && (
                <span class="error" role="alert" id={`${id('isFallback')}-error`}>
                  {error('isFallback')}
                </span>
              )}
            </div>
            {extraFields.length > 0 && (
              <p class="hint rule-extra">
                Also set on this rule, kept as they are: <code>{extraFields.join(', ')}</code>
              </p>
            )}
            <div class="rule-actions">
              <button type="button" id={id('up')} onClick={() => onMove(-1, id('up'))} disabled={index === 0}>
                Move up
              </button>
              <button
                type="button"
                id={id('down')}
                onClick={() => onMove(1, id('down'))}
                disabled={index === count - 1}
              >
                Move down
              </button>
              <button type="button" class="danger" onClick={onRemove}>
                Remove
              </button>
            </div>
          </div>
        )}
      </fieldset>
    </li>
  );
}
