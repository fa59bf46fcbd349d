// The actions of an item's view (mark read, delete): one at a time, buttons disabled meanwhile, failures shown.
import { useState } from 'preact/hooks';
import { errorText } from '../../api.ts';

export function useBusyAction(onError: (text: string) => void): {
  busy: boolean;
  run: (action: () => Promise<void>, options?: { closes?: boolean }) => Promise<void>;
} {
  const [busy, setBusy] = useState(false);
  // `closes`: success takes the view away (a delete), so its buttons stay disabled until it is gone.
  const run = async (action: () => Promise<void>, { closes = false } = {}) => {
    setBusy(true);
    try {
      await action();
      if (!closes) setBusy(false);
    } catch (err) {
      onError(errorText(err));
      setBusy(false);
    }
  };
  return { busy, run };
}
