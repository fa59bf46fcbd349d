// A form's labelled input with its optional hint, and the Cancel/submit row that ends a form.

/** A text input; `hint` is shown under it and describes it. */
export function Field({
  id,
  label,
  hint,
  value,
  onValue,
  placeholder,
  required,
  autoFocus,
}: {
  id: string;
  label: string;
  hint?: string;
  value: string;
  onValue: (value: string) => void;
  placeholder?: string;
  required?: boolean;
  autoFocus?: boolean;
}) {
  const hintId = hint === undefined ? undefined : `${id}-hint`;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        aria-describedby={hintId}
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
        placeholder={placeholder}
        required={required}
        autoFocus={autoFocus}
      />
      {hint !== undefined && (
        <span id={hintId} class="hint">
          {hint}
        </span>
      )}
    </div>
  );
}

export function FormActions({
  onCancel,
  busy,
  submitLabel,
}: {
  onCancel: () => void;
  busy: boolean;
  submitLabel: string;
}) {
  return (
    <div class="actions">
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
      <button type="submit" class="primary" disabled={busy}>
        {submitLabel}
      </button>
    </div>
  );
}
