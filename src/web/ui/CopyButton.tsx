// A button copying a value to the clipboard, named "Copy <label>", with a "Copied" note beside it for a moment after.
import { useEffect, useRef, useState } from 'preact/hooks';

export function CopyButton({ value, label, text }: { value: string; label: string; text?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const copy = async () => {
    try {
      await copyText(value);
      setState('copied');
    } catch {
      setState('failed');
    }
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setState('idle'), 1500);
  };
  // The button's text never changes, so its visible text stays part of its name ("Copy password"); the
  // outcome is a note beside it that screen readers hear as a status.
  return (
    <>
      <button type="button" class="copy" aria-label={`Copy ${label}`} onClick={copy}>
        {text ?? 'Copy'}
      </button>
      <span class="copy-note" role="status">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Select and copy' : ''}
      </span>
    </>
  );
}

/** The clipboard API needs a secure context; over plain http on another host, fall back to a hidden textarea. */
export async function copyText(value: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(value);
    return;
  }
  const area = document.createElement('textarea');
  area.value = value;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('copy refused');
}
