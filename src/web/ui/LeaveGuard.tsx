// Keeps unsaved edits from being dropped silently: a dialog before any move inside the dashboard (tab, link,
// Esc, Back) and the browser's own prompt before the page unloads (reload, closing, typing another URL).
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { setLeaveGuard } from '../router.ts';
import { ConfirmDialog } from './ConfirmDialog.tsx';

/** While `dirty`, leaving asks first; render the returned dialog in the view. */
export function useLeaveGuard(dirty: boolean, message: ComponentChildren): ComponentChildren {
  // The navigation waiting on the person's answer; null while no dialog is open.
  const [pending, setPending] = useState<{ proceed: () => void } | null>(null);

  useEffect(() => {
    if (!dirty) return;
    const removeGuard = setLeaveGuard((proceed) => setPending({ proceed }));
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Chromium before 119 and Safari still want returnValue set to show the prompt.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => {
      removeGuard();
      window.removeEventListener('beforeunload', onBeforeUnload);
    };
  }, [dirty]);

  return (
    <ConfirmDialog
      open={pending !== null}
      title="Leave without saving?"
      confirmLabel="Discard edits and leave"
      danger
      onCancel={() => setPending(null)}
      onConfirm={() => {
        const next = pending;
        setPending(null);
        next?.proceed();
      }}
    >
      <p>{message}</p>
    </ConfirmDialog>
  );
}
