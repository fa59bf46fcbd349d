// One mock rule as a <fieldset> ("Rule N"), with the API's error shown beside the field it names.
import type { ComponentChildren } from 'preact';
import { fieldKey, type FieldErrors, type RuleDraft, type RuleField } from './drafts.ts';

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'ANY'];

export function RuleFieldset({
  draft,
  index,
  count,
  errors,
  onChange,
  onRemove,
  onMove,
}: {
  draft: RuleDraft;
  index: number;
  count: number;
  errors: FieldErrors;
  onChange: (draft: RuleDraft) => void;
  onRemove: () => void;
  onMove: (step: -1 | 1) => void;
}) {
  const id = (field: RuleField) => `${draft.key}-${field}`;
  const error = (field: RuleField) => errors.fields.get(fieldKey(index, field));
  const set = (patch: Partial<RuleDraft>) => onChange({ ...draft, ...patch });

  const field = (
    name: RuleField,
    label: string,
    control: ComponentChildren,
    options: { wide?: boolean; hint?: string } = {},
  ) => {
    const message = error(name);
    return (
      <div class={`field${options.wide ? ' wide' : ''}`}>
        <label for={id(name)}>{label}</label>
        {control}
        {options.hint && (
          <span class="hint" id={`${id(name)}-hint`}>
            {options.hint}
          </span>
        )}
        {message && (
          <span class="error" role="alert" id={`${id(name)}-error`}>
            {message}
          </span>
        )}
      </div>
    );
  };

  const aria = (name: RuleField) => {
    const message = error(name);
    return {
      id: id(name),
      'aria-invalid': message ? true : undefined,
      'aria-describedby': message ? `${id(name)}-error` : undefined,
    };
  };

  return (
    <fieldset class={`rule${draft.isFallback ? ' fallback' : ''}`}>
      <legend>Rule {index + 1}</legend>
      {field(
        'name',
        'Name',
        <input {...aria('name')} value={draft.name} onInput={(e) => set({ name: e.currentTarget.value })} />,
      )}
      {field(
        'method',
        'Method',
        <input
          {...aria('method')}
          list="rule-methods"
          value={draft.method}
          placeholder="any"
          autocapitalize="characters"
          onInput={(e) => set({ method: e.currentTarget.value })}
        />,
      )}
      {field(
        'pattern',
        'Pattern',
        <input
          {...aria('pattern')}
          value={draft.pattern}
          placeholder="/** (any path)"
          spellcheck={false}
          onInput={(e) => set({ pattern: e.currentTarget.value })}
        />,
        { hint: '/orders/{id}, /files/**, regex:^/v[0-9]+/' },
      )}
      {field(
        'status',
        'Status',
        <input
          {...aria('status')}
          inputMode="numeric"
          value={draft.status}
          onInput={(e) => set({ status: e.currentTarget.value })}
        />,
      )}
      {field(
        'headers',
        'Headers',
        <textarea
          {...aria('headers')}
          rows={Math.max(2, draft.headers.split('\n').length)}
          value={draft.headers}
          placeholder="Content-Type: application/json"
          spellcheck={false}
          onInput={(e) => set({ headers: e.currentTarget.value })}
        />,
        { wide: true, hint: 'One "Name: value" per line; values may use templates' },
      )}
      {field(
        'body',
        'Body',
        <textarea
          {...aria('body')}
          rows={Math.min(12, Math.max(3, draft.body.split('\n').length))}
          value={draft.body}
          placeholder='{"id":"{{uuid}}","echo":{{body.name|json}}}'
          spellcheck={false}
          onInput={(e) => set({ body: e.currentTarget.value })}
        />,
        { wide: true },
      )}
      <div class="field row wide">
        <input
          type="checkbox"
          {...aria('isFallback')}
          checked={draft.isFallback}
          // A fallback answers what no other rule matched, so it takes no method or pattern of its own.
          onChange={(e) =>
            set(
              e.currentTarget.checked ? { isFallback: true, method: '', pattern: '' } : { isFallback: false },
            )
          }
        />
        <label for={id('isFallback')}>Fallback</label>
        <span class="hint">answers when no other rule matches (method and pattern must be any)</span>
        {error('isFallback') && (
          <span class="error" role="alert" id={`${id('isFallback')}-error`}>
            {error('isFallback')}
          </span>
        )}
      </div>
      <div class="rule-actions">
        <button type="button" onClick={() => onMove(-1)} disabled={index === 0}>
          Move up
        </button>
        <button type="button" onClick={() => onMove(1)} disabled={index === count - 1}>
          Move down
        </button>
        <button type="button" class="danger" onClick={onRemove}>
          Remove
        </button>
      </div>
    </fieldset>
  );
}
