// A list row's checkbox for bulk actions: above the row's stretched link, shift-click ticks a range.
export function RowCheck({
  label,
  checked,
  onTick,
}: {
  /** Its accessible name, "Select " and the row's own name. */
  label: string;
  checked: boolean;
  onTick: (shift: boolean) => void;
}) {
  return (
    <input
      type="checkbox"
      class="item-check"
      aria-label={label}
      checked={checked}
      // Click, not change: only the click carries shiftKey (Space on a focused box is a click too).
      onClick={(e) => onTick(e.shiftKey)}
    />
  );
}
