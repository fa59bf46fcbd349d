// The toast of a delete waiting out its undo window: what was deleted and an Undo button, announced politely.
export function UndoToast({ label, onUndo }: { label: string | null; onUndo: () => void }) {
  // The live region stays in the page so a screen reader hears the label when it appears.
  return (
    <div class="toast-region" role="status" aria-live="polite">
      {label !== null && (
        <div class="toast">
          <span>{label}</span>
          <button type="button" onClick={onUndo}>
            Undo
          </button>
        </div>
      )}
    </div>
  );
}
